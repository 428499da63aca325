#!/usr/bin/env python3
"""Independent count for tst_traceonlytruth: per step window of a trace-only folder, the
nanoseconds the GPU is busy only with copies that bring no input (memcpys other than host to
device, memsets, and the HIP runtime's blit kernels __amd_rocclr_(copy|fill)(Buffer|Image), which
run aten::copy_ and aten::zero_). The measured budget books exactly that time as `unattributed`
(docs/budget.md). Steps: the CPU-lane ProfilerStep#N windows, else the windows between consecutive
CPU-lane Optimizer.step# ends (docs/steps.md); by start. Times as exact decimals, µs to ns.
Usage: other_copy_only.py FOLDER > FOLDER/other_copy_only_ns.expected"""
import gzip, json, re, sys
from decimal import Decimal

BLIT = re.compile(r"__amd_rocclr_(copy|fill)(Buffer|Image)")
H2D = ("HtoD", "HostToDevice", "HOST_TO_DEVICE", "Host -> Device", "H2D")


def ns(x):
    return int((Decimal(x) * 1000).to_integral_value())


def union(intervals):
    out = []
    for a, b in sorted(intervals):
        if b <= a:
            continue
        if out and a <= out[-1][1]:
            out[-1][1] = max(out[-1][1], b)
        else:
            out.append([a, b])
    return out


def measure(u, lo, hi):
    return sum(max(0, min(b, hi) - max(a, lo)) for a, b in u)


events = json.load(gzip.open(sys.argv[1] + "/torch_profile.json.gz"), parse_float=Decimal)["traceEvents"]
steps = [(ns(e["ts"]), ns(e["ts"]) + ns(e["dur"])) for e in events
         if e.get("ph") == "X" and e.get("cat") in ("cpu_op", "user_annotation")
         and e["name"].startswith("ProfilerStep#")]
if not steps:
    ends = sorted(ns(e["ts"]) + ns(e["dur"]) for e in events
                  if e.get("ph") == "X" and e.get("cat") == "user_annotation" and e["name"].startswith("Optimizer.step#"))
    steps = [(ends[k - 1], ends[k]) for k in range(1, len(ends))]
steps.sort()
busy, kernels_or_h2d = [], []
for e in events:
    cat = e.get("cat")
    if e.get("ph") != "X" or cat not in ("kernel", "gpu_memcpy", "gpu_memset"):
        continue
    a = ns(e["ts"])
    b = a + ns(e["dur"])
    busy.append((a, b))
    copy = cat != "kernel" or BLIT.search(e["name"])
    if not copy or (cat == "gpu_memcpy" and any(t in e["name"] for t in H2D)):
        kernels_or_h2d.append((a, b))
busy, kernels_or_h2d = union(busy), union(kernels_or_h2d)
print(" ".join(str(measure(busy, lo, hi) - measure(kernels_or_h2d, lo, hi)) for lo, hi in steps))
