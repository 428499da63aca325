#!/usr/bin/env python3
"""Independent count of the telemetry-log fixtures (issue 25): for each log, the plain mean of its
utilisation column (N/A cells left out, never zero), the number of utilisation values and of GPU
rows, the peak of memory used (GiB) and the mean power, written to tests/data/telemetry/expected.csv.
tst_telemetrylogs compares the workbench reader with these numbers.

Shares no code with the C++ readers: nvidia-smi through Python's csv module, dcgmi dmon by
whitespace split, rocm-smi through csv. Run from the repository root after
scripts/make_telemetry_logs.py:
    python3 scripts/telemetry_mean.py [data_dir]
"""
import csv
import math
import os
import sys

DIR = sys.argv[1] if len(sys.argv) > 1 else os.path.join("tests", "data", "telemetry")
MISSING = {"", "n/a", "[n/a]", "[not supported]", "not supported"}


def number(cell):
    cell = cell.strip()
    if cell.lower() in MISSING:
        return None
    for unit in (" %", " MiB", " W"):
        if cell.endswith(unit):
            cell = cell[: -len(unit)]
    return float(cell)


def nvidia(path, columns=None):
    """columns: for a header-less log, the property of each column."""
    util, used, power, rows = [], [], [], 0
    with open(path, newline="") as f:
        header = columns
        for rec in csv.reader(f, skipinitialspace=True):
            if not rec:
                continue
            names = [c.split(" [")[0].strip() for c in rec]
            if columns is None and ("utilization.gpu" in names or "memory.used" in names):
                header = names
                continue
            if len(rec) != len(header):
                continue  # a row cut short
            rows += 1
            row = dict(zip(header, rec))
            for key, into in (("utilization.gpu", util), ("memory.used", used), ("power.draw", power)):
                if key in row:
                    v = number(row[key])
                    if v is not None:
                        into.append(v)
    return util, [u / 1024.0 for u in used], power, rows


def dcgm(path):
    util, used, power, rows, fields = [], [], [], 0, []
    with open(path) as f:
        for line in f:
            tok = line.split()
            if not tok:
                continue
            if tok[0] == "#Entity":
                fields = tok[1:]
                continue
            if tok[0] != "GPU" or len(tok) != len(fields) + 2:
                continue
            rows += 1
            row = dict(zip(fields, tok[2:]))
            for key, into in (("GPUTL", util), ("FBUSD", used), ("POWER", power)):
                if key in row:
                    v = number(row[key])
                    if v is not None:
                        into.append(v)
    return util, [u / 1024.0 for u in used], power, rows


def rocm(path):
    util, used, power, rows, header = [], [], [], 0, None
    with open(path, newline="") as f:
        for rec in csv.reader(f):
            if not rec:
                continue
            if rec[0] == "device":
                header = rec
                continue
            if header is None or not rec[0].startswith("card"):
                continue
            rows += 1
            row = dict(zip(header, rec))
            for key, into in (("GPU use (%)", util), ("VRAM Total Used Memory (B)", used),
                              ("Current Socket Graphics Package Power (W)", power)):
                v = number(row.get(key, ""))
                if v is not None:
                    into.append(v)
    return util, [u / 1024.0 ** 3 for u in used], power, rows


def mean(v):
    return sum(v) / len(v) if v else float("nan")


CASES = [
    ("nvsmi_lms500_2gpu.csv", lambda p: nvidia(p)),
    ("nvsmi_nounits_h100.csv", lambda p: nvidia(p)),
    ("nvsmi_noheader.csv", lambda p: nvidia(p, ["timestamp", "index", "utilization.gpu", "memory.used",
                                                "memory.total"])),
    ("nvsmi_shell_loop_bus.csv", lambda p: nvidia(p)),
    ("nvsmi_truncated.csv", lambda p: nvidia(p)),
    ("dcgm_dmon.log", dcgm),
    ("rocm_smi_loop.csv", rocm),
    # Real captures (tests/data/PROVENANCE.md).
    ("real_slowfast_nvsmi_util.csv", lambda p: nvidia(p)),
    ("real_vc_nvsmi_4xT4.csv", lambda p: nvidia(p)),
]

