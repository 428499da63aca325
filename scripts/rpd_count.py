#!/usr/bin/env python3
"""Independent counts of a rocmProfileData (.rpd) database, for tests/parsers/rocpd/tst_rpdreader.cpp.

Reads the database with Python's sqlite3 (read-only, immutable) in plain SQL, with the rules of
docs/inputs-databases.md (not the C++ reader's code):
  kernels  = rocpd_op rows whose opType string is KernelExecution, Task, Kernel or ConcurrentKernel
             and whose description (the kernel name) is not empty; "used" = end > start
  copies   = opType Copy* or Memcpy; memsets = FillBuffer or Memset
  markers  = rocpd_api rows named UserMarker; overhead = rpd_tracer's own records (a name with
             "::", or hcc_activity_callback, rpdflush, BLOCKING, "overhead (hip)", prepare, commit);
  runtime  = every other rocpd_api row with end >= start
With --json, cross-checks the kernel count and summed duration against rpd2tracing's Chrome-trace
twin of the same database (op events: ph X, args.desc = the op type, dur in microseconds).

    python3 scripts/rpd_count.py tests/data/rpd/matmul_result.rpd --json tests/data/rpd/matmul_result.json \
        > tests/data/rpd/matmul_result.expected.json
"""
import argparse
import json
import sqlite3
import sys
from pathlib import Path

KERNEL_TYPES = ("KernelExecution", "Task", "Kernel", "ConcurrentKernel")
OVERHEAD = {"hcc_activity_callback", "rpdflush", "BLOCKING", "overhead (hip)", "prepare", "commit"}


def connect(path):
    return sqlite3.connect("file:%s?mode=ro&immutable=1" % Path(path).resolve(), uri=True)


def count(path):
    db = connect(path)
    q = lambda sql, *a: db.execute(sql, a).fetchall()
    kinds = ",".join("'%s'" % k for k in KERNEL_TYPES)
    kernels = q(
        f"""SELECT count(*), sum(CASE WHEN o."end" > o.start THEN 1 ELSE 0 END),
                   sum(CASE WHEN o."end" > o.start THEN o."end" - o.start ELSE 0 END),
                   count(DISTINCT CASE WHEN o."end" > o.start THEN trim(d.string) END),
                   count(DISTINCT o.gpuId), min(o.start), max(o."end")
            FROM rocpd_op o JOIN rocpd_string t ON t.id = o.opType_id JOIN rocpd_string d ON d.id = o.description_id
            WHERE t.string IN ({kinds}) AND trim(d.string) != ''""")[0]
    per_gpu = q(
        f"""SELECT o.gpuId, count(*), sum(o."end" - o.start) FROM rocpd_op o
            JOIN rocpd_string t ON t.id = o.opType_id JOIN rocpd_string d ON d.id = o.description_id
            WHERE t.string IN ({kinds}) AND trim(d.string) != '' AND o."end" > o.start GROUP BY o.gpuId ORDER BY 1""")
    copies = q("""SELECT count(*) FROM rocpd_op o JOIN rocpd_string t ON t.id = o.opType_id
                  WHERE (t.string LIKE 'Copy%' OR t.string = 'Memcpy') AND o."end" >= o.start""")[0][0]
    memsets = q("""SELECT count(*) FROM rocpd_op o JOIN rocpd_string t ON t.id = o.opType_id
                   WHERE t.string IN ('FillBuffer', 'Memset') AND o."end" >= o.start""")[0][0]
    api = q("""SELECT n.string, a.start, a."end" FROM rocpd_api a JOIN rocpd_string n ON n.id = a.apiName_id""")
    markers = runtime = overhead = 0
    for name, start, end in api:
        name = name.strip()
        if name == "UserMarker":
            markers += end >= start
        elif name in OVERHEAD or "::" in name or not name:
            overhead += 1
        else:
            runtime += end >= start
    tables = {r[0] for r in q("SELECT name FROM sqlite_master WHERE type = 'table'")}
    monitor = q("SELECT count(*) FROM rocpd_monitor")[0][0] if "rocpd_monitor" in tables else 0
    return {
        "kernels": kernels[0],
        "kernels_used": kernels[1],
        "kernel_total_ns": kernels[2],
        "kernel_names_used": kernels[3],
        "gpus": kernels[4],
        "first_start_ns": kernels[5],
        "last_end_ns": kernels[6],
        "per_gpu": [{"gpu": g, "kernels": n, "total_ns": t} for g, n, t in per_gpu],
        "copies": copies,
        "memsets": memsets,
        "runtime_calls": runtime,
        "marker_ranges": markers,
        "overhead_records": overhead,
        "monitor_samples": monitor,
    }


def cross_check(expected, rpd_path, json_path):
    """The twin's durations are microseconds; this sample's rpd2tracing wrote them truncated to
    whole microseconds ("26211" for 26 211 956 ns), newer ones with decimals: compare the count
    exactly and the sum with the same truncation applied to the database's nanoseconds."""
    with open(json_path, encoding="utf-8") as f:
        doc = json.load(f)
    events = doc["traceEvents"] if isinstance(doc, dict) else doc
    twin = [float(e["dur"]) for e in events
            if e.get("ph") == "X" and isinstance(e.get("args"), dict) and e["args"].get("desc") in KERNEL_TYPES]
    integral = all(d == int(d) for d in twin)
    twin_us = sum(twin)
    kinds = ",".join("'%s'" % k for k in KERNEL_TYPES)
    durations = [r[0] for r in connect(rpd_path).execute(
        f"""SELECT o."end" - o.start FROM rocpd_op o JOIN rocpd_string t ON t.id = o.opType_id
            JOIN rocpd_string d ON d.id = o.description_id WHERE t.string IN ({kinds}) AND trim(d.string) != ''""")]
    sql_us = sum(d // 1000 for d in durations) if integral else sum(d / 1000.0 for d in durations)
    ok = len(twin) == expected["kernels"] and abs(twin_us - sql_us) < 1e-6 * max(1.0, sql_us)
    print("rpd2tracing twin: %d kernels, %s us; SQL: %d kernels, %s us (%d ns) -> %s"
          % (len(twin), twin_us, expected["kernels"], sql_us, expected["kernel_total_ns"],
             "agree" if ok else "DISAGREE"), file=sys.stderr)
    expected["twin_check"] = {"kernels": len(twin), "total_us": twin_us, "agrees": ok}
    return ok


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("rpd")
    ap.add_argument("--json", help="rpd2tracing's output for the same database, to cross-check")
    args = ap.parse_args()
    expected = count(args.rpd)
    if args.json and not cross_check(expected, args.rpd, args.json):
        return 1
    print(json.dumps(expected, indent=2, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())
