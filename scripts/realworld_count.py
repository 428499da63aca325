#!/usr/bin/env python3
"""Independent counts of the real public fixtures under tests/data/realworld/ (tst_realworld).

Standard library only, no code shared with the C++ reading. One function per format, told by
the file's first bytes (gzip is inflated first):

  Kineto chrome trace (.json / .json.gz, a `traceEvents` document), times as decimal µs -> exact ns:
    kernels           ph "X" events of cat "kernel" (Kineto 2021: "Kernel"): count, summed dur, the
                      span from the first begin to the last end; per device (args "device", else pid)
    copies / memsets  cat gpu_memcpy / gpu_memset (2021: Memcpy / Memset): count and summed dur
    steps             windows by lane and name family: cpu_profiler_step (ProfilerStep#N as a
                      user_annotation, cpu_op or 2021 Operator), cpu_optimizer_step (Optimizer.step#…
                      on the CPU lane), gpu_profiler_step / gpu_optimizer_step (the same names as
                      gpu_user_annotation on a GPU lane): count, each window's duration in ns in time
                      order, and the distinct names
    memory            `[memory]` instant events: count per device (Device Type, Device Id; type 0 is
                      the host), the peak of the running sum of Bytes per device in time order (the
                      only figure a Kineto 2021 event allows), and the maximum Total Allocated /
                      Total Reserved where the events carry them (null otherwise)
    graphs            runtime calls named cudaGraphLaunch / hipGraphLaunch, *StreamBeginCapture /
                      *StreamEndCapture / *GraphInstantiate*, *StreamGetCaptureInfo*
    data_loading_ops  events whose name contains "DataLoader"
    devices           deviceProperties: id, name, totalGlobalMem
  rocprofv3 kernel trace CSV (Kind,Agent_Id,…): KERNEL_DISPATCH rows, summed End-Start, span, agents
  Nsight Systems SQLite export (plain or .gz): CUPTI_ACTIVITY_KIND_KERNEL rows with end > start,
    summed durations, span, per deviceId; TARGET_INFO_GPU id, name, totalMemory; runtime calls named
    cudaGraphLaunch*; NVTX ranges

Usage: realworld_count.py FILE            -> JSON on stdout
       realworld_count.py --write DIR...  -> DIR/expected_counts.json for each run folder DIR
"""
import csv
import decimal
import gzip
import io
import json
import os
import sqlite3
import sys
import tempfile
from pathlib import Path

decimal.getcontext().prec = 40


def ns(us):
    return int((decimal.Decimal(str(us)) * 1000).quantize(decimal.Decimal(1), rounding=decimal.ROUND_HALF_UP))


def read_bytes(path):
    raw = Path(path).read_bytes()
    return gzip.decompress(raw) if raw[:2] == b"\x1f\x8b" else raw


def windows(items):
    items.sort()
    return {"count": len(items), "durations_ns": [e - b for b, e, _ in items],
            "names": sorted({n for _, _, n in items})}