out = ["file,util_mean_pct,util_values,rows,hbm_peak_gb,power_mean_w"]
for name, read in CASES:
    util, used, power, rows = read(os.path.join(DIR, name))
    peak = max(used) if used else float("nan")
    out.append("%s,%.17g,%d,%d,%.17g,%.17g" % (name, mean(util), len(util), rows, peak, mean(power)))
    print("%-26s util mean %7.3f %% over %3d values, %3d rows, HBM peak %8.3f GiB, power %s W"
          % (name, mean(util), len(util), rows, peak, "n/a" if math.isnan(mean(power)) else "%.3f" % mean(power)))
with open(os.path.join(DIR, "expected.csv"), "w") as f:
    f.write("\n".join(out) + "\n")

# --- per-step values of the placement run: the samples whose second [t, t + 1 s) lies in a CPU-lane
# ProfilerStep window [baseTimeNanoseconds + ts, + dur), counted here from the files themselves.
RUN = os.path.join(DIR, "run-placed")
if os.path.exists(os.path.join(RUN, "torch_profile.json")):
    import json
    with open(os.path.join(RUN, "torch_profile.json")) as f:
        trace = json.load(f)
    base = int(trace["baseTimeNanoseconds"])
    steps = sorted((e for e in trace["traceEvents"]
                    if e.get("cat") == "user_annotation" and e.get("name", "").startswith("ProfilerStep#")),
                   key=lambda e: e["ts"])
    windows = [(e["name"], base + round(e["ts"] * 1000), base + round((e["ts"] + e["dur"]) * 1000)) for e in steps]
    samples = []
    with open(os.path.join(RUN, "amd_smi.csv"), newline="") as f:
        header = None
        for rec in csv.reader(f):
            if not rec or rec[0].startswith("'CTRL"):
                continue
            if rec[0] == "timestamp":
                header = rec
                continue
            row = dict(zip(header, rec))
            samples.append((int(row["timestamp"]) * 10**9, number(row["gfx_activity"]), number(row["used_vram"])))
    def per_step(samples, resolution_ns, out_name):
        lines = ["step,samples,util_mean_pct,hbm_peak_gb"]
        for name, start, end in windows:
            # A stamp stands for [t, t + resolution) (amd-smi: whole seconds): a sample belongs to
            # a step only when all of that lies inside the step window.
            inside = [s for s in samples if start <= s[0] and s[0] + resolution_ns <= end]
            util = [s[1] for s in inside if s[1] is not None]
            used = [s[2] / 1024.0 for s in inside if s[2] is not None]
            lines.append("%s,%d,%.17g,%.17g" % (name, len(inside), mean(util), max(used) if used else float("nan")))
            print("%-28s %-16s %3d samples, util mean %7.3f %%, HBM peak %8.3f GiB"
                  % (out_name, name, len(inside), mean(util), max(used) if used else float("nan")))
        with open(os.path.join(DIR, out_name), "w") as f:
            f.write("\n".join(lines) + "\n")

    per_step(samples, 10**9, "expected_steps.csv")

    # The same log as nvidia-smi local time in UTC+02:00, to the millisecond.
    import datetime
    nv = []
    with open(os.path.join(DIR, "run-placed-nvsmi-utc+2.csv"), newline="") as f:
        rows = list(csv.reader(f, skipinitialspace=True))
    header = [c.split(" [")[0] for c in rows[0]]
    for rec in rows[1:]:
        row = dict(zip(header, rec))
        local = datetime.datetime.strptime(row["timestamp"], "%Y/%m/%d %H:%M:%S.%f")
        utc = local - datetime.timedelta(hours=2)
        ns = int((utc - datetime.datetime(1970, 1, 1)).total_seconds() * 1000) * 10**6
        nv.append((ns, number(row["utilization.gpu"]), number(row["memory.used"])))
    per_step(nv, 10**6, "expected_steps_nvsmi.csv")
