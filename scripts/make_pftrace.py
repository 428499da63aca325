#!/usr/bin/env python3
"""Test fixtures for the workbench's rocprofv3 JSON and Perfetto readers (issue 25), python3 stdlib
only.

No public rocprofv3 .pftrace was found to copy, so this script writes one the way rocprofv3's
writer does (rocprofiler-sdk source/lib/output/generatePerfetto.cpp, through the Perfetto SDK):
TracePacket messages on one sequence, a ClockSnapshot with the SDK's incremental clock (id 64)
and TracePacketDefaults pointing at it, interned event names, categories and debug-annotation
names, track descriptors per thread ("THREAD n (tid)", the main thread with a ThreadDescriptor)
and per agent/stream ("COMPUTE AGENT [n] STREAM [s] (GPU)"), BEGIN/END slices with the writer's
annotations, the categories in its order (hip_api, marker_api, then kernel_dispatch per
agent/queue, sorted by start, with its overlap fix), and absolute timestamps (clock 6) whenever a
packet's time goes back, as the SDK does. Field numbers: perfetto protos/perfetto/trace/.

  make_pftrace.py synthetic OUT_DIR     writes OUT_DIR/synthetic_results.json (a small rocprofv3
                                        JSON with two GPUs, HIP calls, roctx ranges) and
                                        OUT_DIR/synthetic.pftrace (the same run as rocprofv3's
                                        pftrace writer would write it)
  make_pftrace.py from-json IN OUT      the pftrace of a rocprofv3 JSON (plain or .gz)
"""
import gzip
import json
import os
import struct
import sys

# ---- protobuf encoding (a test generator's own tiny encoder)


def varint(n):
    n &= (1 << 64) - 1
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def field_varint(num, value):
    return varint(num << 3) + varint(value)


def field_bytes(num, payload):
    if isinstance(payload, str):
        payload = payload.encode()
    return varint((num << 3) | 2) + varint(len(payload)) + payload


def field_double(num, value):
    return varint((num << 3) | 1) + struct.pack("<d", value)


# TracePacket
P_CLOCK_SNAPSHOT, P_TIMESTAMP, P_SEQ_ID, P_TRACK_EVENT, P_INTERNED = 6, 8, 10, 11, 12
P_SEQ_FLAGS, P_CLOCK_ID, P_DEFAULTS, P_TRACK_DESCRIPTOR = 13, 58, 59, 60
# TrackEvent
E_CATEGORY_IIDS, E_ANNOTATIONS, E_TYPE, E_NAME_IID, E_TRACK_UUID = 3, 4, 9, 10, 11
SLICE_BEGIN, SLICE_END = 1, 2
CLOCK_BOOTTIME, CLOCK_INCREMENTAL = 6, 64
SEQ = 1


def packet(fields):
    return field_bytes(1, b"".join(fields))  # Trace.packet = 1


