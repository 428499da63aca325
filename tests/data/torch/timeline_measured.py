#!/usr/bin/env python3
"""Independent measurement of the GPU timeline of chrome traces, for tst_measuredtimeline.cpp.

Issue 13's definitions, written from the issue and docs/timeline.md, not from the C++:
per device (args.device of ph "X" events with cat kernel / gpu_memcpy / gpu_memset, or Kineto
2021's Kernel / Memcpy / Memset, and an integer args.stream), over the whole trace:

  kernels        kernel events, zero-length ones included
  comm_kernels   kernels whose name is a collective (the workbench profile's rule, below)
  kernel_ns      sum of kernel durations
  busy_ns        |union of every GPU event, all streams|
  compute_ns     |union of kernels that are neither collectives nor copy kernels|
  comm_ns        |union of collective kernels|
  exposed_ns     |comm \\ compute| = |comm U compute| - |compute| (collective time that no compute
                 kernel on the same device overlaps; memcpy does not hide it)
  memcpy_ns      |union of memcpy and memset events and copy kernels|

Times are exact integer ns: µs read as decimal.Decimal, times 1000, rounded half up.
A collective is a name the workbench counts as communication (docs/collectives.md, issue 23):
case-insensitively, after a non-alphanumeric, the token nccl|rccl, an RCCL/NCCL device kernel
(nccl|rccl)[A-Za-z0-9]*(Kernel|_), mscclKernel or mscclpp::, a word starting
all[_-]?reduce|all[_-]?gather|reduce[_-]?scatter|all[_-]?to[_-]?all|send[_-]?recv,
cross_device_reduce_<N>stage, quickreduce::, nvshmem[ix]?_, an NVSHMEM <op>…_on_stream_kernel,
c10d::; case-sensitively AllReduce|AllGather|ReduceScatter|AllToAll as a CamelCase word; and
DeepEP's deep_ep::[legacy::](intranode|internode|internode_ll):: and deep_ep::elastic:: (not its
epilogues), also under dpsk::ep::. A bare "broadcast" is not one.
A copy kernel is a runtime's blit kernel that runs a copy or memset (docs/collectives.md, "Copies
that run as kernels"; ROCm clr rocclr/device/rocm/rocblit.cpp): a name containing
__amd_rocclr_ then copy|fill then Buffer|Image (__amd_rocclr_copyBuffer, …fillBufferAligned). It
still counts as a kernel (kernels, kernel_ns), but its time is copy time, never compute.

usage: timeline_measured.py TRACE.json[.gz]...   (one line per device, tab-separated)
"""
import os
import re
import sys

# The event kinds, reading a trace, the exact µs -> ns and the interval union are timeline_expected.py's (the same independent
# count, for tst_kinetotimeline): one definition of each.
from timeline_expected import KINDS, as_int, load, ns, union

L, R = r"(?<![A-Za-z0-9])", r"(?![A-Za-z0-9])"
COLLECTIVE = [
    re.compile(L + r"(nccl|rccl)" + R, re.I),
    re.compile(L + r"(nccl|rccl)[A-Za-z0-9]*(Kernel|_)", re.I),
    re.compile(L + r"(mscclKernel|mscclpp::)", re.I),
    re.compile(L + r"(all[_-]?reduce|all[_-]?gather|reduce[_-]?scatter|all[_-]?to[_-]?all|send[_-]?recv)", re.I),
    re.compile(r"(?<![A-Z])(AllReduce|AllGather|ReduceScatter|AllToAll)(?![a-z])"),
    re.compile(L + r"cross_device_reduce_[0-9]stage", re.I),
    re.compile(L + r"quickreduce::", re.I),
    re.compile(r"(deep_ep|dpsk::ep)::(legacy::)?(intranode|internode|internode_ll)::|"
               r"deep_ep::elastic::(?![A-Za-z0-9_]*epilogue)", re.I),
    re.compile(L + r"nvshmem[ix]?_", re.I),
    re.compile(L + r"(barrier|sync|broadcast|fcollect|alltoall|rdxn|reducescatter)[A-Za-z0-9_]*_on_stream_kernel", re.I),
    re.compile(L + r"c10d::", re.I),
]
COPY_KERNEL = re.compile(r"__amd_rocclr_(copy|fill)(Buffer|Image)")
COLUMNS = ["file", "device", "kernels", "comm_kernels", "memcpy", "memset", "kernel_ns", "busy_ns",
           "compute_ns", "comm_ns", "exposed_ns", "memcpy_ns"]


def length(intervals):
    return sum(e - b for b, e in union(intervals))


def main(path):
    doc = load(path)
    devices = {}
    for e in doc.get("traceEvents", []):
        if not isinstance(e, dict) or e.get("ph") != "X" or e.get("cat") not in KINDS:
            continue
        b, d = ns(e.get("ts")), ns(e.get("dur"))
        name = e.get("name")
        if b is None or d is None or d < 0 or not isinstance(name, str):
            continue
        args = e.get("args") if isinstance(e.get("args"), dict) else {}
        dev, stream = as_int(args.get("device")), as_int(args.get("stream"))
        if dev is None or stream is None:
            continue
        r = devices.setdefault(dev, {"k": 0, "comm_k": 0, "c": 0, "s": 0, "kernel_ns": 0,
                                     "all": [], "compute": [], "comm": [], "copies": []})
        kind = KINDS[e["cat"]]
        r["all"].append((b, b + d))
        if kind == "k":
            r["k"] += 1
            r["kernel_ns"] += d
            if COPY_KERNEL.search(name):
                r["copies"].append((b, b + d))
            elif any(p.search(name) for p in COLLECTIVE):
                r["comm_k"] += 1
                r["comm"].append((b, b + d))
            else:
                r["compute"].append((b, b + d))
        else:
            r[kind] += 1
            r["copies"].append((b, b + d))
    for dev in sorted(devices):
        r = devices[dev]
        compute = length(r["compute"])
        exposed = length(r["compute"] + r["comm"]) - compute
        row = [os.path.basename(path), dev, r["k"], r["comm_k"], r["c"], r["s"], r["kernel_ns"],
               length(r["all"]), compute, length(r["comm"]), exposed, length(r["copies"])]
        print("\t".join(str(v) for v in row))


if __name__ == "__main__":
    print("\t".join(COLUMNS))
    for p in sys.argv[1:]:
        main(p)
