#!/bin/bash
# Regenerates the trace-only fixtures: make_run.py folders (../shared/tools, not needed at test
# time) with trace.csv and amd_smi.csv removed, the torch trace gzipped, make_run's --truth kept as
# truth.json.expected, the `report` options the case needs in `options`, and the top kernel by
# total time counted independently from the trace's kernel events in `top_kernel.expected`, and each
# step's time with only copies that bring no input on the GPU (other_copy_only.py) in
# `other_copy_only_ns.expected`.
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
    python3 "$here/other_copy_only.py" "$here/$name" > "$here/$name/other_copy_only_ns.expected"
}

gen rocm-collective "" --kernels-per-step 60 --collective-frac 0.2 --gpus 2 --seed 11
gen compact-rccl "" --kernels-per-step 60 --collective-frac 0.3 --collective-names rccl --json-layout compact --seed 12
gen data-bound "" --kernels-per-step 40 --data-wait-ms 60 --data-cpu-frac 0.9 --seed 13
gen fp16-generic "" --kernels-per-step 60 --precision fp16 --generic-gemm-frac 0.3 --seed 14
gen no-marks "--steps 4" --kernels-per-step 60 --no-profiler-steps --no-gpu-annotations --metadata none --seed 15
# Measured budget against truth (issue 23): data-bound, every step in the torch trace (the later
# --steps/--torch-steps win over gen's), so the truth's per-step means are over the steps measured.
gen datawait-20ms "" --steps 4 --torch-steps 4 --kernels-per-step 40 --data-wait-ms 20 --seed 32

# tst_derived's step plan (issue 23): an unmarked torch trace whose metadata gives the step time, so
# no timeline covers the steps (the seed's formulas). In ../plan/: it is no trace-only truth case.
python3 "$make_run" --quiet --files torch --steps 4 --torch-steps 4 --kernels-per-step 20 --no-profiler-steps --seed 33 "$tmp/metadata-nomarks"
mkdir -p "$here/../plan/metadata-nomarks"
gzip -9 -n -c "$tmp/metadata-nomarks/torch_profile.json" > "$here/../plan/metadata-nomarks/torch_profile.json.gz"
