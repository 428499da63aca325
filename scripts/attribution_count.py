#!/usr/bin/env python3
"""Independent count of where a Kineto trace's GPU time was launched from (docs/attribution.md).

Reads the raw trace (.json or .json.gz) with the Python standard library only and applies the
definitions of docs/attribution.md, without any code of the workbench:

  GPU event      complete ("X") event of category kernel / gpu_memcpy / gpu_memset (2021: Kernel,
                 Memcpy, Memset); GPU time = the sum of their durations.
  runtime call   category cuda_runtime / cuda_driver (2021: Runtime) with an integer
                 args.correlation; a GPU event is launched by the runtime call with its correlation
                 (the first met when several share it; a graph launch owns every GPU event that
                 shares its correlation).
  op             category cpu_op (2021: Operator), except ProfilerStep#N (a step).
  nesting        per (pid, tid): ranges (ops, user_annotation, python_function) sorted by begin,
                 longer first; a range's parent is the innermost open range that holds it whole
                 (ends no more than 1 µs before it): one that began inside another and ends after
                 it is its sibling. A call at time t lies in the open ranges with end > t. The
                 launching op is the innermost op open at the call's begin.
  outside ops    a runtime call inside no op is a row of its own (kind runtime_call), keyed by its
                 name: calls = such calls of that name, the GPU events it launched are its
                 device self and total time; host times 0. Rows only for names that launched.
  GPU idle       no GPU event of the trace runs (the union of every GPU event, all devices);
                 host_self_gpu_idle of an op = the GPU-idle part of its host self time (its
                 interval's idle time minus the idle time inside the ops directly nested in it).
  unattributed   no runtime call with its correlation ("graph_replay_without_correlation" when the
                 event carries a nonzero "graph id", else "no_runtime_event").

Usage:
  attribution_count.py TRACE                 print the per-op rows and the totals as JSON
  attribution_count.py TRACE --compare REPORT.json
      compare calls and device self time per op with the report's `ops[]` (goblin-workbench report
      --json) within max(1 us, 5e-5 x value), and the attribution totals; exit 1 on a mismatch.
  attribution_count.py TRACE --expected
      print the few figures tests/parsers/workbench/tst_attribution.cpp checks (C++ initialiser).
"""

from __future__ import annotations

import argparse
import bisect
import gzip
import json
import sys
from decimal import ROUND_HALF_UP, Decimal

GPU_CATS = {"kernel", "gpu_memcpy", "gpu_memset", "Kernel", "Memcpy", "Memset"}
RUNTIME_CATS = {"cuda_runtime", "cuda_driver", "Runtime"}
OP_CATS = {"cpu_op", "Operator"}
RUNTIME_CALL = "<runtime call>"  # the shapes slot of a runtime-call row's key
NESTING_SLACK_NS = 1000


def ns(value) -> int | None:
    """µs (as the trace writes it, read exactly) -> integer ns, half up."""
    if isinstance(value, bool) or not isinstance(value, (int, Decimal)):
        return None
    return int((Decimal(value) * 1000).quantize(Decimal(1), rounding=ROUND_HALF_UP))


def as_int(value):
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str):
        try:
            return int(value)
        except ValueError:
            return None
    return None


def load(path: str):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rb") as f:
        doc = json.loads(f.read().decode("utf-8", "replace"), parse_float=Decimal)
    return doc["traceEvents"] if isinstance(doc, dict) else doc


def shapes_text(args):
    if "Input Dims" not in args:
        return None
    return json.dumps(args["Input Dims"], separators=(",", ":"), default=str)


