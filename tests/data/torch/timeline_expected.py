#!/usr/bin/env python3
"""Independent count of the GPU timeline of chrome traces, for tst_kinetotimeline.cpp.

Reads each trace with Python's json module (numbers as decimal.Decimal, so µs with fractions
become exact integer ns: round half up on the 4th decimal) and prints, per device, the counts of
kernel / memcpy / memset events (ph "X"; cat kernel, gpu_memcpy, gpu_memset or Kineto 2021's
Kernel, Memcpy, Memset; with args.device and args.stream), the streams, the sum of kernel
durations in ns; the step windows (ProfilerStep#N on the CPU lane: cat user_annotation, cpu_op
or Operator; ProfilerStep#N / Optimizer.step* as gpu_user_annotation on the GPU lane) and the
host-busy union (cpu_op / Operator events of the training process, minus the ops that wait for
the GPU) as its total ns and interval count.

usage: timeline_expected.py TRACE.json[.gz]...
"""
import decimal
import gzip
import json
import sys

KINDS = {"kernel": "k", "Kernel": "k", "gpu_memcpy": "c", "Memcpy": "c", "gpu_memset": "s", "Memset": "s"}


def ns(v):
    if isinstance(v, bool) or not isinstance(v, (int, decimal.Decimal)):
        return None
    return int((decimal.Decimal(v) * 1000).quantize(decimal.Decimal(1), rounding=decimal.ROUND_HALF_UP))


def as_int(v):
    if isinstance(v, bool):
        return None
    if isinstance(v, int):
        return v
    if isinstance(v, str):
        try:
            return int(v)
        except ValueError:
            return None
    return None


def waits(name):
    return name.lower().endswith("synchronize") or name in ("aten::item", "aten::_local_scalar_dense")


def union(iv):
    iv = sorted((b, e) for b, e in iv if e > b)
    out = []
    for b, e in iv:
        if out and b <= out[-1][1]:
            out[-1][1] = max(out[-1][1], e)
        else:
            out.append([b, e])
    return out


def load(path):
    """The trace as Python's json reads it, numbers with fractions as Decimal (gzip or not)."""
    raw = open(path, "rb").read()
    if raw[:2] == b"\x1f\x8b":
        raw = gzip.decompress(raw)
    return json.loads(raw, parse_float=decimal.Decimal)


def main(path):
    doc = load(path)
    devices = {}
    steps = []
    procs = {}  # pid -> [ops, has_step]
    unplaced = 0
    for e in doc.get("traceEvents", []):
        if not isinstance(e, dict) or e.get("ph") != "X":
            continue
        b, d = ns(e.get("ts")), ns(e.get("dur"))
        if b is None or d is None or d < 0:
            continue
        cat, name = e.get("cat"), e.get("name")
        if not isinstance(cat, str) or not isinstance(name, str):
            continue
        if cat in KINDS:
            args = e.get("args") if isinstance(e.get("args"), dict) else {}
            dev, st = as_int(args.get("device")), as_int(args.get("stream"))
            if dev is None or st is None:
                unplaced += 1
                continue
            r = devices.setdefault(dev, {"k": 0, "c": 0, "s": 0, "kernel_ns": 0, "streams": set()})
            r[KINDS[cat]] += 1
            r["streams"].add(st)
            if KINDS[cat] == "k":
                r["kernel_ns"] += d
            continue
        pid = json.dumps(e.get("pid")) if "pid" in e else ""
        cpu_op = cat in ("cpu_op", "Operator")
        if name.startswith("ProfilerStep#"):
            if cat == "user_annotation" or cpu_op:
                steps.append((b, b + d, False))
                procs.setdefault(pid, [[], False])[1] = True
            elif cat == "gpu_user_annotation":
                steps.append((b, b + d, True))
            continue
        if cat == "gpu_user_annotation" and name.startswith("Optimizer.step"):
            steps.append((b, b + d, True))
            continue
        if cpu_op and not waits(name):
            procs.setdefault(pid, [[], False])[0].append((b, b + d))
    best = None
    for pid, (ops, has_step) in procs.items():
        if not ops:
            continue
        u = union(ops)
        t = sum(e - b for b, e in u)
        if best is None or (has_step and not best[2]) or (has_step == best[2] and t > best[1]):
            best = (pid, t, has_step, u)
    rank = doc.get("distributedInfo", {}).get("rank") if isinstance(doc.get("distributedInfo"), dict) else None
    print(f"{path}: rank {rank}, unplaced {unplaced}")
    for dev in sorted(devices):
        r = devices[dev]
        print(f"  device {dev}: kernels {r['k']} memcpy {r['c']} memset {r['s']} streams {len(r['streams'])} "
              f"kernel_ns {r['kernel_ns']}")
    steps.sort(key=lambda s: s[0])
    cpu = [s for s in steps if not s[2]]
    gpu = [s for s in steps if s[2]]
    print(f"  steps cpu {len(cpu)} gpu {len(gpu)} first {steps[0][:2] if steps else None}")
    if best:
        print(f"  host pid {best[0]} busy_ns {best[1]} intervals {len(best[3])}")
    else:
        print("  host none")


if __name__ == "__main__":
    for p in sys.argv[1:]:
        main(p)
