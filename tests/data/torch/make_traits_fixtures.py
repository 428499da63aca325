#!/usr/bin/env python3
"""Derives the CUDA-graph fixture of tst_tracetraits / tst_runtraits (issue 23 item 3) from a
public trace too large for tests/data (see tests/data/PROVENANCE.md). Event bytes are copied
unchanged; only whole events are left out.

hta_v100_cudagraph_subset.json.gz, from HolisticTraceAnalysis'
cuda_graph/rank1of2_cudagraph_record_shapes trace (2022, V100, 12 cudaGraphLaunch calls with 339
and 502 GPU events each): its header (deviceProperties, distributedInfo rank 1 of 2), the 12
graph launches and every GPU event sharing a launch's correlation, plus, to give the counts
something to tell apart: the first 40 cudaStreamGetCaptureInfo calls (not captures), the first
60 backward operators, the Optimizer and DataLoader annotations, and the first 150 GPU events
that belong to no graph launch and whose runtime call the trace holds, with those calls.

usage: make_traits_fixtures.py SAMPLES_DIR OUT_DIR
"""
import gzip
import json
import os
import re
import sys

from make_timeline_fixtures import split, write


def main(samples, out):
    src = os.path.join(samples, "hta_v100_rank1of2_cudagraph_record_shapes.json.gz")
    text = gzip.open(src).read().decode()
    header, events, trailer = split(text)
    parsed = [json.loads(e) for e in events]
    launches = {p["args"]["correlation"] for p in parsed if p.get("name") == "cudaGraphLaunch"}
    gpu_cats = {"kernel", "gpu_memcpy", "gpu_memset"}
    runtime_corr = {p["args"]["correlation"] for p in parsed if p.get("cat") == "cuda_runtime"}
    eager_gpu = set([i for i, p in enumerate(parsed)
                     if p.get("cat") in gpu_cats and p.get("args", {}).get("correlation") not in launches
                     and p.get("args", {}).get("correlation") in runtime_corr][:150])
    eager_corr = {parsed[i]["args"]["correlation"] for i in eager_gpu}
    backward = re.compile(r"^autograd::engine::evaluate_function:|Backward[0-9]*$")
    keep, capture_info, bwd = [], 0, 0
    for i, p in enumerate(parsed):
        cat, name, args = p.get("cat"), p.get("name", ""), p.get("args", {})
        take = False
        if name == "cudaGraphLaunch":
            take = True
        elif cat in gpu_cats and args.get("correlation") in launches:
            take = True
        elif i in eager_gpu or (cat == "cuda_runtime" and args.get("correlation") in eager_corr):
            take = True
        elif name == "cudaStreamGetCaptureInfo" and capture_info < 40:
            capture_info += 1
            take = True
        elif cat == "cpu_op" and backward.search(name) and bwd < 60:
            bwd += 1
            take = True
        elif cat == "user_annotation" and (name.startswith("Optimizer.") or "DataLoader" in name):
            take = True
        if take:
            keep.append(events[i])
    write(os.path.join(out, "hta_v100_cudagraph_subset.json.gz"), header, keep, trailer)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
