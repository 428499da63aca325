#!/bin/bash
# Regenerates the generated part of the fuzz seed corpora (tests/fuzz/seeds/*/gen-*) with the
# project's run-folder generator. Developer tool only: CI and the fuzz scripts use the
# committed seeds and never need ../shared. Real sample files are copied by hand (PROVENANCE.md).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
make_run=${MAKE_RUN:-$here/../../../shared/tools/make_run.py}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
small=(--steps 2 --kernels-per-step 3 --gpus 2 --torch-steps 2 --torch-detail lite --quiet)

n=0
gen() {  # gen NAME ARGS… : one run folder, its three files go to the three corpora
    local name=$1; shift
    python3 "$make_run" "${small[@]}" "$@" "$tmp/$name"
    cp "$tmp/$name/trace.csv" "$here/seeds/kerneltrace/gen-$name.csv" 2>/dev/null || true
    cp "$tmp/$name/torch_profile.json" "$here/seeds/torchtrace/gen-$name.json" 2>/dev/null || true
    cp "$tmp/$name/amd_smi.csv" "$here/seeds/amdsmi/gen-$name.csv" 2>/dev/null || true
    n=$((n + 1))
}
rm -f "$here"/seeds/*/gen-*
gen v3-rocm7 --trace-format v3-rocm7 --smi-dialect metric --metadata patched --precision fp16
gen v3-rocm62 --trace-format v3-rocm6.2 --smi-dialect monitor --metadata kineto --ts-style frac
gen v3-rocm63 --trace-format v3-rocm6.3 --smi-dialect monitor-rocm6 --metadata kineto-object --json-layout compact
gen v3-rocpd --trace-format v3-rocpd --smi-dialect monitor-watch --metadata both --ts-style int --quote all
gen v1 --trace-format v1 --smi-dialect watch --metadata none --no-profiler-steps --smi-lf
gen v3-strings --trace-format v3 --quote strings --smi-dialect metric-file --metadata-position start \
    --smi-na-util 0.3 --smi-na-vram 0.3 --smi-vram-unit gb --precision mixed
echo "generated $n run folders into $here/seeds"
