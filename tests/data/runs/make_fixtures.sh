#!/usr/bin/env bash
# Regenerates the run-folder fixtures and their expected reference output. Needs the project's
# ../shared (make_run.py, samples, reference oracle) and is run by hand, never by the tests:
# the fixtures and expected files are committed.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
shared=${SHARED:-$(cd "$here/../../../../shared" && pwd)}
mk="python3 $shared/tools/make_run.py"
oracle="python3 $shared/reference/oracle.py"
S="$shared/samples"
cd "$here"

gen() {  # gen NAME make_run-args...
    local name=$1; shift
    rm -rf "$name" && $mk "$name" --quiet --truth "$name.truth.json" "$@"
    mv "$name.truth.json" "$name/truth.json.expected"
}
gen v3-metric-1gpu        --steps 4 --kernels-per-step 40 --seed 1
gen rocm62-monitor-2gpu   --steps 4 --kernels-per-step 30 --gpus 2 --trace-format v3-rocm6.2 --smi-dialect monitor --collective-names mixed --seed 2
gen rocm63-watch-fp16     --steps 4 --kernels-per-step 30 --trace-format v3-rocm6.3 --smi-dialect watch --precision fp16 --attention sdpa --seed 3
gen rocm7-monwatch-kineto --steps 4 --kernels-per-step 30 --gpus 2 --trace-format v3-rocm7 --smi-dialect monitor-watch --metadata kineto --attention flash --seed 4
gen rocpd-metricfile-na   --steps 4 --kernels-per-step 30 --trace-format v3-rocpd --smi-dialect metric-file --smi-na-util 1 --metadata kineto-object --seed 5
gen v1-monrocm6-nometa    --steps 4 --kernels-per-step 30 --trace-format v1 --smi-dialect monitor-rocm6 --metadata none --no-profiler-steps --seed 6
gen quoteall-lf-compact   --steps 3 --kernels-per-step 30 --quote all --smi-lf --ts-style int --json-layout compact --metadata-position start --torch-detail lite --seed 7
gen mixed-flashrocm       --steps 4 --kernels-per-step 30 --gpus 2 --precision mixed --attention flash_rocm --smi-vram-col VRAM_USED_GB --smi-rocm-version 6.4.1 --smi-na-util 0.3 --smi-na-vram 0.2 --seed 8
gen busy-host-datawait    --steps 4 --kernels-per-step 20 --data-wait-ms 30 --data-cpu-frac 0.9 --kernel-scale 0.3 --seed 9
# Advice fixtures (tst_advice): communication-bound and untuned-GEMM runs.
gen comm-heavy            --steps 4 --kernels-per-step 20 --gpus 2 --collective-frac 0.6 --seed 12
gen untuned-gemm          --steps 4 --kernels-per-step 20 --generic-gemm-frac 0.8 --seed 13
# Measured budget against truth (tst_workbenchtruth, issue 23): data-bound, every step in the torch
# trace and one GPU, so the truth's per-step means are over exactly the steps the budget measures.
gen datawait-20ms         --steps 4 --torch-steps 4 --kernels-per-step 40 --data-wait-ms 20 --seed 31

# Real files from public projects (see ../PROVENANCE.md), assembled into run folders.
real() {  # real NAME TRACE TORCH(json or json.gz, gunzipped) SMI
    local name=$1
    rm -rf "$name" && mkdir -p "$name"
    [ -n "$2" ] && cp "$S/$2" "$name/trace.csv"
    if [ -n "$3" ]; then
        case "$3" in *.gz) gunzip -c "$S/$3" > "$name/torch_profile.json" ;; *) cp "$S/$3" "$name/torch_profile.json" ;; esac
    fi
    [ -n "$4" ] && cp "$S/$4" "$name/amd_smi.csv"
    chmod -R u+w "$name"
}
real real-rocm7-hta-infx   rocprofv3/sdk-1.0-docs_kernel_trace.csv kineto/hta_amd_mi250_minitoy_train_ROCm6_2_kineto.json amd-smi/InferenceX_mi355x_metric-p-c-t-u_watch1s_8gpu_EXCERPT.csv
real real-gunrock-compile  rocprof-v1/gunrock_results.csv kineto/tracelens_mi300x_torch_compile_triton_trace.json.gz amd-smi/amdsmi-issue38_metric-E_watch1s_2gpu_stdout_TRANSCRIBED.txt
real real-rocm63-2021      rocprofv3/sdk-0.5-docs_kernel_trace.csv kineto/tracelens_mi210_gpu_only_trace.json.gz amd-smi/InferenceX_mi355x_metric-E_oneshot_energy_start.csv
real real-omniperf-crlf    rocprofiler-compute/vcopy_MI300X_A1_timestamps.csv "" ""
real real-stats-as-trace   rocprofv3/sdk-1.0-docs_hip_api_stats.csv "" ""

# rocprofv3's own layout: no trace.csv, one CSV per process under <hostname>/, gzipped torch trace.
rm -rf multiprocess-hostdir && $mk /tmp/goblin-mp --quiet --steps 3 --kernels-per-step 30 --gpus 2 --trace-format v3-rocm7 --seed 10
mkdir -p multiprocess-hostdir/node01
python3 - "$here/multiprocess-hostdir/node01" /tmp/goblin-mp/trace.csv <<'PY'
import csv, sys
out, src = sys.argv[1], sys.argv[2]
lines = open(src, newline="").read().splitlines(keepends=True)
header, rows = lines[0], lines[1:]
by_agent = {}
for r in rows:
    agent = next(csv.reader([r]))[1]
    by_agent.setdefault(agent, []).append(r)
