#!/usr/bin/env python3
"""Report-wide self-check: runs `goblin-workbench report X --json -` on every run among the given
paths and checks that the report's answers agree with each other (docs/steps.md, docs/budget.md):

  one-step-time   aggregates.step_time_seconds, aggregates.budget_step_time_seconds,
                  quantities.step_time_s.value and budget.step_time_s hold one value (1e-9
                  relative), and no diagnostic states another step time
  per-step-count  per_step lists the step plan's windows (step_plan.windows), or nothing when
                  the plan lists none
  partition       measured budgets: buckets + unattributed = the step, for the run and per step
  advice-bucket   no advice for a bucket at 0
  dataloader      no DataLoader / pin_memory / num_workers in advice or headline without a
                  data-loading op (SKIP while the report does not say whether one was seen)
  capacity        the HBM capacity is the file's own where the file states one (SKIP while the
                  report has no facts.devices)

Usage: selfcheck.py --binary PATH [--tests-data DIR] [--samples DIR] [--verbose]
A path of --tests-data is walked for runs: each folder under runs/, and each file or folder
directly under the other fixture folders; an input the workbench cannot read (exit 1) is no
run and is skipped. Every file and folder under --samples is tried the same way.
Exit 0 when no check fails (SKIPs allowed), 1 otherwise. Python 3 standard library only.
"""

import argparse
import json
import math
import os
import subprocess
import sys

REL_TOL = 1e-9
# Absolute floor for sums of per-step seconds (the report writes doubles; sums of 8 terms).
ABS_TOL = 1e-12
STALE_STEP_WORDS = (
    "step time is the trace span divided by",
    "whole trace span is taken as one step",
)
DATALOADER_WORDS = ("dataloader", "pin_memory", "num_workers")


def close(a, b, rel=REL_TOL):
    return math.isclose(a, b, rel_tol=rel, abs_tol=ABS_TOL)


class Result:
    def __init__(self, target):
        self.target = target
        self.failures = []
        self.skips = []
        self.passes = []

    def check(self, name, ok, detail=""):
        (self.passes if ok else self.failures).append((name, detail))

    def skip(self, name, why):
        self.skips.append((name, why))


def step_time_checks(report, r):
    agg = report.get("aggregates", {})
    values = {
        "aggregates.step_time_seconds": agg.get("step_time_seconds"),
        "aggregates.budget_step_time_seconds": agg.get("budget_step_time_seconds"),
        "quantities.step_time_s.value": report.get("quantities", {}).get("step_time_s", {}).get("value"),
        "budget.step_time_s": report.get("budget", {}).get("step_time_s"),
    }
    budget_step = values["aggregates.budget_step_time_seconds"]
    if not budget_step:
        # No step: nothing may claim one.
        claimed = {k: v for k, v in values.items() if v}
        r.check("one-step-time", not claimed, "no budget step, yet %s" % claimed if claimed else "")
    else:
        bad = {k: v for k, v in values.items() if v is None or not close(v, budget_step)}
        r.check("one-step-time", not bad, "budget step %r, but %s" % (budget_step, bad) if bad else "")
    stale = [d.get("message", "") for d in report.get("diagnostics", [])
             if any(w in d.get("message", "") for w in STALE_STEP_WORDS)]
    r.check("no-other-step-time-in-diagnostics", not stale, "; ".join(stale))
    if "reference_step_time_seconds" not in agg:
        r.check("reference-step-time-key", False, "aggregates.reference_step_time_seconds missing")


def per_step_checks(report, r):
    plan = report.get("step_plan")
    per_step = report.get("per_step", [])
    if plan is None:
        r.check("per-step-count", False, "no step_plan in the report")
        return
    if plan.get("listed_per_step"):
        r.check("per-step-count", len(per_step) == plan.get("windows"),
                "per_step has %d, step_plan.windows %r (%s)" % (len(per_step), plan.get("windows"), plan.get("kind")))
    else:
        r.check("per-step-count", not per_step,
                "step_plan %s lists no steps, per_step has %d" % (plan.get("kind"), len(per_step)))


def partition_checks(report, r):
    budget = report.get("budget", {})
    if not budget.get("measured"):
        r.skip("partition", "the run's budget is the seed's formulas (no GPU timeline covers the steps)")
        return
    step = budget.get("step_time_s") or 0.0
    total = sum((b.get("seconds_per_step") or 0.0) for b in budget.get("buckets", {}).values())
    r.check("partition-run", close(total, step, 1e-9), "buckets sum %r, step %r" % (total, step))
    worst = None
    for s in report.get("per_step", []):
        wb = s.get("waste_budget", {})
        total = sum(v for v in wb.values() if isinstance(v, (int, float)))
        duration = s.get("duration_s") or 0.0
        if not close(total, duration, 1e-9):
            worst = worst or "%s: buckets sum %r, duration %r" % (s.get("name"), total, duration)
    r.check("partition-per-step", worst is None, worst or "")


def advice_checks(report, r):
    buckets = report.get("budget", {}).get("buckets", {})
    bad = []
    for a in report.get("advice", []):
        b = buckets.get(a.get("bucket"))
        seconds = (b or {}).get("seconds_per_step")
        if not seconds or seconds <= 0:
            bad.append("%s on %s (%r s)" % (a.get("rule"), a.get("bucket"), seconds))
    r.check("advice-bucket-above-0", not bad, "; ".join(bad))