def count_kineto(path):
    doc = json.loads(read_bytes(path), parse_float=decimal.Decimal)
    events = doc["traceEvents"] if isinstance(doc, dict) else doc
    kernel_cats = {"kernel", "Kernel"}
    copy_cats = {"gpu_memcpy", "Memcpy"}
    memset_cats = {"gpu_memset", "Memset"}
    cpu_cats = {"user_annotation", "cpu_op", "Operator"}
    kernels, copies, memsets, gpu_events = [], [], [], []
    per_device = {}
    lanes = {"cpu_profiler_step": [], "cpu_optimizer_step": [], "gpu_profiler_step": [], "gpu_optimizer_step": []}
    memory = []
    graphs = {"graph_launches": 0, "begin_capture": 0, "end_capture": 0, "graph_instantiate": 0,
              "get_capture_info": 0}
    data_loading = 0
    for e in events:
        if not isinstance(e, dict):
            continue
        name = e.get("name")
        if not isinstance(name, str):
            continue
        ph, cat = e.get("ph"), e.get("cat")
        if ph in ("i", "I") and name == "[memory]":
            memory.append(e)
            continue
        if ph != "X" or "ts" not in e:
            continue
        b = ns(e["ts"])
        end = b + ns(e.get("dur", 0))
        if "DataLoader" in name:
            data_loading += 1
        if cat in kernel_cats or cat in copy_cats or cat in memset_cats:
            gpu_events.append((b, end))
        if cat in kernel_cats:
            kernels.append((b, end))
            args = e.get("args") or {}
            dev = str(args.get("device", e.get("pid")))
            d = per_device.setdefault(dev, [0, 0])
            d[0] += 1
            d[1] += end - b
        elif cat in copy_cats:
            copies.append(end - b)
        elif cat in memset_cats:
            memsets.append(end - b)
        elif cat == "gpu_user_annotation":
            if name.startswith("ProfilerStep#"):
                lanes["gpu_profiler_step"].append((b, end, name))
            elif name.startswith("Optimizer.step#"):
                lanes["gpu_optimizer_step"].append((b, end, name))
        elif cat in cpu_cats:
            if name.startswith("ProfilerStep#"):
                lanes["cpu_profiler_step"].append((b, end, name))
            elif name.startswith("Optimizer.step#"):
                lanes["cpu_optimizer_step"].append((b, end, name))
        if name in ("cudaGraphLaunch", "hipGraphLaunch"):
            graphs["graph_launches"] += 1
        elif name.endswith("StreamBeginCapture"):
            graphs["begin_capture"] += 1
        elif name.endswith("StreamEndCapture"):
            graphs["end_capture"] += 1
        elif "GraphInstantiate" in name:
            graphs["graph_instantiate"] += 1
        elif "StreamGetCaptureInfo" in name:
            graphs["get_capture_info"] += 1
    out = {"format": "kineto"}
    out["kernels"] = {
        "count": len(kernels),
        "count_positive": sum(1 for b, e in kernels if e > b),
        "total_ns": sum(e - b for b, e in kernels),
        "first_begin_ns": min((b for b, _ in kernels), default=None),
        "last_end_ns": max((e for _, e in kernels), default=None),
        "span_ns": (max(e for _, e in kernels) - min(b for b, _ in kernels)) if kernels else 0,
        "per_device": {k: {"count": v[0], "total_ns": v[1]} for k, v in sorted(per_device.items())},
    }
    out["gpu_events_span_ns"] = (max(e for _, e in gpu_events) - min(b for b, _ in gpu_events)) if gpu_events else 0
    out["copies"] = {"count": len(copies), "total_ns": sum(copies)}
    out["memsets"] = {"count": len(memsets), "total_ns": sum(memsets)}
    out["steps"] = {k: windows(v) for k, v in lanes.items()}
    # Optimizer.step closes a training step: the steps are the windows between consecutive ends
    # (N annotations, N - 1 steps; before the first end the profiler started mid-step).
    ends = sorted(e for _, e, _ in lanes["cpu_optimizer_step"])
    out["steps"]["cpu_optimizer_step"]["cut_durations_ns"] = [b - a for a, b in zip(ends, ends[1:]) if b > a]
    out["memory"] = count_memory(memory)
    out["graphs"] = graphs
    out["data_loading_ops"] = data_loading
    props = doc.get("deviceProperties") if isinstance(doc, dict) else None
    out["devices"] = [{"id": p.get("id"), "name": p.get("name"), "total_memory_bytes": p.get("totalGlobalMem")}
                      for p in (props or [])]
    return out


def count_memory(events):
    devices, host = {}, 0
    for order, e in enumerate(events):
        a = e.get("args") or {}
        dtype = a.get("Device Type")
        if dtype is None or "ts" not in e:
            continue
        if int(dtype) == 0:
            host += 1
            continue
        key = "%d:%d" % (int(dtype), int(a.get("Device Id", -1)))
        devices.setdefault(key, []).append((ns(e["ts"]), order, a))
    out = {"events": len(events), "host_events": host, "devices": {}}
    for key, evs in sorted(devices.items()):
        evs.sort(key=lambda t: (t[0], t[1]))
        running = peak = 0
        for _, _, a in evs:
            running += int(a.get("Bytes", 0))
            peak = max(peak, running)
        allocated = [int(a["Total Allocated"]) for _, _, a in evs if "Total Allocated" in a]
        reserved = [int(a["Total Reserved"]) for _, _, a in evs if "Total Reserved" in a]
        out["devices"][key] = {
            "events": len(evs),
            "peak_cumulative_bytes": peak,
            "final_cumulative_bytes": running,
            "peak_total_allocated_bytes": max(allocated) if allocated else None,
            "peak_total_reserved_bytes": max(reserved) if reserved else None,
        }
    return out


def count_kernel_csv(path):
    text = read_bytes(path).decode("utf-8")
    rows = [r for r in csv.DictReader(io.StringIO(text)) if r.get("Kind") == "KERNEL_DISPATCH"]
    spans = [(int(r["Start_Timestamp"]), int(r["End_Timestamp"])) for r in rows]
    agents = {}
    for r, (b, e) in zip(rows, spans):
        a = agents.setdefault(r["Agent_Id"], [0, 0])
        a[0] += 1
        a[1] += e - b
    return {
        "format": "rocprofv3-kernel-csv",
        "kernels": {
            "count": len(rows),
            "count_positive": sum(1 for b, e in spans if e > b),
            "total_ns": sum(e - b for b, e in spans),
            "first_begin_ns": min(b for b, _ in spans),
            "last_end_ns": max(e for _, e in spans),
            "span_ns": max(e for _, e in spans) - min(b for b, _ in spans),
            "per_device": {k: {"count": v[0], "total_ns": v[1]} for k, v in sorted(agents.items())},
            "names": len({r["Kernel_Name"] for r in rows}),
        },
        "gpu_events_span_ns": max(e for _, e in spans) - min(b for b, _ in spans),
    }