class Writer:
    """One Perfetto SDK trace writer sequence."""

    def __init__(self, first_ts):
        self.out = bytearray()
        self.names, self.cats, self.ann = {}, {}, {}
        self.last = first_ts
        clocks = (field_bytes(1, field_varint(1, CLOCK_INCREMENTAL) + field_varint(2, first_ts) + field_varint(3, 1))
                  + field_bytes(1, field_varint(1, CLOCK_BOOTTIME) + field_varint(2, first_ts)))
        defaults = field_varint(58, CLOCK_INCREMENTAL)
        self.out += packet([field_varint(P_SEQ_ID, SEQ), field_varint(P_SEQ_FLAGS, 1 | 2),
                            field_bytes(P_CLOCK_SNAPSHOT, clocks), field_bytes(P_DEFAULTS, defaults)])

    def _iid(self, table, name, interned, kind):
        if name not in table:
            table[name] = len(table) + 1
            interned.append(field_bytes(kind, field_varint(1, table[name]) + field_bytes(2, name)))
        return table[name]

    def descriptor(self, uuid, name=None, pid=None, tid=None):
        body = field_varint(1, uuid)
        if name is not None:
            body += field_bytes(2, name)
        if tid is not None:
            body += field_bytes(4, field_varint(1, pid) + field_varint(2, tid))
        self.out += packet([field_varint(P_SEQ_ID, SEQ), field_bytes(P_TRACK_DESCRIPTOR, body)])

    def _timestamp(self, ts):
        if ts >= self.last:  # the SDK's incremental timestamps: a delta on clock 64
            delta, self.last = ts - self.last, ts
            return [field_varint(P_TIMESTAMP, delta)]
        return [field_varint(P_TIMESTAMP, ts), field_varint(P_CLOCK_ID, CLOCK_BOOTTIME)]

    def slice(self, category, name, track, start, end, annotations):
        interned = []
        cat = self._iid(self.cats, category, interned, 1)
        nid = self._iid(self.names, name, interned, 2)
        ev = field_varint(E_CATEGORY_IIDS, cat) + field_varint(E_TYPE, SLICE_BEGIN) + field_varint(E_NAME_IID, nid)
        ev += field_varint(E_TRACK_UUID, track)
        for key, value in annotations:
            aid = self._iid(self.ann, key, interned, 3)
            if isinstance(value, str):
                ev += field_bytes(E_ANNOTATIONS, field_varint(1, aid) + field_bytes(6, value))
            elif value < 0:
                ev += field_bytes(E_ANNOTATIONS, field_varint(1, aid) + field_varint(4, value))
            else:
                ev += field_bytes(E_ANNOTATIONS, field_varint(1, aid) + field_varint(3, value))
        fields = [field_varint(P_SEQ_ID, SEQ)] + self._timestamp(start)
        if interned:
            fields.append(field_bytes(P_INTERNED, b"".join(interned)))
        self.out += packet(fields + [field_bytes(P_TRACK_EVENT, ev), field_varint(P_SEQ_FLAGS, 2)])
        end_ev = field_varint(E_CATEGORY_IIDS, cat) + field_varint(E_TYPE, SLICE_END) + field_varint(E_TRACK_UUID, track)
        self.out += packet([field_varint(P_SEQ_ID, SEQ)] + self._timestamp(end)
                           + [field_bytes(P_TRACK_EVENT, end_ev), field_varint(P_SEQ_FLAGS, 2)])


def name_hash(text):
    """A stable 63-bit track uuid from a track name (the writer hashes the name)."""
    h = 1469598103934665603
    for b in text.encode():
        h = ((h ^ b) * 1099511628211) & ((1 << 63) - 1)
    return h or 1


def pftrace_of(doc):
    proc = doc["rocprofiler-sdk-tool"][0]
    pid = proc["metadata"]["pid"]
    kinds = proc["strings"]["buffer_records"]
    messages = {e["key"]: e["value"] for e in proc["strings"].get("marker_api", [])}
    agents = {a["id"]["handle"]: a for a in proc["agents"]}
    symbols = {s["kernel_id"]: s for s in proc["kernel_symbols"]}
    rec = proc["buffer_records"]
    times = [r["start_timestamp"] for k in ("hip_api", "marker_api", "kernel_dispatch") for r in rec.get(k, [])]
    w = Writer(min(times) if times else 0)
    main_tid = pid
    tids = sorted({r["thread_id"] for k in ("hip_api", "marker_api", "kernel_dispatch") for r in rec.get(k, [])})
    thread_tracks = {}
    n = 0
    for tid in tids:
        if tid == main_tid:
            thread_tracks[tid] = name_hash("thread %d" % tid)
            w.descriptor(thread_tracks[tid], None, pid, tid)  # ThreadTrack::Current()
        else:
            n += 1
            thread_tracks[tid] = tid
            w.descriptor(tid, "THREAD %d (%d)" % (n, tid))
    streams = {}
    for d in rec.get("kernel_dispatch", []):
        agent = agents[d["dispatch_info"]["agent_id"]["handle"]]
        key = (agent["logical_node_id"], d.get("stream_id", {}).get("handle", 0))
        if key not in streams:
            name = "COMPUTE AGENT [%d] STREAM [%d] (GPU)" % key
            streams[key] = name_hash(name)
            w.descriptor(streams[key], name)

    def api(r, name, category):
        w.slice(category, name, thread_tracks[r["thread_id"]], r["start_timestamp"], r["end_timestamp"],
                [("begin_ns", r["start_timestamp"]), ("end_ns", r["end_timestamp"]),
                 ("delta_ns", r["end_timestamp"] - r["start_timestamp"]), ("tid", r["thread_id"]),
                 ("kind", r["kind"]), ("operation", r["operation"]), ("corr_id", r["correlation_id"]["internal"])])

    for r in rec.get("hip_api", []):
        api(r, kinds[r["kind"]]["operations"][r["operation"]], "hip_api")
    for r in rec.get("marker_api", []):
        kind, op = kinds[r["kind"]]["kind"], kinds[r["kind"]]["operations"][r["operation"]]
        name = messages.get(r["correlation_id"]["internal"], "") if kind == "MARKER_CORE_API" and \
            op != "roctxGetThreadId" else op
        api(r, name, "marker_api")
    # kernels: per agent and queue, sorted by start, overlaps cut at their middle
    bins = {}
    for d in rec.get("kernel_dispatch", []):
        info = d["dispatch_info"]
        bins.setdefault((info["agent_id"]["handle"], info["queue_id"]["handle"]), []).append(dict(d))
    for (agent_handle, queue), ds in bins.items():
        ds.sort(key=lambda d: d["start_timestamp"])
        for i, d in enumerate(ds):
            if i + 1 < len(ds) and ds[i + 1]["start_timestamp"] < d["end_timestamp"]:
                start = ds[i + 1]["start_timestamp"]
                mid = start + (min(d["end_timestamp"], ds[i + 1]["end_timestamp"]) - start) // 2
                d["end_timestamp"] = mid
                ds[i + 1]["start_timestamp"] = mid
            info = d["dispatch_info"]
            agent = agents[agent_handle]
            sym = symbols[info["kernel_id"]]
            w.slice("kernel_dispatch", sym.get("demangled_kernel_name") or demangle(sym["kernel_name"]),
                    streams[(agent["logical_node_id"], d.get("stream_id", {}).get("handle", 0))],
                    d["start_timestamp"], d["end_timestamp"],
                    [("begin_ns", d["start_timestamp"]), ("end_ns", d["end_timestamp"]),
                     ("delta_ns", d["end_timestamp"] - d["start_timestamp"]), ("kind", d["kind"]),
                     ("agent", "Agent-%d" % agent["logical_node_id"]),  # agent_index.as_string("-")
                     ("corr_id", d["correlation_id"]["internal"]), ("queue", queue), ("tid", d["thread_id"]),
                     ("kernel_id", info["kernel_id"])])
    return bytes(w.out)


