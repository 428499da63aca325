#!/usr/bin/env python3
"""Derives the small GPU-timeline fixtures of tst_kinetotimeline from two large public traces
(see tests/data/PROVENANCE.md). Event bytes are copied unchanged (the exact µs text matters);
only whole events are left out.

usage: make_timeline_fixtures.py SAMPLES_DIR OUT_DIR
"""
import gzip
import os
import re
import sys


def split(text):
    """Header (up to and including the line with "traceEvents": [), events (raw, without the
    separating comma), trailer (from the closing ']')."""
    lines = text.split("\n")
    start = next(i for i, l in enumerate(lines) if '"traceEvents"' in l)
    header = "\n".join(lines[: start + 1])
    events, cur = [], None
    i = start + 1
    while i < len(lines):
        l = lines[i]
        if cur is None and l.lstrip().startswith("]"):
            break
        if cur is None and l.startswith("  {"):
            cur = [l]
        elif cur is not None:
            cur.append(l)
        if cur is not None and (l == "  }" or l == "  },"):
            cur[-1] = "  }"
            events.append("\n".join(cur))
            cur = None
        i += 1
    trailer = "\n".join(lines[i:])
    return header, events, trailer


def write(path, header, events, trailer):
    text = header + "\n" + ",\n".join(events) + "\n" + trailer
    with gzip.GzipFile(path, "wb", mtime=0) as f:
        f.write(text.encode())
    print(path, len(events), "events", os.path.getsize(path), "bytes")


def main(samples, out):
    # Kineto 2021 (V100, categories Kernel/Memcpy/Memset): the ProfilerStep events and the first
    # 1500 device events (they follow all CPU events in this writer's output).
    text = gzip.open(os.path.join(samples, "kineto_tbplugin_2021_resnet50_worker0.1623143089861.pt.trace.json.gz")).read().decode()
    header, events, trailer = split(text)
    dev = re.compile(r'"cat": "(Kernel|Memcpy|Memset)"')
    keep, n = [], 0
    for e in events:
        if '"name": "ProfilerStep#' in e:
            keep.append(e)
        elif dev.search(e) and n < 1500:
            keep.append(e)
            n += 1
    write(os.path.join(out, "kineto_2021_resnet50_gpu_events.json.gz"), header, keep, trailer)

    # ns-resolution CUDA trace (µs with three decimals, distributedInfo rank 0): the ProfilerStep
    # and GPU-lane annotations, the 1600 CPU events from the first ProfilerStep on, and the first
    # 2500 device events (kernel, gpu_memcpy, gpu_memset).
    text = gzip.open(os.path.join(samples, "hta_ns_resolution_rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz")).read().decode()
    header, events, trailer = split(text)
    first_step = next(i for i, e in enumerate(events) if '"name": "ProfilerStep#' in e)
    dev = re.compile(r'"cat": "(kernel|gpu_memcpy|gpu_memset)"')
    keep, n = [], 0
    for i, e in enumerate(events):
        if '"name": "ProfilerStep#' in e or '"cat": "gpu_user_annotation"' in e:
            keep.append(e)
        elif '"cat": "cpu_op"' in e and first_step <= i < first_step + 1600:
            keep.append(e)
        elif dev.search(e) and n < 2500:
            keep.append(e)
            n += 1
    write(os.path.join(out, "hta_ns_resolution_rank-0_subset.json.gz"), header, keep, trailer)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
