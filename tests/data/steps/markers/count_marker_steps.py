#!/usr/bin/env python3
"""Counts, straight from each kernel file, the steps its own marker ranges make (docs/steps.md):
the roctx/NVTX ranges (end > start) whose whole name matches the default step pattern
(case-insensitive), on the (process, thread) with most of them, by start, a range starting inside
the previous one left out; the step time is their mean length, a last step shorter than a fifth of
the others' mean left out. Prints the windows and the step time of each file; tst_stepplan's
marker rows hold these numbers. Python 3 standard library only; reads what the file stores (SQL
over its tables, the JSON's records), nothing of the workbench.
Run: python3 count_marker_steps.py (in this folder). pftrace/synthetic.pftrace is the same run as
rocprofv3json/synthetic_results.json (scripts/make_pftrace.py writes both): the JSON's count holds.
"""
import json
import os
import re
import sqlite3
from collections import defaultdict

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.dirname(os.path.dirname(HERE))
STEP = re.compile(r"ProfilerStep#\d+|(train[_ ]?)?step([ _#:-]*\d+)?|iter(ation)?([ _#:-]*\d+)?", re.I)


def steps_of(ranges, span):
    """ranges: (pid, tid, name, start, end); span: (first kernel start, last kernel end)."""
    by_thread = defaultdict(list)
    for pid, tid, name, start, end in ranges:
        if end > start and STEP.fullmatch(name.strip()):
            by_thread[(pid, tid)].append((start, end, name))
    if not by_thread:
        return []
    most = max(len(v) for v in by_thread.values())
    chosen = sorted(by_thread[min(k for k, v in by_thread.items() if len(v) == most)])
    out = []
    for s in chosen:
        if not out or s[0] >= out[-1][1]:
            out.append(s)
    if not any(s < span[1] and e > span[0] for s, e, _ in out):
        return []
    return out


def step_time(steps):
    d = [(e - s) / 1e9 for s, e, _ in steps]
    if len(d) >= 2 and d[-1] < 0.2 * sum(d[:-1]) / (len(d) - 1):
        d = d[:-1]
    return sum(d) / len(d)


def rpd(path):
    db = sqlite3.connect(path)
    ranges = db.execute("SELECT a.pid, a.tid, t.string, a.start, a.end FROM rocpd_api a JOIN rocpd_string n "
                        "ON n.id = a.apiName_id JOIN rocpd_string t ON t.id = a.args_id "
                        "WHERE n.string = 'UserMarker'").fetchall()
    span = db.execute("SELECT min(o.start), max(o.end) FROM rocpd_op o JOIN rocpd_string s ON s.id = o.opType_id "
                      "WHERE s.string IN ('KernelExecution', 'Task')").fetchone()
    return ranges, span


def rocpd(path):
    db = sqlite3.connect(path)
    suffixes = [r[0][len("rocpd_region"):] for r in
                db.execute("SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'rocpd_region%'")]
    ranges, starts, ends = [], [], []
    for s in suffixes:
        for pid, tid, start, end, name, extdata in db.execute(
                f"SELECT r.pid, r.tid, r.start, r.end, n.string, r.extdata FROM rocpd_region{s} r "
                f"JOIN rocpd_event{s} e ON e.id = r.event_id JOIN rocpd_string{s} c ON c.id = e.category_id "
                f"JOIN rocpd_string{s} n ON n.id = r.name_id WHERE c.string LIKE 'MARKER_%'"):
            message = json.loads(extdata or "{}").get("message")
            ranges.append((pid, tid, message or name, start, end))
        first, last = db.execute(f"SELECT min(start), max(end) FROM rocpd_kernel_dispatch{s}").fetchone()
        starts.append(first)
        ends.append(last)
    return ranges, (min(starts), max(ends))


def nsys(path):
    db = sqlite3.connect(path)
    ranges = [((g >> 24) & 0xFFFFFF, g & 0xFFFFFF, text or "", start, end) for start, end, text, g in db.execute(
        "SELECT e.start, e.end, coalesce(e.text, s.value), e.globalTid FROM NVTX_EVENTS e "
        "LEFT JOIN StringIds s ON s.id = e.textId WHERE e.end IS NOT NULL")]
    span = db.execute("SELECT min(start), max(end) FROM CUPTI_ACTIVITY_KIND_KERNEL").fetchone()
    return ranges, span


def rocprofv3_json(path):
    tool = json.load(open(path))["rocprofiler-sdk-tool"][0]
    pid = tool["metadata"]["pid"]
    names = {s["key"]: s["value"] for s in tool["strings"]["marker_api"]}
    ranges = [(pid, r["thread_id"], names.get(r["correlation_id"]["internal"], ""), r["start_timestamp"],
               r["end_timestamp"]) for r in tool["buffer_records"]["marker_api"]]
    dispatches = tool["buffer_records"]["kernel_dispatch"]
    span = (min(d["start_timestamp"] for d in dispatches), max(d["end_timestamp"] for d in dispatches))
    return ranges, span


FILES = [
    ("steps/markers/rpd-step-markers.rpd", rpd),
    ("steps/markers/rpd-other-markers.rpd", rpd),
    ("steps/markers/rocpd-step-markers.db", rocpd),
    ("nsys/generated-2gpu.sqlite", nsys),
    ("rocprofv3json/synthetic_results.json", rocprofv3_json),
]

if __name__ == "__main__":
    for rel, reader in FILES:
        ranges, span = reader(os.path.join(DATA, rel))
        steps = steps_of(ranges, span)
        if steps:
            print(f"{rel}: {len(steps)} windows, first {steps[0][2]!r}, step time {step_time(steps)!r} s")
        else:
            print(f"{rel}: no step ranges; kernel span {(span[1] - span[0]) / 1e9!r} s")
