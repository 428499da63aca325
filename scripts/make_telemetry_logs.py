#!/usr/bin/env python3
"""Writes the generated telemetry-log fixtures of tests/data/telemetry/ (issue 25).

Formats as nvidia-smi, dcgmi dmon and rocm-smi write them (docs/telemetry.md; INPUTS2.md §7-§9):

  nvsmi_lms500_2gpu.csv    nvidia-smi --query-gpu=timestamp,index,name,pci.bus_id,utilization.gpu,
                           memory.used,memory.total,power.draw --format=csv -lms 500 (2 GPUs, [N/A],
                           [Not Supported])
  nvsmi_nounits_h100.csv   --query-gpu=name,timestamp,utilization.gpu,memory.used,power.draw
                           --format=csv,nounits -l 1 (one GPU, no total: capacity from the name)
  nvsmi_noheader.csv       --query-gpu=timestamp,index,utilization.gpu,memory.used,memory.total
                           --format=csv,noheader (units in the cells, no header)
  nvsmi_shell_loop_bus.csv a shell loop: a header per sample, GPUs keyed by pci.bus_id only
  nvsmi_truncated.csv      a -lms log whose last row is cut short
  dcgm_dmon.log            dcgmi dmon -e 203,252,251,155,1002 (header every 14 rows, N/A, stop line)
  dcgm_profiling_only.log  dcgmi dmon -e 1002,1003 (no GPUTL: utilisation unavailable)
  rocm_smi_loop.csv        while true; rocm-smi --showuse --showmemuse --showmeminfo vram --showpower
                           --csv; sleep 1; done (WARNING line, a block per sample)
  foreign.txt, empty.log   not telemetry

Deterministic (fixed seed); stdlib only. Run from the repository root:
    python3 scripts/make_telemetry_logs.py [out_dir]
then python3 scripts/telemetry_mean.py to write the expected values.
"""
import datetime
import os
import random
import sys

OUT = sys.argv[1] if len(sys.argv) > 1 else os.path.join("tests", "data", "telemetry")


def write(name, text):
    os.makedirs(OUT, exist_ok=True)
    with open(os.path.join(OUT, name), "w", newline="") as f:
        f.write(text)


