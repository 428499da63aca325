#!/bin/sh
# Regenerates the amd_smi.csv + truth.json pairs in this folder with make_run.py (shared tools).
# Usage: generate.sh [path/to/make_run.py]   (default: /work/shared/tools/make_run.py)
# truth.json keeps the keys tst_amdsmiparser reads from make_run.py's --truth output.
set -e
MAKE_RUN=${1:-/work/shared/tools/make_run.py}
HERE=$(cd "$(dirname "$0")" && pwd)
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
gen() {
    name=$1; shift
    python3 "$MAKE_RUN" "$TMP/$name" --files smi --steps 4 --kernels-per-step 20 "$@" --truth "$TMP/$name.truth.json" --quiet
    mkdir -p "$HERE/$name"
    cp "$TMP/$name/amd_smi.csv" "$HERE/$name/amd_smi.csv"
    python3 - "$TMP/$name.truth.json" "$HERE/$name/truth.json" <<'PY'
import json, sys
t = json.load(open(sys.argv[1]))
keys = ['generator', 'units', 'steps', 'gpus', 'kernel_time_frac', 'kernel_time_frac_per_gpu', 'gpu_util_pct',
        'hbm_peak_gb', 'hbm_peak_gb_per_gpu', 'hbm_avg_gb', 'hbm_avg_gb_per_gpu', 'hbm_avg_gb_telemetry_window',
        'definitions']
json.dump({k: t[k] for k in keys}, open(sys.argv[2], 'w'), indent=1)
PY
}
gen metric_polled_2gpu     --smi-dialect metric --gpus 2 --kernel-scale 500 --data-wait-ms 1000 --seed 1
gen metric_file            --smi-dialect metric-file --kernel-scale 2000 --data-wait-ms 2000 --seed 2
gen monitor_rocm7_gb       --smi-dialect monitor --kernel-scale 500 --data-wait-ms 600 --seed 3
gen monitor_rocm6_mb       --smi-dialect monitor-rocm6 --kernel-scale 500 --data-wait-ms 600 --seed 4
gen monitor_watch_2gpu     --smi-dialect monitor-watch --gpus 2 --kernel-scale 2000 --data-wait-ms 1500 --seed 5
gen metric_watch           --smi-dialect watch --kernel-scale 2000 --data-wait-ms 2000 --seed 6
gen metric_na_util_all     --smi-dialect metric --kernel-scale 500 --smi-na-util 1 --seed 7
gen metric_na_util_30      --smi-dialect metric --kernel-scale 500 --data-wait-ms 1000 --smi-na-util 0.3 --seed 8
gen metric_vram_gb_name    --smi-dialect metric --kernel-scale 500 --smi-vram-col VRAM_USED_GB --seed 9
gen monitor_lf             --smi-dialect monitor --kernel-scale 500 --smi-lf --seed 10
gen metric_file_rocmver    --smi-dialect metric-file --kernel-scale 2000 --smi-rocm-version 6.4.1 --seed 11
gen metric_util_upper      --smi-dialect metric --kernel-scale 500 --smi-util-col GFX_ACTIVITY --seed 12