def count(path: str):
    events = load(path)
    threads = {}  # (pid, tid) -> list of ranges / calls
    gpu = []  # (correlation or None, graph id nonzero, dur ns, name)
    calls = {}  # correlation -> op chain of its call (innermost first), [] when none
    steps = []
    busy = []  # GPU event intervals (ns)
    order = 0
    for e in events:
        if not isinstance(e, dict) or e.get("ph") != "X":
            continue
        cat, name = e.get("cat"), e.get("name")
        if not isinstance(cat, str) or not isinstance(name, str):
            continue
        begin, dur = ns(e.get("ts")), ns(e.get("dur"))
        if begin is None or dur is None or dur < 0:
            continue
        args = e.get("args") if isinstance(e.get("args"), dict) else {}
        key = (json.dumps(e.get("pid")), json.dumps(e.get("tid")))
        order += 1
        if cat in GPU_CATS:
            corr = as_int(args.get("correlation"))
            graph = as_int(args.get("graph id"))
            gpu.append((corr if corr is not None and corr >= 0 else None, bool(graph), dur, name))
            if dur > 0:
                busy.append((begin, begin + dur))
        elif cat in RUNTIME_CATS:
            corr = as_int(args.get("correlation"))
            if corr is None or corr < 0:
                continue
            threads.setdefault(key, []).append(("call", begin, begin, (corr, name), order))
        elif name.startswith("ProfilerStep#") and (cat == "user_annotation" or cat in OP_CATS):
            steps.append((begin, begin + dur, name))
        elif cat in OP_CATS:
            threads.setdefault(key, []).append(("op", begin, begin + dur, (name, shapes_text(args)), order))
        elif cat == "user_annotation":
            threads.setdefault(key, []).append(("annotation", begin, begin + dur, name, order))
        elif cat == "python_function":
            threads.setdefault(key, []).append(("python", begin, begin + dur, name, order))

    rows = {}  # (name, shapes) -> dict

    def row(k):
        r = rows.get(k)
        if r is None:
            r = rows[k] = dict(calls=0, host_self=0, host_total=0, device_self=0, device_total=0, kernels=0,
                               host_self_gpu_idle=0)
        return r

    # GPU busy union, its starts and the busy time before each interval.
    busy.sort()
    union = []
    for b, e in busy:
        if union and b <= union[-1][1]:
            union[-1][1] = max(union[-1][1], e)
        else:
            union.append([b, e])
    starts = [u[0] for u in union]
    before = [0]
    for b, e in union:
        before.append(before[-1] + e - b)

    def idle(b, e):
        if e <= b:
            return 0
        i = bisect.bisect_right(starts, b) - 1  # the interval starting at or before b
        if i < 0:
            i = 0
        j = bisect.bisect_left(starts, e)       # first interval starting at or after e
        covered = 0
        if j > i:
            covered = before[j] - before[i]
            covered -= max(0, min(b, union[i][1]) - union[i][0]) if union[i][0] < b else 0
            covered -= max(0, union[j - 1][1] - e)
        return (e - b) - max(0, covered)

    outside_calls = {}  # runtime-call name -> calls outside every op
    placed_beside = 0
    for tkey, items in threads.items():
        # ranges before calls at the same begin; longer ranges first; then document order
        items.sort(key=lambda it: (it[1], 1 if it[0] == "call" else 0, -(it[2] - it[1]), it[4]))
        stack = []  # [kind, begin, end, key, child_op_ns, op_chain]
        for kind, begin, end, what, o in items:
            while stack and stack[-1][2] <= begin:
                stack.pop()
            if kind == "call":
                open_ops = [s for s in stack if s[0] == "op" and s[2] > begin]
                # a correlation carried by several calls: the first met (threads in order of
                # their first event, each in time order) keeps it
                corr, call_name = what
                if corr in calls:
                    continue
                if open_ops:
                    calls[corr] = open_ops[-1][5]
                else:
                    calls[corr] = [(call_name, RUNTIME_CALL)]
                    outside_calls[call_name] = outside_calls.get(call_name, 0) + 1
                continue
            holders = [s for s in stack if s[2] > begin and s[2] >= end - NESTING_SLACK_NS]
            open_all = [s for s in stack if s[2] > begin]
            if open_all and (not holders or open_all[-1] is not holders[-1]):
                placed_beside += 1
            open_ops = [s for s in holders if s[0] == "op"]
            chain = None
            if kind == "op":
                parent = open_ops[-1] if open_ops else None
                r = row(what)
                r["calls"] += 1
                r["host_self"] += end - begin
                r["host_self_gpu_idle"] += idle(begin, end)
                if parent is not None:
                    row(parent[3])["host_self"] -= min(end, parent[2]) - begin
                    row(parent[3])["host_self_gpu_idle"] -= idle(begin, min(end, parent[2]))
                ancestors = parent[5] if parent is not None else []
                if what not in ancestors:
                    r["host_total"] += end - begin
                chain = [what] + ancestors
            stack.append([kind, begin, end, what, 0, chain])

    totals = dict(gpu_ns=0, attributed_ns=0, no_runtime_event=0, graph_replay_without_correlation=0,
                  outside_ops_ns=0, ranges_placed_beside=placed_beside, gpu_events=len(gpu))
    for corr, graph, dur, name in gpu:
        totals["gpu_ns"] += dur
        chain = calls.get(corr) if corr is not None else None
        if chain is None:
            totals["graph_replay_without_correlation" if graph else "no_runtime_event"] += dur
            continue
        totals["attributed_ns"] += dur
        if chain[0][1] == RUNTIME_CALL:
            totals["outside_ops_ns"] += dur
            r = row(chain[0])
            r["calls"] = outside_calls[chain[0][0]]
            r["device_self"] += dur
            r["device_total"] += dur
            r["kernels"] += 1
            continue
        r = row(chain[0])
        r["device_self"] += dur
        r["kernels"] += 1
        for k in set(chain):
            row(k)["device_total"] += dur
    totals["steps"] = len(steps)
    totals["gpu_busy_intervals"] = len(union)
    return rows, totals


