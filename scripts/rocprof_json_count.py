#!/usr/bin/env python3
"""Independent count of a rocprofv3 JSON (`--output-format json`, plain or .gz): kernel
dispatches, their summed duration (end - start, positive only) and the agents, computed with
Python's json module alone, to check the workbench's reader (src/parsers/rocprofjson).

Usage: rocprof_json_count.py FILE [--top N]
"""
import argparse
import collections
import gzip
import json
import sys


def load(path):
    opener = gzip.open if open(path, "rb").read(2) == b"\x1f\x8b" else open
    with opener(path, "rt", encoding="utf-8") as f:
        return json.load(f)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("file")
    ap.add_argument("--top", type=int, default=5)
    args = ap.parse_args()
    doc = load(args.file)
    dispatches = used = zero = negative = 0
    busy = 0
    per_name = collections.Counter()
    per_name_calls = collections.Counter()
    agents = collections.Counter()
    first, last = None, None
    hip = markers = 0
    for proc in doc["rocprofiler-sdk-tool"]:
        symbols = {s["kernel_id"]: s["formatted_kernel_name"].strip() for s in proc.get("kernel_symbols", [])}
        renamed = {e["key"]: e["value"].strip()
                   for e in proc.get("strings", {}).get("correlation_id", {}).get("external", [])}
        logical = {a["id"]["handle"]: a["logical_node_id"] for a in proc.get("agents", [])}
        records = proc.get("buffer_records", {})
        hip += len(records.get("hip_api", []))
        markers += len(records.get("marker_api", []))
        for d in records.get("kernel_dispatch", []):
            dispatches += 1
            info = d["dispatch_info"]
            ext = d.get("correlation_id", {}).get("external", 0)
            name = renamed.get(ext) if ext and renamed else None
            if name is None:
                name = symbols[info["kernel_id"]]
            duration = d["end_timestamp"] - d["start_timestamp"]
            if duration <= 0 or not name:
                zero += duration == 0
                negative += duration < 0
                continue
            used += 1
            busy += duration
            per_name[name] += duration
            per_name_calls[name] += 1
            agents["Agent %d" % logical[info["agent_id"]["handle"]]] += 1
            first = d["start_timestamp"] if first is None else min(first, d["start_timestamp"])
            last = d["end_timestamp"] if last is None else max(last, d["end_timestamp"])
    print("dispatch records: %d" % dispatches)
    print("kernels used (duration > 0): %d" % used)
    print("zero-duration: %d, negative: %d" % (zero, negative))
    print("distinct names: %d" % len(per_name))
    print("busy ns (sum of durations): %d" % busy)
    print("span ns: %d (%s .. %s)" % ((last - first) if used else 0, first, last))
    print("agents: %s" % ", ".join("%s=%d" % kv for kv in sorted(agents.items())))
    print("hip_api records: %d, marker_api records: %d" % (hip, markers))
    for name, total in per_name.most_common(args.top):
        print("top: %d ns in %d calls: %s" % (total, per_name_calls[name], name[:100]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