def count_nsys(path):
    raw = read_bytes(path)
    with tempfile.TemporaryDirectory() as tmp:
        db_path = os.path.join(tmp, "export.sqlite")
        Path(db_path).write_bytes(raw)
        db = sqlite3.connect("file:%s?mode=ro&immutable=1" % db_path, uri=True)
        q = lambda sql: db.execute(sql).fetchall()
        tables = {r[0] for r in q("SELECT name FROM sqlite_master WHERE type = 'table'")}
        k = q('SELECT count(*), sum("end" - start), min(start), max("end") FROM CUPTI_ACTIVITY_KIND_KERNEL '
              'WHERE "end" > start')[0]
        per_device = {str(d): {"count": c, "total_ns": t} for d, c, t in q(
            'SELECT deviceId, count(*), sum("end" - start) FROM CUPTI_ACTIVITY_KIND_KERNEL WHERE "end" > start '
            'GROUP BY deviceId ORDER BY deviceId')}
        out = {"format": "nsys-sqlite",
               "kernels": {"count": k[0], "total_ns": k[1] or 0, "first_begin_ns": k[2], "last_end_ns": k[3],
                           "span_ns": (k[3] - k[2]) if k[0] else 0, "per_device": per_device}}
        spans = [q('SELECT min(start), max("end") FROM %s WHERE "end" >= start' % t)[0] for t in
                 ("CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_MEMCPY", "CUPTI_ACTIVITY_KIND_MEMSET")
                 if t in tables]
        spans = [sp for sp in spans if sp[0] is not None]
        out["gpu_events_span_ns"] = max(e for _, e in spans) - min(b for b, _ in spans) if spans else 0
        out["kernels"]["count_positive"] = k[0]
        out["devices"] = [{"id": i, "name": n, "total_memory_bytes": m} for i, n, m in
                          q("SELECT id, name, totalMemory FROM TARGET_INFO_GPU ORDER BY id")] \
            if "TARGET_INFO_GPU" in tables else []
        launches = 0
        if "CUPTI_ACTIVITY_KIND_RUNTIME" in tables:
            launches = q("SELECT count(*) FROM CUPTI_ACTIVITY_KIND_RUNTIME r JOIN StringIds s ON s.id = r.nameId "
                         "WHERE s.value LIKE 'cudaGraphLaunch%'")[0][0]
        out["graphs"] = {"graph_launches": launches}
        out["nvtx_ranges"] = q('SELECT count(*) FROM NVTX_EVENTS WHERE "end" IS NOT NULL AND "end" >= start')[0][0] \
            if "NVTX_EVENTS" in tables else 0
        meta = dict(q("SELECT name, value FROM META_DATA_EXPORT")) if "META_DATA_EXPORT" in tables else {}
        out["nsys_version"] = meta.get("EXPORT_PRODUCT_VERSION")
        db.close()
        return out


def count(path):
    head = read_bytes(path)[:64]
    if head.startswith(b"SQLite format 3\0"):
        return count_nsys(path)
    if head.lstrip().startswith((b"{", b"[")):
        return count_kineto(path)
    if head.startswith(b'"Kind"') or head.startswith(b"Kind"):
        return count_kernel_csv(path)
    raise SystemExit("%s: not a format this script counts" % path)


def step_plan(counts):
    """The step windows issue 32 expects the run's one step plan to find, first rule that applies:
    CPU-lane ProfilerStep#N; GPU-lane step annotations (each window its own step); CPU-lane
    optimizer steps, which cut the span into the windows between consecutive ends (N annotations,
    N - 1 steps); else the kernel span as one step (no marks: 0 windows found)."""
    steps = counts.get("steps") or {}
    for source in ("cpu_profiler_step", "gpu_profiler_step", "gpu_optimizer_step"):
        if steps.get(source, {}).get("count"):
            return {"source": source, "windows": steps[source]["count"]}
    cut = steps.get("cpu_optimizer_step", {}).get("cut_durations_ns") or []
    if cut:
        return {"source": "cpu_optimizer_step", "windows": len(cut)}
    return {"source": "kernel_span", "windows": 0}


def input_of(folder):
    files = sorted(p for p in Path(folder).iterdir() if p.is_file() and p.name != "expected_counts.json")
    if len(files) != 1:
        raise SystemExit("%s: expected one input file, found %d" % (folder, len(files)))
    return files[0]


def main(argv):
    if len(argv) >= 2 and argv[0] == "--write":
        for folder in argv[1:]:
            src = input_of(folder)
            result = {"file": src.name, **count(src)}
            result["step_plan"] = step_plan(result)
            Path(folder, "expected_counts.json").write_text(json.dumps(result, indent=1, sort_keys=True) + "\n")
            print("wrote", Path(folder, "expected_counts.json"))
        return 0
    if len(argv) != 1:
        print(__doc__, file=sys.stderr)
        return 2
    print(json.dumps(count(argv[0]), indent=1, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
