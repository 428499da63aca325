#!/usr/bin/env python3
"""Writes N Kineto rank traces of one job whose collective calls arrive at known offsets, and the
truth the collectives analysis must find (docs/collectives.md, "Across ranks").

Each rank r gets rank-<r>.json: distributedInfo (rank r, world size N), a ProfilerStep#1 range,
and per call i a record_param_comms op (Collective name, In/Out msg nelems, dtype, Group size,
Process Group Name, Seq unless --no-seq) holding a cudaLaunchKernel whose NCCL kernel starts at
base_i + offset[r][i]; every rank's kernel of a call ends at the same time (the collective
completes when the last rank has arrived). offset[r][i] is a whole number of µs drawn from
random.Random(seed). truth.json holds per call the skew (last - first arrival), the last rank,
and per rank the summed wait (last - own) and the mean lateness (own - first), in seconds.

Usage: make_collective_ranks.py OUT_DIR [--ranks 4] [--calls 6] [--seed 7] [--no-seq]
"""

import argparse
import json
import os
import random

COLLECTIVES = [  # (Collective name, in elements, out elements as a function of n, dtype, kernel)
    ("allreduce", lambda n: (1 << 20, 1 << 20), "BFloat16", "ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevKernelArgsStorage<4096ul>)"),
    ("allgather", lambda n: (1 << 18, (1 << 18) * n), "Float", "ncclDevKernel_AllGather_RING_LL(ncclDevKernelArgsStorage<4096ul>)"),
    ("reduce_scatter", lambda n: ((1 << 16) * n, 1 << 16), "Float", "ncclDevKernel_ReduceScatter_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)"),
]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out")
    ap.add_argument("--ranks", type=int, default=4)
    ap.add_argument("--calls", type=int, default=6)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--no-seq", action="store_true")
    o = ap.parse_args()
    rng = random.Random(o.seed)
    n, m = o.ranks, o.calls
    offset = [[rng.randrange(0, 800) for _ in range(m)] for _ in range(n)]
    base0 = 1700000000000000  # µs, wall clock
    truth = {"calls": [], "ranks": {str(r): {"wait_s": 0.0, "late_sum_s": 0.0, "last_count": 0} for r in range(n)}}
    for i in range(m):
        arrivals = [offset[r][i] for r in range(n)]
        first, last = min(arrivals), max(arrivals)
        last_rank = arrivals.index(last)
        truth["calls"].append({"collective": COLLECTIVES[i % len(COLLECTIVES)][0], "skew_s": (last - first) * 1e-6,
                               "last_rank": last_rank})
        for r in range(n):
            t = truth["ranks"][str(r)]
            t["wait_s"] += (last - arrivals[r]) * 1e-6
            t["late_sum_s"] += (arrivals[r] - first) * 1e-6
            t["last_count"] += r == last_rank
    os.makedirs(o.out, exist_ok=True)
    for r in range(n):
        events = [{"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "pid": 100 + r, "tid": 100 + r,
                   "ts": base0, "dur": m * 10000 + 5000, "args": {"External id": 1}}]
        for i in range(m):
            name, sizes, dtype, kernel = COLLECTIVES[i % len(COLLECTIVES)]
            nin, nout = sizes(n)
            base = base0 + 1000 + i * 10000
            cpu = base + rng.randrange(0, 50)
            args = {"External id": 10 + i, "Collective name": name, "dtype": dtype, "In msg nelems": nin,
                    "Out msg nelems": nout, "Group size": n, "Process Group Name": "0",
                    "Process Group Description": "default_pg", "Rank": r}
            if not o.no_seq:
                args["Seq"] = i + 1
            events.append({"ph": "X", "cat": "cpu_op", "name": "record_param_comms", "pid": 100 + r, "tid": 100 + r,
                           "ts": cpu, "dur": 60, "args": args})
            corr = 1000 + i
            events.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 100 + r,
                           "tid": 100 + r, "ts": cpu + 20, "dur": 8, "args": {"correlation": corr}})
            start = base + 2000 + offset[r][i]
            end = base + 2000 + max(offset[q][i] for q in range(n)) + 300
            events.append({"ph": "X", "cat": "kernel", "name": kernel, "pid": 0, "tid": 7, "ts": start,
                           "dur": end - start, "args": {"device": 0, "stream": 7, "correlation": corr}})
        doc = {"schemaVersion": 1, "distributedInfo": {"backend": "nccl", "rank": r, "world_size": n},
               "traceEvents": events}
        with open(os.path.join(o.out, f"rank-{r}.json"), "w") as f:
            json.dump(doc, f, indent=0)
    with open(os.path.join(o.out, "truth.json"), "w") as f:
        json.dump(truth, f, indent=1)


if __name__ == "__main__":
    main()
