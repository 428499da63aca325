#!/bin/bash
# Checks `goblin-workbench report`'s timeline.devices[] against the independent count of
# tests/data/torch/timeline_measured.py for any chrome traces, the way tst_measuredtimeline
# does for the ones in tests/data: each trace alone in a temporary run folder; per device the
# exact kernel/collective/memcpy/memset counts, and kernel, busy, compute, comm, exposed comm and
# memcpy time within max(1 µs, 5e-5 × value). For traces too big to keep in tests/data.
#   usage: scripts/check-measured-timeline.sh [--binary PATH] TRACE.json[.gz]...
# Exits 0 when every device of every trace matches, 1 otherwise (the differences on stdout).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
binary=$here/build/dev/src/app/goblin-workbench
if [ "${1:-}" = "--binary" ]; then binary=$2; shift 2; fi
[ $# -gt 0 ] || { echo "usage: $0 [--binary PATH] TRACE.json[.gz]..." >&2; exit 2; }
[ -x "$binary" ] || { echo "no goblin-workbench at $binary (build first, or --binary)" >&2; exit 2; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
status=0
for trace in "$@"; do
    run=$work/run
    rm -rf "$run" && mkdir -p "$run"
    cp "$trace" "$run/"
    python3 "$here/tests/data/torch/timeline_measured.py" "$run/$(basename "$trace")" > "$work/expected.tsv"
    "$binary" report "$run" --json "$work/report.json" 2> "$work/stderr.txt" || {
        echo "$trace: report failed: $(cat "$work/stderr.txt")"; status=1; continue; }
    python3 - "$work/expected.tsv" "$work/report.json" "$trace" <<'EOF' || status=1
import json, sys
expected_path, report_path, trace = sys.argv[1:4]
lines = [l.rstrip("\n").split("\t") for l in open(expected_path) if l.strip()]
rows = [dict(zip(lines[0], l)) for l in lines[1:]]
devices = [d for d in json.load(open(report_path))["timeline"]["devices"] if d["source"] == "torch_profile"]
bad = []
if len(devices) != len(rows):
    bad.append(f"{len(devices)} devices, expected {len(rows)}")
for row in rows:
    got = next((d for d in devices if d["device"] == int(row["device"])), None)
    if got is None:
        bad.append(f"device {row['device']} missing"); continue
    for key in ("kernels", "comm_kernels", "memcpy", "memset"):
        if got[key] != int(row[key]):
            bad.append(f"device {row['device']} {key}: {got[key]}, expected {row[key]}")
    for key, column in (("kernel_time_s", "kernel_ns"), ("busy_s", "busy_ns"), ("compute_s", "compute_ns"),
                        ("comm_s", "comm_ns"), ("exposed_comm_s", "exposed_ns"), ("memcpy_s", "memcpy_ns")):
        want = int(row[column]) / 1e9
        if abs(got[key] - want) > max(1e-6, 5e-5 * want):
            bad.append(f"device {row['device']} {key}: {got[key]!r} s, expected {want!r} s")
    print(f"{trace}: device {row['device']}: {got['kernels']} kernels, busy {got['busy_s']:.9f} s "
          f"(count {int(row['busy_ns']) / 1e9:.9f}), exposed comm {got['exposed_comm_s']:.9f} s "
          f"(count {int(row['exposed_ns']) / 1e9:.9f})")
for b in bad:
    print(f"{trace}: MISMATCH {b}")
sys.exit(1 if bad else 0)
EOF
done
[ $status -eq 0 ] && echo "every device matches the independent count" || echo "some devices differ (above)"
exit $status