for i, (agent, rs) in enumerate(sorted(by_agent.items())):
    with open(f"{out}/{4100 + i}_kernel_trace.csv", "w", newline="") as f:
        f.write(header); f.writelines(rs)
PY
gzip -c /tmp/goblin-mp/torch_profile.json > multiprocess-hostdir/torch_profile.json.gz
cp /tmp/goblin-mp/amd_smi.csv multiprocess-hostdir/amd_smi.csv
rm -rf /tmp/goblin-mp

# Bad inputs.
rm -rf bad-empty-files bad-garbage bad-truncated-json bad-folder-as-file bad-header-only bad-nan-negative bad-missing-all
mkdir -p bad-empty-files && : > bad-empty-files/trace.csv && : > bad-empty-files/torch_profile.json && : > bad-empty-files/amd_smi.csv
mkdir -p bad-garbage && python3 -c "
import random; r = random.Random(42)
for n in ('trace.csv', 'torch_profile.json', 'amd_smi.csv'):
    open('bad-garbage/' + n, 'wb').write(bytes(r.randrange(256) for _ in range(3000)))"
gen bad-truncated-json --steps 2 --kernels-per-step 10 --seed 11
python3 -c "
p = 'bad-truncated-json/torch_profile.json'; b = open(p, 'rb').read(); open(p, 'wb').write(b[: len(b) * 2 // 3])"
mkdir -p bad-folder-as-file/trace.csv bad-folder-as-file/torch_profile.json bad-folder-as-file/amd_smi.csv
for d in bad-folder-as-file/*; do echo "a folder where a file should be" > "$d/README"; done
mkdir -p bad-header-only
printf '"Kind","Agent_Id","Queue_Id","Thread_Id","Dispatch_Id","Kernel_Id","Kernel_Name","Correlation_Id","Start_Timestamp","End_Timestamp"\n' > bad-header-only/trace.csv
printf '{"traceEvents": []}\n' > bad-header-only/torch_profile.json
printf 'gpu,gfx_activity,used_vram\r\n' > bad-header-only/amd_smi.csv
mkdir -p bad-nan-negative
cat > bad-nan-negative/trace.csv <<'CSV'
"Kind","Agent_Id","Queue_Id","Thread_Id","Dispatch_Id","Kernel_Id","Kernel_Name","Correlation_Id","Start_Timestamp","End_Timestamp"
"KERNEL_DISPATCH",4,1,100,1,7,"Cijk_Ailk_Bljk_BBS_BH_MT128x128x64",1,1000000,1500000
"KERNEL_DISPATCH",4,1,100,2,8,"void at::native::vectorized_elementwise_kernel<4, float>",2,1600000,1500000
"KERNEL_DISPATCH",4,1,100,3,8,"void at::native::vectorized_elementwise_kernel<4, float>",3,nan,1900000
"KERNEL_DISPATCH",4,1,100,4,9,"ncclDevKernel_Generic(ncclDevComm*, unsigned long, ncclWork*)",4,2000000,2600000
"KERNEL_DISPATCH",4,1,100,5,9,"rccl_AllReduce_RING_LL128_Sum_bf16",5,2700000,abc
"KERNEL_DISPATCH",4,1,100,6,10,"rccl_AllReduce_RING_LL128_Sum_bf16",6,2800000,3100000
CSV
printf '{"traceEvents": [{"ph":"X","cat":"cpu_op","name":"aten::mm","pid":1,"tid":1,"ts":0,"dur":100},{"ph":"X","cat":"user_annotation","name":"ProfilerStep#1","pid":1,"tid":1,"ts":0,"dur":1000}], "metadata": {"step_time_seconds": "0.001", "tokens_per_sec": "1234.5", "mfu_pct": -1}}\n' > bad-nan-negative/torch_profile.json
printf 'gpu,gfx_activity,used_vram\r\n0,N/A,N/A\r\n0,nan,1024\r\n0,50,-5\r\n0,inf,2048\r\n' > bad-nan-negative/amd_smi.csv
mkdir -p bad-missing-all && echo "an empty run folder: the profiling wrapper wrote nothing" > bad-missing-all/README

# Per-step budget (tst_perstep): 8 steps, all in the torch trace; step 3 made 40 % slower by an idle gap.
rm -rf /tmp/goblin-slow-src slow-step-idle
$mk /tmp/goblin-slow-src --quiet --steps 8 --kernels-per-step 12 --torch-steps 8 --seed 21
python3 "$here/make_slow_step.py" /tmp/goblin-slow-src slow-step-idle --step 3 --fraction 0.4

# Keys and columns twice in every file (issue 36): Python keeps the last value; so must both readings.
python3 "$here/make_duplicates.py"

# Expected reference output for every folder (--precision none and one variant).
for d in */; do
    d=${d%/}
    rm -f "$d"/expected.reference*
    if $oracle "$d" > "$d/expected.reference.json" 2> /tmp/goblin-oracle.err; then
        $oracle "$d" --precision fp16 --steps 7 > "$d/expected.reference.fp16.json"
    else
        # The reference itself crashes on this folder: record how, the test checks we do not.
        rm -f "$d/expected.reference.json"
        tail -n 1 /tmp/goblin-oracle.err > "$d/expected.reference.crash.txt"
    fi
done
echo "fixtures written to $here"
