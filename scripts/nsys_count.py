#!/usr/bin/env python3
"""Independent SQL counts of an Nsight Systems SQLite export, for tests/parsers/rocpd/tst_nsysreader.cpp.

Everything is computed in SQL by Python's sqlite3 (read-only, immutable), with the rules of
docs/inputs-databases.md, not with the C++ reader's code:
  kernels        count(*) of CUPTI_ACTIVITY_KIND_KERNEL
  kernels_used   … with end > start (what the workbench sums); kernel_total_ns their summed durations
  busy_ns        per deviceId, the union of the kernels' [start, end) intervals (gaps and islands
                 with window functions), and its sum over the devices
  copies/memsets rows of CUPTI_ACTIVITY_KIND_MEMCPY / _MEMSET with end >= start
  runtime_calls  rows of CUPTI_ACTIVITY_KIND_RUNTIME with end >= start
  nvtx_ranges    NVTX_EVENTS rows with an end (end >= start); nvtx_marks: eventType 34 without end
  graph_kernels  kernels with graphNodeId set

    python3 scripts/nsys_count.py EXPORT.sqlite[.gz] > EXPECTED.json
"""
import gzip
import json
import os
import shutil
import sqlite3
import sys
import tempfile
from pathlib import Path

BUSY = """
WITH k AS (SELECT deviceId AS d, start AS s, "end" AS e FROM CUPTI_ACTIVITY_KIND_KERNEL WHERE "end" > start),
m AS (SELECT d, s, e, MAX(e) OVER (PARTITION BY d ORDER BY s, e ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS prev
      FROM k),
g AS (SELECT d, s, e, SUM(CASE WHEN prev IS NULL OR s > prev THEN 1 ELSE 0 END)
                      OVER (PARTITION BY d ORDER BY s, e ROWS UNBOUNDED PRECEDING) AS island FROM m)
SELECT d, SUM(ie - is_) FROM (SELECT d, island, MIN(s) AS is_, MAX(e) AS ie FROM g GROUP BY d, island)
GROUP BY d ORDER BY d
"""


def count(path):
    db = sqlite3.connect("file:%s?mode=ro&immutable=1" % Path(path).resolve(), uri=True)
    q = lambda sql: db.execute(sql).fetchall()
    tables = {r[0] for r in q("SELECT name FROM sqlite_master WHERE type = 'table'")}
    out = {}
    k = q("""SELECT count(*), sum("end" > start), sum(CASE WHEN "end" > start THEN "end" - start ELSE 0 END),
                    count(DISTINCT deviceId), min(start), max("end") FROM CUPTI_ACTIVITY_KIND_KERNEL""")[0]
    out.update(kernels=k[0], kernels_used=k[1] or 0, kernel_total_ns=k[2] or 0, gpus=k[3],
               first_start_ns=k[4], last_end_ns=k[5])
    cols = {r[1] for r in q("PRAGMA table_info(CUPTI_ACTIVITY_KIND_KERNEL)")}
    out["graph_kernels"] = q("SELECT count(graphNodeId) FROM CUPTI_ACTIVITY_KIND_KERNEL")[0][0] if "graphNodeId" in cols else 0
    out["kernel_names_used"] = q("""SELECT count(DISTINCT s.value) FROM CUPTI_ACTIVITY_KIND_KERNEL k
                                    JOIN StringIds s ON s.id = k.demangledName WHERE k."end" > k.start""")[0][0]
    busy = q(BUSY)
    out["busy_ns_per_gpu"] = [{"gpu": d, "busy_ns": b} for d, b in busy]
    out["busy_ns"] = sum(b for _, b in busy)
    out["per_gpu"] = [{"gpu": d, "kernels": n, "total_ns": t} for d, n, t in q(
        """SELECT deviceId, count(*), sum("end" - start) FROM CUPTI_ACTIVITY_KIND_KERNEL WHERE "end" > start
           GROUP BY deviceId ORDER BY deviceId""")]
    one = lambda table, sql: q(sql)[0][0] if table in tables else 0
    out["copies"] = one("CUPTI_ACTIVITY_KIND_MEMCPY", 'SELECT count(*) FROM CUPTI_ACTIVITY_KIND_MEMCPY WHERE "end" >= start')
    out["memsets"] = one("CUPTI_ACTIVITY_KIND_MEMSET", 'SELECT count(*) FROM CUPTI_ACTIVITY_KIND_MEMSET WHERE "end" >= start')
    out["runtime_calls"] = one("CUPTI_ACTIVITY_KIND_RUNTIME",
                               'SELECT count(*) FROM CUPTI_ACTIVITY_KIND_RUNTIME WHERE "end" >= start')
    out["nvtx_ranges"] = one("NVTX_EVENTS", 'SELECT count(*) FROM NVTX_EVENTS WHERE "end" IS NOT NULL AND "end" >= start')
    out["nvtx_marks"] = one("NVTX_EVENTS", 'SELECT count(*) FROM NVTX_EVENTS WHERE "end" IS NULL AND eventType = 34')
    out["nvtx_range_names"] = sorted({r[0] for r in q(
        """SELECT coalesce(n.text, s.value) FROM NVTX_EVENTS n LEFT JOIN StringIds s ON s.id = n.textId
           WHERE n."end" IS NOT NULL AND n."end" >= n.start""")} - {None}) if "NVTX_EVENTS" in tables else []
    out["gpu_names"] = [r[0] for r in q("SELECT name FROM TARGET_INFO_GPU ORDER BY id")] if "TARGET_INFO_GPU" in tables else []
    return out


def main():
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    path = sys.argv[1]
    tmp = None
    if path.endswith(".gz"):
        tmp = tempfile.NamedTemporaryFile(suffix=".sqlite", delete=False)
        with gzip.open(path, "rb") as src:
            shutil.copyfileobj(src, tmp)
        tmp.close()
        path = tmp.name
    try:
        print(json.dumps(count(path), indent=2, sort_keys=True))
    finally:
        if tmp:
            os.unlink(tmp.name)
    return 0


if __name__ == "__main__":
    sys.exit(main())