def find_key(obj, predicate, path=""):
    """(path, value) of the first member whose key satisfies predicate, depth first."""
    if isinstance(obj, dict):
        for k, v in obj.items():
            if predicate(k):
                return path + "." + k, v
            found = find_key(v, predicate, path + "." + k)
            if found:
                return found
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            found = find_key(v, predicate, "%s[%d]" % (path, i))
            if found:
                return found
    return None


def dataloader_checks(report, r):
    program = report.get("facts", {}).get("program") if isinstance(report.get("facts"), dict) else None
    seen = find_key(program, lambda k: "data_loading" in k and ("seen" in k or "ops" in k)) if program else None
    if seen is None:
        r.skip("dataloader-words", "the report does not say whether a data-loading op was seen (facts.program)")
        return
    ops_seen = bool(seen[1])
    if ops_seen:
        r.check("dataloader-words", True)
        return
    texts = [a.get("text", "") for a in report.get("advice", [])]
    texts.append(report.get("budget", {}).get("verdict", "") or "")
    bad = [t[:80] for t in texts if any(w in t.lower() for w in DATALOADER_WORDS)]
    r.check("dataloader-words", not bad, "no data-loading op (%s), yet: %s" % (seen[0], "; ".join(bad)))


def capacity_checks(report, r):
    facts = report.get("facts")
    devices = facts.get("devices") if isinstance(facts, dict) else None
    if devices is None:
        r.skip("capacity", "the report has no facts.devices")
        return
    stated = find_key(devices, lambda k: "capacity" in k and k.endswith("_gb"))
    if stated is None or not isinstance(stated[1], (int, float)):
        r.skip("capacity", "facts.devices states no capacity")
        return
    cap = report.get("quantities", {}).get("hbm_capacity_gb", {})
    given = any(a.startswith("--hbm-capacity-gb") for a in report.get("command", {}).get("argv", [])
                if isinstance(a, str)) if isinstance(report.get("command"), dict) else False
    if given:
        r.skip("capacity", "the capacity was given on the command line")
        return
    r.check("capacity", cap.get("value") is not None and close(cap.get("value"), stated[1], 1e-6),
            "%s = %r, quantities.hbm_capacity_gb %r" % (stated[0], stated[1], cap.get("value")))


CHECKS = (step_time_checks, per_step_checks, partition_checks, advice_checks, dataloader_checks, capacity_checks)


def run_report(binary, target, timeout):
    proc = subprocess.run([binary, "report", target, "--json", "-"], stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, timeout=timeout)
    if proc.returncode != 0:
        return None, proc.returncode, proc.stderr.decode("utf-8", "replace").strip().splitlines()[:1]
    return json.loads(proc.stdout), 0, []


def fixture_targets(tests_data):
    out = []
    for top in sorted(os.listdir(tests_data)):
        folder = os.path.join(tests_data, top)
        if not os.path.isdir(folder):
            continue
        for entry in sorted(os.listdir(folder)):
            path = os.path.join(folder, entry)
            if entry.startswith(".") or entry.endswith((".md", ".py", ".sh", ".truth.json")):
                continue
            out.append(path)
    return out


def sample_targets(samples):
    out = []
    for dirpath, dirnames, filenames in os.walk(samples):
        dirnames.sort()
        if dirpath != samples:
            out.append(dirpath)
        for f in sorted(filenames):
            if not f.endswith(".md"):
                out.append(os.path.join(dirpath, f))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--binary", required=True, help="the goblin-workbench executable")
    ap.add_argument("--tests-data", help="tests/data: each run fixture")
    ap.add_argument("--samples", help="a samples directory: every file and folder in it")
    ap.add_argument("--timeout", type=float, default=120.0, help="seconds per report")
    ap.add_argument("--verbose", action="store_true", help="print every check, not only FAILs")
    args = ap.parse_args()
    targets = []
    if args.tests_data:
        targets += fixture_targets(args.tests_data)
    if args.samples:
        targets += sample_targets(args.samples)
    if not targets:
        print("selfcheck: nothing to check (give --tests-data or --samples)")
        return 1

    reports = failed = not_runs = 0
    skipped = {}
    for target in targets:
        try:
            report, code, why = run_report(args.binary, target, args.timeout)
        except subprocess.TimeoutExpired:
            print("FAIL %s: report took longer than %.0f s" % (target, args.timeout))
            failed += 1
            continue
        except json.JSONDecodeError as e:
            print("FAIL %s: the report is not JSON (%s)" % (target, e))
            failed += 1
            continue
        if report is None:
            not_runs += 1
            if args.verbose:
                print("SKIP %s: no run (exit %d) %s" % (target, code, " ".join(why)))
            continue
        reports += 1
        r = Result(target)
        for check in CHECKS:
            check(report, r)
        for name, detail in r.failures:
            print("FAIL %s: %s: %s" % (target, name, detail))
        if args.verbose:
            for name, _ in r.passes:
                print("ok   %s: %s" % (target, name))
            for name, why in r.skips:
                print("SKIP %s: %s: %s" % (target, name, why))
        for name, why in r.skips:
            skipped.setdefault((name, why), 0)
            skipped[(name, why)] += 1
        failed += 1 if r.failures else 0
    for (name, why), n in sorted(skipped.items()):
        print("SKIP %s in %d report(s): %s" % (name, n, why))
    print("selfcheck: %d report(s), %d with a failing check, %d input(s) that are no run" % (reports, failed, not_runs))
    return 1 if failed or reports == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
