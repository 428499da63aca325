#!/usr/bin/env python3
"""Writes the SYNTHETIC run folders of tst_programfacts (hand-made, deterministic): one per kind of
program the run's facts tell apart, each shaped as its tool writes it, small enough to read.

  capture/          PyTorch on CUDA capturing graphs (cudaStreamBeginCapture, cudaGraphInstantiate,
                    no cudaGraphLaunch): 3 ProfilerSteps of 10 ms, the host busy 8 ms of each
                    (aten::linear), 1 ms of kernels: the GPU idles while the graph is recorded.
                    deviceProperties "NVIDIA H100 80GB HBM3", totalGlobalMem 85,029,158,912.
  host-busy/        PyTorch inference, no DataLoader: the same shape without captures; the
                    thresholds book the host-busy idle as data wait. deviceProperties "NVIDIA
                    GeForce RTX 3060", totalGlobalMem 12,622,168,064, no other memory figure.
  range-profile/    CUPTI range profiler: 4 cuda_profiler_range events, no CPU op, no kernel;
                    deviceProperties "NVIDIA H200" without totalGlobalMem (the name's 141 GB).
  llama-cpp/        rocprofv3 kernel trace of llama.cpp on a gfx1151 (Strix Halo) agent: ggml
                    kernels (mul_mat_q, rms_norm_f32, flash_attn_ext…) repeated over 3 tokens.
  vectoradd/        rocprofv3 kernel trace of a HIP vectorAdd sample: one kernel, 5 launches.

usage: make_program_runs.py [OUT_DIR]   (default: beside this script)
"""
import json
import os
import sys

OUT = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
PID, TID, GPU_PID = 4242, 4242, 0
START_US = 1_000_000.0


def us(x):
    return round(x, 3)


def torch_run(name, props, captures):
    events = [
        {"name": "process_name", "ph": "M", "ts": START_US, "pid": PID, "tid": 0, "args": {"name": "python3"}},
        {"name": "process_name", "ph": "M", "ts": START_US, "pid": GPU_PID, "tid": 0, "args": {"name": "python3"}},
        {"name": "process_labels", "ph": "M", "ts": START_US, "pid": GPU_PID, "tid": 0, "args": {"labels": "GPU 0"}},
    ]
    corr = 1000
    for step in range(3):
        t0 = START_US + step * 10_000.0
        events.append({"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#%d" % (step + 1), "pid": PID,
                       "tid": TID, "ts": us(t0), "dur": 10_000.0, "args": {}})
        # 8 ms of host work no kernel runs beside.
        events.append({"ph": "X", "cat": "cpu_op", "name": "aten::linear", "pid": PID, "tid": TID,
                       "ts": us(t0 + 100.0), "dur": 8_000.0, "args": {}})
        if captures:
            events.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaStreamBeginCapture", "pid": PID,
                           "tid": TID, "ts": us(t0 + 200.0), "dur": 5.0, "args": {"correlation": corr}})
            corr += 1
            events.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaGraphInstantiate", "pid": PID,
                           "tid": TID, "ts": us(t0 + 7_000.0), "dur": 50.0, "args": {"correlation": corr}})
            corr += 1
        # 1 ms of kernels: ten 100 µs GEMMs after the host work.
        for k in range(10):
            ts = t0 + 8_500.0 + k * 100.0
            events.append({"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": PID, "tid": TID,
                           "ts": us(ts - 20.0), "dur": 15.0, "args": {}})
            events.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": PID, "tid": TID,
                           "ts": us(ts - 15.0), "dur": 5.0, "args": {"correlation": corr}})
            events.append({"ph": "X", "cat": "kernel", "name": "ampere_sgemm_128x64_nn", "pid": GPU_PID, "tid": 7,
                           "ts": us(ts), "dur": 100.0,
                           "args": {"device": 0, "stream": 7, "correlation": corr}})
            corr += 1
    doc = {"schemaVersion": 1, "deviceProperties": props, "cupti_version": 18, "traceEvents": events}
    write(name, "torch_profile.json", json.dumps(doc, indent=1))


def range_profile():
    events = []
    for i in range(4):
        events.append({"ph": "X", "cat": "cuda_profiler_range", "name": "range_%d" % i, "pid": 0, "tid": 0,
                       "ts": us(START_US + i * 1000.0), "dur": 900.0,
                       "args": {"smsp__sass_thread_inst_executed_op_ffma_pred_on.sum": 1048576 * (i + 1)}})
    doc = {"schemaVersion": 1, "deviceProperties": [{"id": 0, "name": "NVIDIA H200", "numSms": 132}],
           "traceEvents": events}
    write("range-profile", "torch_profile.json", json.dumps(doc, indent=1))


KERNEL_HEADER = ('"Kind","Agent_Id","Queue_Id","Stream_Id","Thread_Id","Dispatch_Id","Kernel_Id","Kernel_Name",'
                 '"Correlation_Id","Start_Timestamp","End_Timestamp","LDS_Block_Size","Scratch_Size","VGPR_Count",'
                 '"Accum_VGPR_Count","SGPR_Count","Workgroup_Size_X","Workgroup_Size_Y","Workgroup_Size_Z",'
                 '"Grid_Size_X","Grid_Size_Y","Grid_Size_Z"')


def kernel_trace(name, kernels, repeats, gap_ns):
    rows = [KERNEL_HEADER]
    t = 1_700_000_000_000_000
    n = 0
    for _ in range(repeats):
        for kname, dur in kernels:
            n += 1
            rows.append('"KERNEL_DISPATCH","Agent 1",1,1,7777,%d,%d,"%s",%d,%d,%d,0,0,32,0,16,256,1,1,4096,1,1'
                        % (n, kernels.index((kname, dur)) + 1, kname, n, t, t + dur))
            t += dur + gap_ns
    write(name, "7777_kernel_trace.csv", "\n".join(rows))


def write(folder, file, text):
    os.makedirs(os.path.join(OUT, folder), exist_ok=True)
    with open(os.path.join(OUT, folder, file), "w", newline="\n") as f:
        f.write(text + "\n")


torch_run("capture", [{"id": 0, "name": "NVIDIA H100 80GB HBM3", "totalGlobalMem": 85029158912, "numSms": 132}], True)
torch_run("host-busy", [{"id": 0, "name": "NVIDIA GeForce RTX 3060", "totalGlobalMem": 12622168064, "numSms": 28}],
          False)
range_profile()
kernel_trace("llama-cpp", [
    ("void mul_mat_q<(ggml_type)12, 64, false>(char const*, int const*, char const*, float*, float*, int, int, int, int, int, int, int, int, int)", 120_000),
    ("void rms_norm_f32<1024, true, false>(float const*, float*, int, long, long, long, float, float const*, long, long, long, float const*, long, long, long, unsigned int, unsigned int, unsigned int, unsigned int)", 8_000),
    ("void flash_attn_ext_f16<64, 64, 8, 1, false, false>(char const*, char const*, char const*, char const*, char const*, int const*, float*, float2*, float, float, float, float, unsigned int, float, int, int, int, int, int, int, int, int, int, int, int, long, int, int, long, int, int, int, int, int, long)", 60_000),
    ("void k_bin_bcast<&op_add, float, float, float>(float const*, float const*, float*, int, int, int, int, int, int, int, int, int, int, int, int, int, int, int)", 5_000),
    ("void quantize_q8_1(float const*, void*, long, long, long, long, long, long)", 4_000),
], 3, 30_000)
kernel_trace("vectoradd", [("vectorAdd(float const*, float const*, float*, int)", 50_000)], 5, 200_000)
