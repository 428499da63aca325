#!/usr/bin/env bash
# Regenerates the kernel-trace fixtures and expected.json. Needs the project's ../shared
# (make_run.py, samples, the reference module) and is run by hand, never by the tests: the
# fixtures and expected.json are committed. Deterministic (fixed seeds).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
shared=${SHARED:-$(cd "$here/../../../../shared" && pwd)}
S="$shared/samples"
cd "$here"
rm -rf real gen bad runs
mkdir -p real gen bad runs

# Real files from public projects (see ../PROVENANCE.md), byte for byte.
for f in rocprofv3/sdk-0.5-docs_kernel_trace.csv rocprofv3/sdk-1.0-docs_kernel_trace.csv \
         rocprofv3/sdk-1.0-docs_kernel_trace_truncated.csv rocprofv3/sdk-0.5-docs_counter_collection.csv \
         rocprofv3/sdk-1.0-docs_hip_api_stats.csv rocprofv3/sdk-1.0-docs_rocpd-to-csv.csv \
         rocprofv3/sdk-1.0-docs_memory_copy_trace.csv rocprof-v1/gunrock_results.csv \
         rocprof-v1/gunrock_results.stats.csv rocprofiler-compute/vcopy_MI200_timestamps.csv \
         rocprofiler-compute/vcopy_MI300X_A1_timestamps.csv; do
    cp "$S/$f" real/
done
chmod u+w real/*

# Generated dialects (make_run.py), a few KB each.
gen() {  # gen NAME make_run-args...
    local name=$1; shift
    local tmp; tmp=$(mktemp -d)
    python3 "$shared/tools/make_run.py" "$tmp/run" --quiet --files trace --kernels-per-step 6 --steps 2 "$@"
    cp "$tmp/run/trace.csv" "gen/$name.csv"
    rm -rf "$tmp"
}
gen v1 --trace-format v1 --seed 11
gen v3 --trace-format v3 --seed 12
gen v3-rocm6.2 --trace-format v3-rocm6.2 --seed 13
gen v3-rocm6.3 --trace-format v3-rocm6.3 --seed 14
gen v3-rocm7 --trace-format v3-rocm7 --seed 15
gen v3-rocpd --trace-format v3-rocpd --seed 16
gen v3-2gpu --trace-format v3-rocm6.3 --gpus 2 --kernels-per-step 4 --seed 17
gen v3-quoteall --trace-format v3 --quote all --seed 18

# Hand-made bad inputs and the multi-process folder.
python3 "$here/make_bad.py" "$here" "$shared"
# Expected values from the real reference module.
python3 "$here/make_expected.py" "$here" "$shared" > expected.json
