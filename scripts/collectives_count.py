#!/usr/bin/env python3
"""Independent count of a Kineto trace's collective calls (docs/collectives.md).

Reads raw traces (.json or .json.gz) with the Python standard library only and applies the
definitions of docs/collectives.md, without any code of the workbench:

  CPU record     complete ("X") event: record_param_comms (cpu_op / Operator) or nccl:<collective>
                 (cpu_op / user_annotation / Operator). A record_param_comms with
                 "Collective name": "wait" is left out. An nccl: range and a record_param_comms on
                 the same (pid, tid), one holding the other, are one call; the record's args
                 ("Collective name", "In/Out msg nelems", "dtype", "Group size", "Process Group
                 Name", "Seq") win over the range's ("nccl:<name>", "Input Dims" summed, "Input
                 type"[0]).
  kernel         category kernel / Kernel whose name starts with "nccl" or "rccl".
  link           kernel -> launch call (cuda_runtime / cuda_driver / Runtime, a name of 12 or more
                 characters holding "Launch") with its args.correlation -> the call site whose [ts, ts+dur] holds the runtime call's ts
                 (the latest-begun one). A kernel without one is a call of its own (collective from
                 its args, else from its name: ncclKernel_<X>_... -> X; size unknown).
  bytes          max(in, out elements) x dtype size; an nccl: range's input only: elements x size
                 (all-gather: x group size). Group size: "Group size", else distributedInfo world_size.
  time           summed kernel durations of the call.
  algbw          bytes x timed calls / summed time (1e9 bytes/s); busbw = algbw x factor:
                 all-reduce 2(n-1)/n; all-gather, reduce-scatter, all-to-all (n-1)/n;
                 broadcast, reduce, send/recv 1.
  row            the first trace's calls grouped by (collective, bytes, dtype, group size, process
                 group[, kernel when bytes unknown]).
  skew           with several traces: calls matched by (process group, Seq) when every call has a
                 Seq, else by the n-th call of (process group, collective) where every rank has as
                 many; arrival = first kernel start (when every matched call of the first trace has
                 one) else the CPU record's ts; skew = last - first; a rank's wait = last - own.

Usage:
  collectives_count.py TRACE [TRACE ...]                   print the rows (first trace) as JSON
  collectives_count.py TRACE [TRACE ...] --compare REPORT  compare with the report's collectives[]:
      bytes, calls, time_s, algbw_gbps, busbw_gbps per row (relative 1e-9), and with several
      traces arrival_skew_s / wait_s per rank (1 ns); exit 1 on a difference.
"""

from __future__ import annotations

import argparse
import bisect
import decimal
import gzip
import json
import sys

DTYPE = {}
for names, size in (
    (("double", "long", "long int", "int64_t", "uint64", "uint64_t", "complexfloat", "c10::complex<float>"), 8),
    (("float", "int", "int32_t", "uint32", "uint32_t", "complexhalf", "c10::complex<c10::half>"), 4),
    (("half", "c10::half", "bfloat16", "c10::bfloat16", "short", "short int", "int16_t", "uint16", "uint16_t"), 2),
    (("byte", "unsigned char", "uint8_t", "char", "signed char", "int8_t", "bool", "float8_e4m3fn", "float8_e5m2",
      "float8_e4m3fnuz", "float8_e5m2fnuz", "float8_e8m0fnu", "c10::float8_e4m3fn", "c10::float8_e5m2",
      "c10::float8_e4m3fnuz", "c10::float8_e5m2fnuz", "qint8", "quint8"), 1),
    (("complexdouble", "c10::complex<double>"), 16),
):
    for n in names:
        DTYPE[n] = size


def kind(name: str) -> str:
    n = name.lower().replace("_", "")
    if n.startswith("nccl:"):
        n = n[5:]
    for k, words in (("allreduce", ("allreduce",)), ("reducescatter", ("reducescatter",)),
                     ("allgather", ("allgather",)), ("alltoall", ("alltoall",)), ("broadcast", ("broadcast",))):
        if any(w in n for w in words):
            return k
    if n == "reduce":
        return "reduce"
    if n in ("send", "recv", "sendrecv", "recvanysource"):
        return "sendrecv"
    return "other"


def factor(k: str, n):
    if k in ("broadcast", "reduce", "sendrecv"):
        return 1.0
    if n is None or n < 1:
        return None
    if k == "allreduce":
        return 2.0 * (n - 1) / n
    if k in ("allgather", "reducescatter", "alltoall"):
        return (n - 1) / n
    return None