DEMANGLED = {"_Z6reducePfi.kd": "reduce(float*, int) [clone .kd]"}


def demangle(name):
    """What cxx_demangle makes of the synthetic symbols (plain C names stay as they are); a real
    rocprofv3 JSON carries the writer's own demangled_kernel_name, which is used instead."""
    return DEMANGLED.get(name, name)


# ---- the synthetic run

def synthetic():
    pid, worker = 4242, 4250
    t0 = 1_000_000_000
    kinds = [{"kind": "NONE", "operations": []}] + [{"kind": "UNUSED_%d" % i, "operations": []} for i in range(1, 5)]
    kinds += [{"kind": "HIP_RUNTIME_API", "operations": ["hipLaunchKernel", "hipMemcpyAsync", "hipStreamSynchronize"]},
              {"kind": "HIP_COMPILER_API", "operations": []},
              {"kind": "MARKER_CORE_API", "operations": ["roctxMarkA", "roctxRangePushA", "roctxRangePop",
                                                         "roctxRangeStartA", "roctxRangeStop", "roctxGetThreadId"]},
              {"kind": "MARKER_CONTROL_API", "operations": []}, {"kind": "MARKER_NAME_API", "operations": []},
              {"kind": "MEMORY_COPY", "operations": []},
              {"kind": "KERNEL_DISPATCH", "operations": ["KERNEL_DISPATCH_NONE", "KERNEL_DISPATCH_ENQUEUE",
                                                         "KERNEL_DISPATCH_COMPLETE"]}]
    agents = [{"size": 312, "id": {"handle": 100}, "type": 1, "node_id": 0, "logical_node_id": 0,
               "logical_node_type_id": 0, "name": "CPU"},
              {"size": 312, "id": {"handle": 101}, "type": 2, "node_id": 2, "logical_node_id": 1,
               "logical_node_type_id": 0, "name": "gfx942"},
              {"size": 312, "id": {"handle": 102}, "type": 2, "node_id": 3, "logical_node_id": 2,
               "logical_node_type_id": 1, "name": "gfx942"}]
    symbols = [{"kernel_id": 0, "kernel_name": "", "formatted_kernel_name": "0"},
               {"kernel_id": 1, "kernel_name": "gemm_bf16_tn.kd", "formatted_kernel_name": "gemm_bf16_tn",
                "group_segment_size": 16384, "arch_vgpr_count": 128, "accum_vgpr_count": 64, "sgpr_count": 48},
               {"kernel_id": 2, "kernel_name": "_Z6reducePfi.kd", "formatted_kernel_name": "reduce(float*, int)",
                "group_segment_size": 1024, "arch_vgpr_count": 32, "accum_vgpr_count": 0, "sgpr_count": 24},
               {"kernel_id": 3, "kernel_name": "ncclDevKernel_Generic_1.kd",
                "formatted_kernel_name": "ncclDevKernel_Generic_1", "group_segment_size": 0,
                "arch_vgpr_count": 64, "accum_vgpr_count": 0, "sgpr_count": 32}]
    dispatches, hip, markers, messages = [], [], [], []
    corr = 0
    t = t0
    for step in range(1, 4):
        corr += 1
        step_start = t
        messages.append({"key": corr, "value": "step %d" % step})
        step_corr = corr
        for i in range(6):
            for agent, queue, kernel, dur in ((101, 1, 1, 50_000 + 1000 * i), (102, 2, 2, 20_000 + 500 * step),
                                              (101, 1, 3, 80_000)):
                corr += 1
                launch = t + 1000
                hip.append({"size": 48, "kind": 5, "operation": 0, "thread_id": pid,
                            "correlation_id": {"internal": corr, "external": 0},
                            "start_timestamp": t, "end_timestamp": launch})
                start = launch + 3000
                dispatches.append({"size": 184, "kind": 11, "operation": 2, "thread_id": pid,
                                   "correlation_id": {"internal": corr, "external": 0},
                                   "start_timestamp": start, "end_timestamp": start + dur,
                                   "dispatch_info": {"size": 72, "agent_id": {"handle": agent},
                                                     "queue_id": {"handle": queue}, "kernel_id": kernel,
                                                     "dispatch_id": corr, "private_segment_size": 0,
                                                     "group_segment_size": 0,
                                                     "workgroup_size": {"x": 256, "y": 1, "z": 1},
                                                     "grid_size": {"x": 65536, "y": 1, "z": 1}},
                                   "stream_id": {"handle": 0}})
                t = start + dur + 2000
        corr += 1
        hip.append({"size": 48, "kind": 5, "operation": 2, "thread_id": worker,
                    "correlation_id": {"internal": corr, "external": 0},
                    "start_timestamp": t, "end_timestamp": t + 40_000})
        t += 50_000
        markers.append({"size": 48, "kind": 7, "operation": 1, "thread_id": pid,
                        "correlation_id": {"internal": step_corr, "external": 0},
                        "start_timestamp": step_start, "end_timestamp": t})
        corr += 1
        messages.append({"key": corr, "value": "checkpoint"})
        markers.append({"size": 48, "kind": 7, "operation": 0, "thread_id": pid,
                        "correlation_id": {"internal": corr, "external": 0},
                        "start_timestamp": t, "end_timestamp": t})
        t += 10_000
    return {"rocprofiler-sdk-tool": [{
        "metadata": {"pid": pid, "init_time": t0 - 1000, "fini_time": t + 1000,
                     "command": ["python3", "train.py"], "config": {"json_output": True, "kernel_rename": False}},
        "agents": agents, "counters": [],
        "strings": {"callback_records": [], "buffer_records": kinds, "marker_api": messages,
                    "correlation_id": {"external": []}, "counters": {"dimension_ids": []}},
        "code_objects": [], "kernel_symbols": symbols, "host_functions": [], "summary": [],
        "callback_records": {"counter_collection": []},
        "buffer_records": {"kernel_dispatch": dispatches, "hip_api": hip, "hsa_api": [], "marker_api": markers,
                           "rccl_api": [], "memory_copy": [], "memory_allocation": [], "scratch_memory": []}}]}


def load(path):
    opener = gzip.open if open(path, "rb").read(2) == b"\x1f\x8b" else open
    with opener(path, "rt", encoding="utf-8") as f:
        return json.load(f)


def main(argv):
    if len(argv) == 3 and argv[1] == "synthetic":
        doc = synthetic()
        os.makedirs(argv[2], exist_ok=True)
        with open(os.path.join(argv[2], "synthetic_results.json"), "w") as f:
            json.dump(doc, f, indent=1)
        with open(os.path.join(argv[2], "synthetic.pftrace"), "wb") as f:
            f.write(pftrace_of(doc))
        return 0
    if len(argv) == 4 and argv[1] == "from-json":
        with open(argv[3], "wb") as f:
            f.write(pftrace_of(load(argv[2])))
        return 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
