#!/usr/bin/env python3
"""Independent count of the GPU idle time that overlaps DataLoader ops, per step, for
tst_measuredbudgettruth.cpp and scripts/check-measured-budget.sh (issue 23: "data wait within 10 %
of the GPU idle time that overlaps enumerate(DataLoader) ops, by an independent count").

Written from the issue's definitions, not from the C++. Per step window and per device:

  window_ns        the step: a ProfilerStep#N event on the CPU lane (cat user_annotation, cpu_op or
                   Kineto 2021's Operator), [ts, ts + dur)
  busy_ns          |window ∩ union of every GPU event of the device| (kernels, memcpy, memset: cat
                   kernel / gpu_memcpy / gpu_memset or Kineto 2021's Kernel / Memcpy / Memset, placed
                   by args.device and an integer args.stream)
  compute_ns       |window ∩ union of the device's non-collective kernels| (collective: the
                   workbench's communication names, timeline_measured.COLLECTIVE)
  dataloader_ns    |window ∩ union of the enumerate(DataLoader)#… ops| (cat cpu_op, Operator or
                   user_annotation, name starting "enumerate(DataLoader)", of the process that holds
                   the ProfilerStep marks)
  idle_dl_ns       |window ∩ DataLoader union \\ GPU busy union|: the GPU idle while a DataLoader op runs
  h2d_only_ns      |window ∩ union of the host-to-device copies \\ union of the kernels|: inputs
                   arriving while no kernel runs (a memcpy whose name says HtoD / Host -> Device /
                   HOST_TO_DEVICE / HostToDevice / H2D)

Times are exact integer ns: µs read as decimal.Decimal, times 1000, rounded half up
(timeline_expected.ns). Interval arithmetic below on sorted disjoint lists.

usage: dataloader_idle.py TRACE.json[.gz]...   (tab-separated, one line per step and device)
"""
import json
import os
import sys

from timeline_expected import KINDS, as_int, load, ns, union
from timeline_measured import COLLECTIVE

COLUMNS = ["file", "step", "device", "window_start_ns", "window_ns", "busy_ns", "compute_ns", "dataloader_ns",
           "idle_dl_ns", "h2d_only_ns"]
H2D = ("HtoD", "Host -> Device", "HOST_TO_DEVICE", "HostToDevice", "H2D")


def clip(intervals, lo, hi):
    """The intervals (sorted, disjoint) cut to [lo, hi)."""
    return [(max(b, lo), min(e, hi)) for b, e in intervals if min(e, hi) > max(b, lo)]


def subtract(a, b):
    """a \\ b for sorted disjoint interval lists."""
    out = []
    j = 0
    for s, e in a:
        cur = s
        while j < len(b) and b[j][1] <= cur:
            j += 1
        k = j
        while k < len(b) and b[k][0] < e:
            if b[k][0] > cur:
                out.append((cur, b[k][0]))
            cur = max(cur, b[k][1])
            if cur >= e:
                break
            k += 1
        if cur < e:
            out.append((cur, e))
    return out


def length(intervals):
    return sum(e - b for b, e in intervals)


def main(path):
    doc = load(path)
    steps = []          # (name, begin, end, pid)
    loaders = {}        # pid -> [(b, e)]
    devices = {}        # device -> {"all", "kernels", "compute", "h2d"}
    for e in doc.get("traceEvents", []):
        if not isinstance(e, dict) or e.get("ph") != "X":
            continue
        b, d = ns(e.get("ts")), ns(e.get("dur"))
        cat, name = e.get("cat"), e.get("name")
        if b is None or d is None or d < 0 or not isinstance(cat, str) or not isinstance(name, str):
            continue
        pid = json.dumps(e.get("pid")) if "pid" in e else ""
        if cat in KINDS:
            args = e.get("args") if isinstance(e.get("args"), dict) else {}
            dev, stream = as_int(args.get("device")), as_int(args.get("stream"))
            if dev is None or stream is None:
                continue
            r = devices.setdefault(dev, {"all": [], "kernels": [], "compute": [], "h2d": []})
            r["all"].append((b, b + d))
            if KINDS[cat] == "k":
                r["kernels"].append((b, b + d))
                if not any(p.search(name) for p in COLLECTIVE):
                    r["compute"].append((b, b + d))
            elif KINDS[cat] == "c" and any(t in name for t in H2D):
                r["h2d"].append((b, b + d))
            continue
        if name.startswith("ProfilerStep#") and cat in ("user_annotation", "cpu_op", "Operator"):
            steps.append((name, b, b + d, pid))
        elif name.startswith("enumerate(DataLoader)") and cat in ("user_annotation", "cpu_op", "Operator"):
            loaders.setdefault(pid, []).append((b, b + d))
    steps.sort(key=lambda s: s[1])
    step_pids = {s[3] for s in steps}
    dl = union([iv for pid, ivs in loaders.items() if pid in step_pids for iv in ivs])
    sets = {dev: {k: union(v) for k, v in r.items()} for dev, r in devices.items()}
    for name, b, e, _pid in steps:
        for dev in sorted(sets):
            s = sets[dev]
            busy = clip(s["all"], b, e)
            dl_w = clip(dl, b, e)
            row = [os.path.basename(path), name, dev, b, e - b, length(busy), length(clip(s["compute"], b, e)),
                   length(dl_w), length(subtract(dl_w, busy)), length(subtract(clip(s["h2d"], b, e), s["kernels"]))]
            print("\t".join(str(v) for v in row))


if __name__ == "__main__":
    print("\t".join(COLUMNS))
    for p in sys.argv[1:]:
        main(p)
