#!/usr/bin/env python3
"""Writes the run folder `duplicates-last-wins`: every input holds a key or a column twice, the
first copy with values far from the last (kernels 360 times longer, utilisation a fifth).
Python's json and csv.DictReader keep the last value; the reference profile must equal the
oracle's RunMetrics printed for this folder (expected.reference.json), and the workbench reads
the last value too and warns once per file.

    python3 make_duplicates.py && python3 ../../../../shared/reference/oracle.py duplicates-last-wins \
        > duplicates-last-wins/expected.reference.json

Standard library only, deterministic.
"""

import csv
import json
import os
import sys

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "duplicates-last-wins")


def trace_csv(path):
    header = ["Kind", "Agent_Id", "Queue_Id", "Kernel_Name", "Start_Timestamp", "End_Timestamp", "Start_Timestamp"]
    names = ["Cijk_Alik_Bljk_BBS_BH_MT128x128x64", "elementwise_kernel_bf16", "ncclDevKernel_Generic",
             "flash_attn_fwd_kernel"]
    t = 2_745_941_480_000_000
    with open(path, "w", newline="") as f:
        w = csv.writer(f, quoting=csv.QUOTE_MINIMAL)
        w.writerow(header)
        for i in range(48):
            dur = 5_000 + 700 * (i % 9)
            # The first Start_Timestamp makes the kernel 360 times longer; DictReader keeps the last.
            w.writerow(["KERNEL_DISPATCH", 2, 1, names[i % len(names)], t + dur - 360 * dur, t + dur, t])
            t += dur + 3_000


def event_text(event, twice):
    """json.dumps of the event, with each member of `twice` (name -> first value) written before its
    last value."""
    body = json.dumps({k: v for k, v in event.items() if k not in twice})[:-1]
    for key, first in twice.items():
        body += f", {json.dumps(key)}: {json.dumps(first)}, {json.dumps(key)}: {json.dumps(event[key])}"
    return body + "}"


def torch_profile(path):
    texts, t = [], 1_000.0
    for step in range(4):
        start = t
        for k in range(6):
            texts.append(event_text({"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": t,
                                     "dur": 18.0}, {"cat": "kernel"} if k == 0 else {}))
            texts.append(event_text({"ph": "X", "cat": "cuda_runtime", "name": "hipLaunchKernel", "pid": 1, "tid": 1,
                                     "ts": t + 5, "dur": 4.0}, {}))
            texts.append(event_text({"ph": "X", "cat": "kernel", "name": "Cijk_gemm_MT128" if k % 2 else
                                     "elementwise_kernel", "pid": 0, "tid": 7, "ts": t + 12, "dur": 25.0,
                                     "args": {"device": 0, "stream": 7}},
                                    {"dur": 25.0 * 360, "ts": t + 12 - 5000.0} if k % 3 == 0 else {}))
            t += 40.0
        texts.append(event_text({"ph": "X", "cat": "user_annotation", "name": f"ProfilerStep#{step}", "pid": 1,
                                 "tid": 1, "ts": start, "dur": t - start},
                                {"name": "ProfilerStepX", "dur": (t - start) * 360}))
        t += 12.0
    metadata = ('{"tokens_per_sec": 99999.0, "tokens_per_sec": 1234.5, "mfu_pct": 38.5, '
                '"pytorch_version": "2.4.0"}')
    with open(path, "w") as f:
        f.write('{"schemaVersion": 1, "traceEvents": [\n' + ",\n".join(texts) + '\n], "metadata": ' + metadata
                + "}\n")


def amd_smi(path):
    header = ["gpu", "gfx_activity", "used_vram", "total_vram", "gfx_activity", "used_vram"]
    with open(path, "w", newline="") as f:
        w = csv.writer(f, lineterminator="\r\n")
        w.writerow(header)
        for i in range(30):
            util = 40 + (i * 7) % 55
            used = 100_000 + 1_500 * i
            w.writerow([0, util, used * 3, 196_592, util // 5, used])


def main():
    os.makedirs(OUT, exist_ok=True)
    trace_csv(os.path.join(OUT, "trace.csv"))
    torch_profile(os.path.join(OUT, "torch_profile.json"))
    amd_smi(os.path.join(OUT, "amd_smi.csv"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