def to_ns(v):
    # Kineto µs, possibly fractional, read exactly (Decimal): ns, half up
    return int((decimal.Decimal(v) * 1000).quantize(decimal.Decimal(1), rounding=decimal.ROUND_HALF_UP))


def load(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8", errors="replace") as f:
        doc = json.load(f, parse_float=decimal.Decimal)
    return doc


def int_or_none(v):
    if isinstance(v, bool):
        return None
    if isinstance(v, int):
        return v
    if isinstance(v, decimal.Decimal) and v == v.to_integral_value():
        return int(v)
    if isinstance(v, str):
        try:
            return int(v)
        except ValueError:
            return None
    return None


def dims_elements(dims):
    if not isinstance(dims, list):
        return None
    total, any_tensor = 0, False
    for t in dims:
        if not isinstance(t, list):
            return None
        if not t:
            continue
        p = 1
        for d in t:
            d = int_or_none(d)
            if d is None or d < 0:
                return None
            p *= d
        total += p
        any_tensor = True
    return total if any_tensor else None


def kernel_collective(name: str) -> str:
    for prefix in ("ncclDevKernel_", "ncclKernel_"):
        if name.startswith(prefix):
            rest = name[len(prefix):]
            cut = min([i for i in (rest.find("_"), rest.find("(")) if i >= 0], default=len(rest))
            return rest[:cut]
    return name.split("(")[0]


def calls_of(doc):
    events = doc["traceEvents"] if isinstance(doc, dict) else doc
    info = doc.get("distributedInfo", {}) if isinstance(doc, dict) else {}
    world = info.get("world_size") if isinstance(info.get("world_size"), int) else None
    rank = info.get("rank") if isinstance(info.get("rank"), int) else None
    cpu, kernels, runtime = [], [], {}
    for e in events:
        if not isinstance(e, dict) or e.get("ph") != "X":
            continue
        cat, name = e.get("cat"), e.get("name")
        if not isinstance(name, str) or "ts" not in e:
            continue
        args = e.get("args") if isinstance(e.get("args"), dict) else {}
        if cat in ("cuda_runtime", "cuda_driver", "Runtime"):
            if len(name) < 12 or "Launch" not in name:
                continue
            c = int_or_none(args.get("correlation"))
            if c is not None and c >= 0 and c not in runtime:
                runtime[c] = to_ns(e["ts"])
            continue
        if cat in ("kernel", "Kernel") and (name.startswith("nccl") or name.startswith("rccl")):
            c = int_or_none(args.get("correlation"))
            kernels.append({"name": name, "ts": to_ns(e["ts"]), "dur": to_ns(e.get("dur", 0)),
                            "corr": c if c is not None and c >= 0 else None, "args": args})
            continue
        pc = name == "record_param_comms" and cat in ("cpu_op", "Operator")
        ann = name.startswith("nccl:") and cat in ("cpu_op", "user_annotation", "Operator")
        if pc or ann:
            if "dur" not in e or not isinstance(e["dur"], (int, decimal.Decimal)) or e["dur"] < 0:
                continue
            if pc and args.get("Collective name") == "wait":
                continue
            b = to_ns(e["ts"])
            cpu.append({"thread": (str(e.get("pid")), str(e.get("tid"))), "b": b, "e": b + to_ns(e["dur"]), "pc": pc,
                        "name": name, "args": args})
    cpu.sort(key=lambda r: (r["b"], -r["e"]))
    sites = []
    for r in cpu:
        into = None
        for s in reversed(sites[-16:]):
            if s["thread"] == r["thread"] and s["b"] <= r["b"] and r["e"] <= s["e"] and not s["pc" if r["pc"] else "ann"]:
                into = s
                break
        if into is None:
            into = {"thread": r["thread"], "b": r["b"], "e": r["e"], "pc": False, "ann": False,
                    "call": {"collective": "", "source": "kernel", "cpu": r["b"], "kernels": []}}
            sites.append(into)
        c, a = into["call"], r["args"]
        if r["pc"]:
            into["pc"] = True
            if a.get("Collective name"):
                c.update(collective=a["Collective name"], source="pc", dtype=a.get("dtype", ""),
                         inn=int_or_none(a.get("In msg nelems")), out=int_or_none(a.get("Out msg nelems")),
                         n=int_or_none(a.get("Group size")), seq=int_or_none(a.get("Seq")),
                         pg=a.get("Process Group Name") or a.get("pg_name") or a.get("Process Group Description") or "")
        else:
            into["ann"] = True
            if c["source"] != "pc":
                types = a.get("Input type")
                c.update(collective=r["name"][5:], source="ann", inn=dims_elements(a.get("Input Dims")), out=None,
                         dtype=types[0] if isinstance(types, list) and types and isinstance(types[0], str) else "")
    begins = [s["b"] for s in sites]
    orphans = []
    for k in sorted(kernels, key=lambda k: k["ts"]):
        call = None
        launch = runtime.get(k["corr"]) if k["corr"] is not None else None
        if launch is not None:
            i = bisect.bisect_right(begins, launch)
            for s in reversed(sites[max(0, i - 64):i]):
                if s["b"] <= launch <= s["e"]:
                    call = s["call"]
                    break
        if call is None:
            a = k["args"]
            if a.get("Collective name"):
                call = {"collective": a["Collective name"], "source": "kargs", "dtype": a.get("dtype", ""),
                        "inn": int_or_none(a.get("In msg nelems")), "out": int_or_none(a.get("Out msg nelems")),
                        "n": int_or_none(a.get("Group size")), "seq": int_or_none(a.get("Seq")),
                        "pg": a.get("Process Group Name") or a.get("Process Group Description") or "", "kernels": []}
            else:
                call = {"collective": kernel_collective(k["name"]), "source": "kernel", "kernels": []}
            orphans.append(call)
        call["kernels"].append(k)
    out = []
    for s in sites:
        c = s["call"]
        if not c["collective"] and c["kernels"]:
            c["collective"] = kernel_collective(c["kernels"][0]["name"])
        if c["collective"]:
            out.append(c)
    out += orphans
    out.sort(key=lambda c: c["cpu"] if "cpu" in c else min(k["ts"] for k in c["kernels"]))
    return out, world, rank


def figures(c, world):
    k = kind(c["collective"])
    n, n_est = c.get("n"), False
    if not n or n <= 0:
        n, n_est = (world, True) if world else (None, False)
    size = DTYPE.get(c.get("dtype", "").strip().lower())
    inn, out = c.get("inn"), c.get("out")
    b, b_est = None, False
    if c["source"] != "kernel" and size:
        if inn is not None and out is not None:
            b = max(inn, out) * size
        elif inn is not None:
            if k == "allgather":
                if n:
                    b, b_est = inn * n * size, n_est
            else:
                b = inn * size
    t = sum(x["dur"] for x in c["kernels"]) * 1e-9 if c["kernels"] else None
    return k, n, n_est, b, b_est, t


def rows_of(calls, world):
    rows = {}
    for c in calls:
        k, n, n_est, b, b_est, t = figures(c, world)
        pg = c.get("pg", "")
        key = (c["collective"], b if b is not None else -1.0, c.get("dtype", ""), n if n else -1, pg,
               "" if b is not None else (c["kernels"][0]["name"] if c["kernels"] else ""))
        r = rows.setdefault(key, {"name": c["collective"], "bytes": b, "calls": 0, "timed": 0, "time_s": 0.0,
                                  "kind": k, "n": n, "n_est": n_est})
        r["calls"] += 1
        if t is not None:
            r["timed"] += 1
            r["time_s"] += t
    for r in rows.values():
        r["algbw_gbps"] = r["busbw_gbps"] = None
        if r["bytes"] is not None and r["timed"] and r["time_s"] > 0:
            r["algbw_gbps"] = r["bytes"] * r["timed"] / r["time_s"] / 1e9
            f = factor(r["kind"], r["n"])
            if f is not None:
                r["busbw_gbps"] = r["algbw_gbps"] * f
    return rows


def skews(traces):
    """traces: list of (rank, calls). Returns per rank (late_sum, wait, matched, last_count) or None."""
    ranks = [(r, c) for r, c in traces if c]
    if len(ranks) < 2:
        return None
    seq = all(c.get("seq") is not None for _, cs in ranks for c in cs)
    keyed = []
    counts = {}
    for i, (_, cs) in enumerate(ranks):
        d, ordinal = {}, {}
        for j, c in enumerate(cs):
            g = c.get("pg", "")
            if seq:
                d[(g, "", c["seq"])] = j
            else:
                o = ordinal.get((g, c["collective"]), 0)
                ordinal[(g, c["collective"])] = o + 1
                d[(g, c["collective"], o)] = j
        for g, o in ordinal.items():
            counts.setdefault(g, [0] * len(ranks))[i] = o
        keyed.append(d)
    refused = set() if seq else {g for g, v in counts.items() if len(set(v)) > 1}
    all_kernels = all(ranks[0][1][j]["kernels"] for j in keyed[0].values())
    matched = []
    for key in sorted(keyed[0]):
        if not seq and (key[0], key[1]) in refused:
            continue
        arr = []
        for i, (_, cs) in enumerate(ranks):
            j = keyed[i].get(key)
            a = None
            if j is not None:
                c = cs[j]
                if all_kernels and c["kernels"]:
                    a = min(k["ts"] for k in c["kernels"])
                elif not all_kernels and "cpu" in c:
                    a = c["cpu"]
            arr.append(a)
        if arr[0] is not None and sum(a is not None for a in arr) >= 2:
            matched.append(arr)
    lo = [min((m[i] for m in matched if m[i] is not None), default=None) for i in range(len(ranks))]
    hi = [max((m[i] for m in matched if m[i] is not None), default=None) for i in range(len(ranks))]
    los = [x for x in lo if x is not None]
    his = [x for x in hi if x is not None]
    if not matched or max(los) > min(his):
        return None
    res = {r: [0, 0, 0, 0] for r, _ in ranks}
    for m in matched:
        present = [(i, a) for i, a in enumerate(m) if a is not None]
        first = min(a for _, a in present)
        last = max(a for _, a in present)
        last_i = min(i for i, a in present if a == last)
        for i, a in present:
            v = res[ranks[i][0]]
            v[0] += a - first
            v[1] += last - a
            v[2] += 1
            v[3] += i == last_i
    return res


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("traces", nargs="+")
    ap.add_argument("--compare", metavar="REPORT_JSON")
    opts = ap.parse_args()
    parsed = []
    for i, path in enumerate(opts.traces):
        calls, world, rank = calls_of(load(path))
        parsed.append((rank if rank is not None else i, calls, world))
    rows = rows_of(parsed[0][1], parsed[0][2])
    sk = skews([(r, c) for r, c, _ in parsed])
    if not opts.compare:
        json.dump({"rows": [{k: v for k, v in r.items() if k in ("name", "bytes", "calls", "time_s", "algbw_gbps", "busbw_gbps")}
                            for r in sorted(rows.values(), key=lambda r: -r["time_s"])],
                   "ranks": {str(r): {"late_sum_s": v[0] * 1e-9, "wait_s": v[1] * 1e-9, "matched": v[2], "last": v[3]}
                             for r, v in sk.items()} if sk else None},
                  sys.stdout, indent=1)
        print()
        return 0
    with open(opts.compare, encoding="utf-8") as f:
        report = json.load(f)
    got = report.get("collectives", [])
    bad = 0

    def close(a, b):
        if a is None or b is None:
            return a is None and b is None
        return abs(a - b) <= 1e-9 * max(abs(a), abs(b), 1e-12)

    def value(o):
        return o.get("value") if isinstance(o, dict) else o

    mine = sorted(rows.values(), key=lambda r: (r["name"], r["bytes"] or -1, r["calls"], r["time_s"]))
    theirs = sorted(got, key=lambda r: (r["name"], value(r["bytes"]) or -1, r["calls"], value(r["time_s"]) or 0))
    if len(mine) != len(theirs):
        print(f"rows: {len(mine)} counted, {len(theirs)} in the report")
        bad += 1
    for m, t in zip(mine, theirs):
        for key in ("bytes", "calls", "time_s", "algbw_gbps", "busbw_gbps"):
            a = m[key] if key != "time_s" or m["timed"] else None
            b = value(t[key])
            if key == "time_s" and not m["timed"]:
                b = None if t["time_s"].get("state") == "unknown" else b
            if not close(a, b):
                print(f"{m['name']} {m['bytes']}: {key} counted {a}, report {b}")
                bad += 1
    if sk:
        summary = report.get("collectives_summary", {})
        by_rank = {r["rank"]: r for r in summary.get("ranks", [])}
        for r, v in sk.items():
            t = by_rank.get(r)
            if t is None:
                print(f"rank {r}: not in the report")
                bad += 1
                continue
            mean_late = v[0] * 1e-9 / v[2] if v[2] else 0.0
            for key, a in (("arrival_skew_s", mean_late), ("wait_s", v[1] * 1e-9)):
                b = value(t[key])
                if b is None or abs(a - b) > 1e-9:
                    print(f"rank {r}: {key} counted {a}, report {b}")
                    bad += 1
            if t.get("last_count") != v[3]:
                print(f"rank {r}: last_count counted {v[3]}, report {t.get('last_count')}")
                bad += 1
    print(f"{len(mine)} rows, {sum(r['calls'] for r in mine)} calls compared; {bad} differences")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