def within(a_ns: float, b_ns: float) -> bool:
    return abs(a_ns - b_ns) <= max(1000.0, 5e-5 * max(abs(a_ns), abs(b_ns)))


def compare(rows, totals, report_path: str) -> bool:
    union = totals["gpu_busy_intervals"] > 0
    with open(report_path) as f:
        report = json.load(f)
    got = {}
    for r in report.get("ops", []):
        shapes = RUNTIME_CALL if r.get("kind") == "runtime_call" else r.get("input_shapes")
        got[(r["name"], shapes)] = r
    ok = True
    worst = 0.0
    worst_idle = 0.0
    mismatches = []
    for k, r in rows.items():
        g = got.get(k)
        if g is None:
            if r["calls"] or r["device_self"]:
                mismatches.append(f"missing row {k}")
                ok = False
            continue
        ds = g["device_self_s"] * 1e9
        worst = max(worst, abs(ds - r["device_self"]))
        if g["calls"] != r["calls"] or not within(ds, r["device_self"]):
            ok = False
            mismatches.append(f"{k}: calls {g['calls']} vs {r['calls']}, device self {ds:.0f} vs {r['device_self']} ns")
        if not union and g.get("host_self_gpu_idle_s") is not None:
            ok = False
            mismatches.append(f"{k}: host self in GPU idle given, but the trace has no GPU event (unknown)")
        elif union and g.get("host_self_gpu_idle_s") is None:
            ok = False
            mismatches.append(f"{k}: host self in GPU idle missing")
        elif union:
            gi = g["host_self_gpu_idle_s"] * 1e9
            worst_idle = max(worst_idle, abs(gi - r["host_self_gpu_idle"]))
            if not within(gi, r["host_self_gpu_idle"]):
                ok = False
                mismatches.append(f"{k}: host self in GPU idle {gi:.0f} vs {r['host_self_gpu_idle']} ns")
    for k in got:
        if k not in rows:
            ok = False
            mismatches.append(f"extra row {k}")
    a = report.get("attribution") or {}
    by = a.get("unattributed_by_reason") or {}
    checks = [("gpu_time_s", a.get("gpu_time_s"), totals["gpu_ns"]),
              ("attributed_s", a.get("attributed_s"), totals["attributed_ns"])]
    for reason in ("no_runtime_event", "graph_replay_without_correlation"):
        checks.append((reason, by.get(reason), totals[reason]))
    checks.append(("outside_ops_s", a.get("outside_ops_s"), totals["outside_ops_ns"]))
    for label, value, want in checks:
        if value is None or not within(value * 1e9, want):
            ok = False
            mismatches.append(f"{label}: report {value} vs count {want / 1e9}")
    print(f"rows {len(rows)} (report {len(got)}), gpu {totals['gpu_ns'] / 1e6:.3f} ms, attributed "
          f"{totals['attributed_ns'] / 1e6:.3f} ms, worst device-self diff {worst:.0f} ns, worst host-self-in-GPU-idle "
          f"diff {worst_idle:.0f} ns: {'OK' if ok else 'MISMATCH'}")
    for m in mismatches[:20]:
        print("  ", m)
    return ok


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("trace")
    ap.add_argument("--compare", metavar="REPORT_JSON")
    ap.add_argument("--expected", action="store_true")
    opts = ap.parse_args()
    rows, totals = count(opts.trace)
    if opts.compare:
        return 0 if compare(rows, totals, opts.compare) else 1
    if opts.expected:
        top = sorted(rows.items(), key=lambda kv: (-kv[1]["device_self"], kv[0][0], kv[0][1] or ""))[:3]
        print(f"// {opts.trace}: gpu_ns, attributed_ns, no_runtime_event, graph_replay, outside_ops_ns, rows; "
              f"ranges placed beside {totals['ranges_placed_beside']}")
        print(f"{{{totals['gpu_ns']}, {totals['attributed_ns']}, {totals['no_runtime_event']}, "
              f"{totals['graph_replay_without_correlation']}, {totals['outside_ops_ns']}, {len(rows)}}}")
        for (name, shapes), r in top:
            print(f"// top op {name!r} shapes {shapes!r}: calls {r['calls']}, device_self_ns {r['device_self']}, "
                  f"device_total_ns {r['device_total']}, kernels {r['kernels']}, host_self_ns {r['host_self']}, "
                  f"host_total_ns {r['host_total']}")
        return 0
    out = dict(totals=totals, ops=[dict(name=k[0], input_shapes=k[1], **v) for k, v in sorted(
        rows.items(), key=lambda kv: (-kv[1]["device_self"], kv[0][0], kv[0][1] or ""))])
    json.dump(out, sys.stdout, indent=1)
    print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
