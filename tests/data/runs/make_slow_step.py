#!/usr/bin/env python3
"""Make one profiled step of a make_run.py folder slower by an idle gap (tests/data/runs/slow-step-idle).

Reads SRC (a make_run.py folder whose torch_profile.json holds every step: --torch-steps = --steps)
and writes DST with an idle gap of FRACTION x step K's duration inserted at the end of step K:

  torch_profile.json  every event that starts at or after the end of ProfilerStep#K (CPU lane) is
                      shifted by the gap; ProfilerStep#K and the CPU-side events that enclose its
                      end (the whole-trace annotation) are lengthened by it. GPU events are never
                      lengthened. metadata step_time_seconds, host_busy_fraction and tokens_per_sec
                      are rescaled to the longer run. Written gzipped (torch_profile.json.gz).
  trace.csv           rows whose start, mapped onto the torch clock by the first kernel (make_run
                      mirrors GPU 0's rows into the torch trace with the same start/end), is at or
                      after that end are shifted by the gap (all agents).
  amd_smi.csv         copied unchanged: make_run's metric dialect has no timestamp column.

Nothing runs in the gap (no GPU event, no CPU operator): the step is slower by pure idle time.
Prints the step durations (us) of DST, which tests/model/tst_perstep.cpp checks.

usage: make_slow_step.py SRC DST [--step K] [--fraction F]
"""

import argparse
import csv
import gzip
import io
import json
import pathlib
import shutil

ENCLOSING_CATS = {"Trace", "user_annotation", "cpu_op", "python_function"}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("src")
    ap.add_argument("dst")
    ap.add_argument("--step", type=int, default=3)
    ap.add_argument("--fraction", type=float, default=0.4)
    a = ap.parse_args()
    src, dst = pathlib.Path(a.src), pathlib.Path(a.dst)
    dst.mkdir(parents=True, exist_ok=True)

    doc = json.loads((src / "torch_profile.json").read_text())
    events = doc["traceEvents"]
    cpu_steps = {e["name"]: e for e in events
                 if e.get("cat") == "user_annotation" and str(e.get("name", "")).startswith("ProfilerStep#")}
    step = cpu_steps[f"ProfilerStep#{a.step}"]
    end_us = step["ts"] + step["dur"]
    gap_us = round(a.fraction * step["dur"], 3)
    steps_before = sorted((e["ts"], e["dur"]) for e in cpu_steps.values())

    first_kernel_us = min(e["ts"] for e in events if e.get("cat") == "kernel")
    for e in events:
        if e.get("ph") != "X" or "ts" not in e:
            continue
        if e is step:
            e["dur"] = round(e["dur"] + gap_us, 3)
        elif e["ts"] >= end_us:
            e["ts"] = round(e["ts"] + gap_us, 3)
        elif e["ts"] + e.get("dur", 0) > end_us and e.get("cat") in ENCLOSING_CATS:
            e["dur"] = round(e["dur"] + gap_us, 3)

    total_before = sum(d for _, d in steps_before)
    scale = total_before / (total_before + gap_us)
    meta = doc.get("metadata", {})
    if "step_time_seconds" in meta:
        meta["step_time_seconds"] = round(meta["step_time_seconds"] / scale, 9)
    for key in ("host_busy_fraction", "tokens_per_sec"):
        if key in meta:
            meta[key] = round(meta[key] * scale, 6)
    with gzip.open(dst / "torch_profile.json.gz", "wt", compresslevel=9) as f:
        json.dump(doc, f, separators=(",", ":"))

    # trace.csv: the same clock shift, in ns, on the boot clock of rocprofv3.
    text = (src / "trace.csv").read_text()
    rows = list(csv.reader(io.StringIO(text)))
    head = rows[0]
    s, t = head.index("Start_Timestamp"), head.index("End_Timestamp")
    first_row_ns = min(int(r[s]) for r in rows[1:])
    offset_ns = first_row_ns - round(first_kernel_us * 1000)
    end_ns = round(end_us * 1000) + offset_ns
    gap_ns = round(gap_us * 1000)
    out = io.StringIO()
    w = csv.writer(out, quoting=csv.QUOTE_NONNUMERIC, lineterminator="\n")
    w.writerow(head)
    for r in rows[1:]:
        if int(r[s]) >= end_ns:
            r[s], r[t] = str(int(r[s]) + gap_ns), str(int(r[t]) + gap_ns)
        w.writerow([int(v) if v.lstrip("-").isdigit() else v for v in r])
    (dst / "trace.csv").write_text(out.getvalue())
    shutil.copyfile(src / "amd_smi.csv", dst / "amd_smi.csv")

    after = sorted((e["ts"], e["dur"]) for e in events
                   if e.get("cat") == "user_annotation" and str(e.get("name", "")).startswith("ProfilerStep#"))
    print("step durations (us):", [d for _, d in after])
    print(f"gap {gap_us} us after ProfilerStep#{a.step}")


if __name__ == "__main__":
    main()
