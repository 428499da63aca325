#!/bin/bash
# Regenerates the trace-only fixtures: make_run.py folders (../shared/tools, not needed at test
# time) with trace.csv and amd_smi.csv removed, the torch trace gzipped, make_run's --truth kept as
# truth.json.expected, the `report` options the case needs in `options`, and the top kernel by
# total time counted independently from the trace's kernel events in `top_kernel.expected`.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
make_run=${GOBLIN_MAKE_RUN:-$here/../../../../shared/tools/make_run.py}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

gen() {
    local name=$1 options=$2
    shift 2
    python3 "$make_run" --quiet --steps 6 --torch-steps 4 --truth "$tmp/$name.truth.json" "$@" "$tmp/$name"
    mkdir -p "$here/$name"
    gzip -9 -n -c "$tmp/$name/torch_profile.json" > "$here/$name/torch_profile.json.gz"
    cp "$tmp/$name.truth.json" "$here/$name/truth.json.expected"
    printf '%s\n' "$options" > "$here/$name/options"
    python3 - "$tmp/$name/torch_profile.json" > "$here/$name/top_kernel.expected" <<'PY'
import collections, json, sys
total = collections.Counter()
for e in json.load(open(sys.argv[1]))["traceEvents"]:
    if e.get("ph") == "X" and e.get("cat") == "kernel":
        total[e["name"]] += e.get("dur", 0)
print(total.most_common(1)[0][0])
PY
}

gen rocm-collective "" --kernels-per-step 60 --collective-frac 0.2 --gpus 2 --seed 11
gen compact-rccl "" --kernels-per-step 60 --collective-frac 0.3 --collective-names rccl --json-layout compact --seed 12
gen data-bound "" --kernels-per-step 40 --data-wait-ms 60 --data-cpu-frac 0.9 --seed 13
gen fp16-generic "" --kernels-per-step 60 --precision fp16 --generic-gemm-frac 0.3 --seed 14
gen no-marks "--steps 4" --kernels-per-step 60 --no-profiler-steps --no-gpu-annotations --metadata none --seed 15
