#!/usr/bin/env python3
"""Derives tests/data/torch/kineto_2021_resnet50_steps6to8.json.gz (tst_measuredbudgettruth) from
the TensorBoard plugin's ResNet-50 trace (see tests/data/PROVENANCE.md): three ProfilerStep
windows (#6, #7, #8) with everything the measured budget reads inside them, small enough for
tests/data. Event bytes are copied unchanged (the exact µs text matters); only whole events are
left out. Kept, in the original order:

  - the header (schemaVersion, deviceProperties) and the "M" metadata events;
  - the ProfilerStep#6..#8 events;
  - every Kernel / Memcpy / Memset event overlapping [start of #6, end of #8);
  - the Operator events of the training process (both its threads) overlapping that range that
    are not nested in an earlier kept one (the union of the operators — host busy and the
    DataLoader ranges — is unchanged: a nested op adds nothing to a union). The ops that wait for
    the GPU (aten::item, aten::_local_scalar_dense, *synchronize) count for no host busy and are
    left out, so an op nested in one of them is kept. enumerate(DataLoader)#… ops are Operators in
    this trace and are kept like the others (none is nested).

usage: make_measured_budget_fixture.py SAMPLES_DIR OUT_DIR
"""
import gzip
import json
import os
import sys

from make_timeline_fixtures import split, write

SAMPLE = "kineto_tbplugin_2021_resnet50_worker0.1623143089861.pt.trace.json.gz"
STEPS = ("ProfilerStep#6", "ProfilerStep#7", "ProfilerStep#8")
GPU = ("Kernel", "Memcpy", "Memset")


def waits(name):
    return name.lower().endswith("synchronize") or name in ("aten::item", "aten::_local_scalar_dense")


def main(samples, out):
    text = gzip.open(os.path.join(samples, SAMPLE)).read().decode()
    header, events, trailer = split(text)
    parsed = [json.loads(e) for e in events]
    steps = [p for p in parsed if p.get("ph") == "X" and p.get("name") in STEPS]
    assert len(steps) == len(STEPS), "the sample's ProfilerStep events changed"
    lo = min(p["ts"] for p in steps)
    hi = max(p["ts"] + p["dur"] for p in steps)
    training_pid = steps[0]["pid"]

    def overlaps(p):
        return p["ts"] < hi and p["ts"] + p["dur"] > lo

    # Top-level operators: by start, longer first; an op inside the running end of the ops kept
    # before it (all start no later) lies inside their union.
    ops = [i for i, p in enumerate(parsed)
           if p.get("ph") == "X" and p.get("cat") == "Operator" and p.get("pid") == training_pid and overlaps(p)
           and not p["name"].startswith("ProfilerStep#") and not waits(p["name"])]
    ops.sort(key=lambda i: (parsed[i]["ts"], -parsed[i]["dur"]))
    keep_ops, reach = set(), None
    for i in ops:
        b, e = parsed[i]["ts"], parsed[i]["ts"] + parsed[i]["dur"]
        if reach is not None and e <= reach:
            continue
        keep_ops.add(i)
        reach = e if reach is None else max(reach, e)

    keep = []
    for i, (raw, p) in enumerate(zip(events, parsed)):
        if p.get("ph") == "M":
            keep.append(raw)
        elif p.get("ph") != "X":
            continue
        elif p.get("name") in STEPS and p.get("cat") == "Operator":
            keep.append(raw)
        elif p.get("cat") in GPU and overlaps(p):
            keep.append(raw)
        elif i in keep_ops:
            keep.append(raw)
    write(os.path.join(out, "kineto_2021_resnet50_steps6to8.json.gz"), header, keep, trailer)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