def stamp(t):
    return t.strftime("%Y/%m/%d %H:%M:%S.") + "%03d" % (t.microsecond // 1000)


rng = random.Random(25)
T0 = datetime.datetime(2024, 1, 31, 12, 0, 0, 123000)

# --- nvidia-smi -lms 500, two GPUs, every unit written
lines = ["timestamp, index, name, pci.bus_id, utilization.gpu [%], memory.used [MiB], memory.total [MiB], "
         "power.draw [W]"]
for i in range(40):
    for gpu in range(2):
        t = T0 + datetime.timedelta(milliseconds=500 * i + gpu)
        util = "[N/A]" if (i == 7 and gpu == 1) else "%d %%" % rng.randint(20, 100)
        used = "%d MiB" % (30000 + 250 * i + rng.randint(0, 200) + 1000 * gpu)
        power = "[Not Supported]" if (i == 11 and gpu == 0) else "%.2f W" % (200 + rng.random() * 200)
        lines.append("%s, %d, NVIDIA A100-SXM4-80GB, 00000000:%02X:00.0, %s, %s, 81920 MiB, %s"
                     % (stamp(t), gpu, 0x07 + gpu * 0x40, util, used, power))
write("nvsmi_lms500_2gpu.csv", "\n".join(lines) + "\n")

# --- nounits, other field order, no index, no total (name gives the capacity)
lines = ["name, timestamp, utilization.gpu [%], memory.used [MiB], power.draw [W]"]
for i in range(30):
    t = T0 + datetime.timedelta(seconds=i)
    util = "[N/A]" if i == 4 else "%d" % rng.randint(10, 100)
    lines.append("NVIDIA H100 80GB HBM3, %s, %s, %d, %.2f" % (stamp(t), util, 50000 + 300 * i, 300 + rng.random() * 300))
write("nvsmi_nounits_h100.csv", "\n".join(lines) + "\n")

# --- noheader (units in the cells)
lines = []
for i in range(20):
    for gpu in range(2):
        t = T0 + datetime.timedelta(milliseconds=1000 * i + gpu)
        lines.append("%s, %d, %d %%, %d MiB, 40960 MiB" % (stamp(t), gpu, rng.randint(30, 100), 20000 + 100 * i))
write("nvsmi_noheader.csv", "\n".join(lines) + "\n")

# --- shell loop: header per sample, pci.bus_id as the GPU key
lines = []
for i in range(12):
    lines.append("timestamp, pci.bus_id, utilization.gpu [%], memory.used [MiB]")
    for gpu in range(2):
        t = T0 + datetime.timedelta(seconds=2 * i, milliseconds=gpu * 3)
        lines.append("%s, 00000000:%02X:00.0, %d %%, %d MiB" % (stamp(t), 0x18 + gpu, rng.randint(0, 100), 1000 + 10 * i))
write("nvsmi_shell_loop_bus.csv", "\n".join(lines) + "\n")

# --- truncated: the writer was killed mid-row
lines = ["timestamp, index, utilization.gpu [%], memory.used [MiB]"]
for i in range(10):
    t = T0 + datetime.timedelta(milliseconds=200 * i)
    lines.append("%s, 0, %d %%, %d MiB" % (stamp(t), rng.randint(20, 100), 4000 + i))
text = "\n".join(lines) + "\n" + stamp(T0 + datetime.timedelta(seconds=2)) + ", 0, 4"
write("nvsmi_truncated.csv", text)

# --- dcgmi dmon: fixed-width columns, header every 14 rows
fields = ["GPUTL", "FBUSD", "FBFRE", "POWER", "SMACT"]
units = ["", "", "", "W", ""]


def dmon_header():
    h = "#Entity".ljust(16) + "".join(f.ljust(14) for f in fields)
    u = "ID".ljust(16) + "".join(x.ljust(14) for x in units)
    return [h.rstrip(), u.rstrip()]


lines = []
rows = 0
for i in range(20):
    for gpu in range(2):
        if rows % 14 == 0:
            lines += dmon_header()
        rows += 1
        util = "N/A" if (i == 3 and gpu == 0) else str(rng.randint(10, 100))
        vals = [util, str(40000 + 100 * i + gpu), str(41000 - 100 * i), "%.3f" % (250 + rng.random() * 100),
                "%.3f" % rng.random()]
        lines.append(("GPU %d" % gpu).ljust(16) + "".join(v.ljust(14) for v in vals).rstrip())
    lines.append("GPU-I 1".ljust(16) + "".join("N/A".ljust(14) for _ in fields).rstrip())
lines.append("dmon was stopped due to receiving a signal.")
write("dcgm_dmon.log", "\n".join(lines) + "\n")

lines = ["#Entity         SMACT         SMOCC", "ID"]
for i in range(5):
    lines.append("GPU 0           %.3f         %.3f" % (rng.random(), rng.random()))
write("dcgm_profiling_only.log", "\n".join(lines) + "\n")

# --- rocm-smi in a shell loop
lines = []
for i in range(15):
    lines.append("WARNING: AMD GPU device(s) is/are in a low-power state. Check power control/runtime_status")
    lines.append("")
    lines.append("device,GPU use (%),GPU memory use (%),Current Socket Graphics Package Power (W),"
                 "VRAM Total Memory (B),VRAM Total Used Memory (B)")
    for card in range(2):
        util = "N/A" if (i == 5 and card == 1) else str(rng.randint(0, 100))
        lines.append("card%d,%s,%d,%.1f,206141652992,%d" % (card, util, rng.randint(0, 60), 150 + rng.random() * 550,
                                                           150323855360 + i * 1073741824 + card * 536870912))
write("rocm_smi_loop.csv", "\n".join(lines) + "\n")

write("foreign.txt", "Epoch 1/10\nloss: 0.231, acc: 0.91\nnothing to see here\n")
write("empty.log", "")

# --- the placement run (tests/data/telemetry/run-placed, written by shared/tools/make_run.py, see
# PROVENANCE.md): its amd_smi.csv again as an nvidia-smi -l 1 log in local time UTC+02:00, so the
# placement must find the zone.
RUN = os.path.join(OUT, "run-placed", "amd_smi.csv")
if os.path.exists(RUN):
    import csv as _csv
    lines = ["timestamp, index, name, utilization.gpu [%], memory.used [MiB], power.draw [W]"]
    with open(RUN, newline="") as f:
        header = None
        for rec in _csv.reader(f):
            if not rec or rec[0].startswith("'CTRL"):
                continue
            if rec[0] == "timestamp":
                header = rec
                continue
            row = dict(zip(header, rec))
            t = datetime.datetime(1970, 1, 1) + datetime.timedelta(seconds=int(row["timestamp"]) + 7200)
            util = row["gfx_activity"]
            util = "[N/A]" if util == "N/A" else util + " %"
            lines.append("%s, %s, AMD Instinct MI300X, %s, %s MiB, %s W"
                         % (stamp(t), row["gpu"], util, row["used_vram"], row["socket_power"]))
    write("run-placed-nvsmi-utc+2.csv", "\n".join(lines) + "\n")
