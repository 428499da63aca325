#!/usr/bin/env python3
"""Prints expected.json for the kernel-trace fixtures.

"reference": what the real reference module's _read_kernels() returns for each file (imported
from ../shared/reference), or the exception it raises.
"workbench": for the clean fixtures only, End - Start summed with Python integers over every
row (independent of the C++ code; bad inputs have hand-written expectations in the test)."""

import csv
import json
import sys
from pathlib import Path

here = Path(sys.argv[1])
shared = Path(sys.argv[2])
sys.path.insert(0, str(shared / "reference"))
from agent.profile_parser import _read_kernels  # noqa: E402

PER_NAME_LIMIT = 6


def reference(path):
    warnings = []
    try:
        kernels = _read_kernels(path, warnings)
    except Exception as exc:  # the reference does not catch these: parse() would fail
        return {"raises": type(exc).__name__}
    stats = {}
    for row, k in enumerate(kernels):
        s = stats.setdefault(k.name, {"calls": 0, "total": 0, "min": None, "max": 0, "firstRow": row})
        s["calls"] += 1
        s["total"] += k.duration_ns
        s["min"] = k.duration_ns if s["min"] is None else min(s["min"], k.duration_ns)
        s["max"] = max(s["max"], k.duration_ns)
    return {
        "count": len(kernels),
        "sum": sum(k.duration_ns for k in kernels),
        "distinctNames": len(stats),
        "perName": [{"name": n, **s} for n, s in list(stats.items())[:PER_NAME_LIMIT]],
        "warnings": [w.replace(str(path), "PATH") for w in warnings],
    }


def workbench(paths):
    """Exact-name columns, End - Start with Python ints, rows with duration <= 0 skipped."""
    stats, agents = {}, []
    total = rows = 0
    first = last = None
    for path in paths:
        host = path.parent.name
        with path.open(newline="", encoding="utf-8") as f:
            reader = csv.reader(f)
            header = [h.lower() for h in next(reader)]
            col = lambda *names: next(header.index(n) for n in names if n in header)
            name_i = col("kernel_name", "kernelname")
            start_i = col("start_timestamp", "beginns")
            end_i = col("end_timestamp", "endns")
            agent_i = col("agent_id", "gpu-id", "gpu_id")
            for r in reader:
                if not r:
                    continue
                d = int(r[end_i]) - int(r[start_i])
                if d <= 0:
                    continue
                name = r[name_i].strip()
                s = stats.setdefault(name, {"calls": 0, "total": 0, "firstRow": rows})
                s["calls"] += 1
                s["total"] += d
                total += d
                rows += 1
                first = int(r[start_i]) if first is None else min(first, int(r[start_i]))
                last = int(r[end_i]) if last is None else max(last, int(r[end_i]))
                key = (host, r[agent_i].strip())
                if key not in agents:
                    agents.append(key)
    return {
        "rows": rows,
        "sum": total,
        "distinctNames": len(stats),
        "firstStartNs": first,
        "lastEndNs": last,
        "agentCount": len(agents),
        "perName": [{"name": n, **s} for n, s in list(stats.items())[:PER_NAME_LIMIT]],
    }


files = sorted(p for p in here.rglob("*") if p.is_file() and p.parent.name in ("real", "gen", "bad"))
out = {"reference": {}, "workbench": {}}
for p in files:
    out["reference"][str(p.relative_to(here))] = reference(p)
clean = [p for p in files if p.parent.name == "gen"] + [
    here / "real" / n
    for n in ("sdk-0.5-docs_kernel_trace.csv", "sdk-1.0-docs_kernel_trace.csv",
              "sdk-1.0-docs_kernel_trace_truncated.csv", "gunrock_results.csv", "vcopy_MI200_timestamps.csv")
]
for p in clean:
    out["workbench"][str(p.relative_to(here))] = workbench([p])
mp = here / "runs" / "multiprocess"
out["workbench"]["runs/multiprocess"] = workbench(sorted(mp.glob("*/*_kernel_trace.csv")))
json.dump(out, sys.stdout, indent=1, ensure_ascii=True, sort_keys=True)
print()
