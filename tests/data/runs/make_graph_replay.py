#!/usr/bin/env python3
"""Writes the SYNTHETIC run folder graph-replay-decode/ (issue 23 item 3): the torch profiler
trace of an inference server decoding with HIP graph replay, in the shape vLLM's V1 worker leaves
on an MI300X with a roctracer-era ROCm Kineto (hand-made; no real trace of this kind is public):

  * a ROCm Kineto header: deviceProperties of one "AMD Instinct MI300X", roctracer_version,
    hip_runtime_version, hip_driver_version, distributedInfo of a single-rank process group,
    baseTimeNanoseconds with relative timestamps;
  * no ProfilerStep (the server starts and stops the profiler itself, without a schedule), no
    backward operator, no optimizer, no DataLoader; one "execute_model" user_annotation per
    decode step;
  * per step: the input copies (aten::copy_ -> hipMemcpyWithStream -> an HtoD copy), 8
    hipGraphLaunch calls (the model's piecewise graphs), of which only the first has its kernels
    recorded (10 GPU events sharing its correlation id; the other 7 replays ran, but the tracer
    kept none of their kernels), then eager sampling kernels (aten::softmax, aten::argmax ->
    hipLaunchKernel) and the sampled tokens copied back (DtoH);
  * GPU events on pid 2 / queue 0 with roctracer's args (device, stream, correlation, kind),
    ac2g flows for the eager launches only (roctracer starts none for hipGraphLaunch).

12 steps: 96 hipGraphLaunch calls, 12 with recorded kernels (1 in 8). Deterministic: the same
bytes on every run. Every time is an integer number of ns, printed as µs with three decimals.

usage: make_graph_replay.py [OUT_DIR]   (default: graph-replay-decode beside this script)
"""
import json
import os
import sys

STEPS = 12
GRAPHS_PER_STEP = 8
RECORDED_GRAPH = 0          # the replay of each step whose kernels the tracer kept
KERNELS_PER_GRAPH = 10
HOST_PID = 71234
GPU_PID = 2                 # roctracer: HSA agent index, CPU agents counted first
BASE_NS = 1767190000000000000
START_NS = 5_412_870_113_000

GRAPH_KERNELS = [
    ("_ZN4vllm15rms_norm_kernelIN3c108BFloat16ELi8ELi3EEEvPT_PKS3_S6_fii", 9_000),
    ("Cijk_Alik_Bljk_BBS_BH_Bias_HA_S_SAV_UserArgs_MT64x64x128_MI16x16x1_SN_LDSB1_AFC1_AFEM1_GRVWA8_K1_MIWT2_2", 61_000),
    ("_ZN4vllm23rotary_embedding_kernelIN3c108BFloat16ELb1EEEvPKlPT_S6_PKS5_iiiiii", 6_000),
    ("_ZN4vllm22reshape_and_cache_flash_kernelIN3c108BFloat16ES2_LNS_18Fp8KVCacheDataTypeE0EEEvPKT_S7_PT0_S9_PKliiiiiiPKfSD_", 7_000),
    ("_Z38paged_attention_ll4mi_QKV_mfma16_kernelI14__hip_bfloat16S0_LN4vllm18Fp8KVCacheDataTypeE0ES0_Li16ELi128ELi256ELb0ELi1EEvPKT_PKT0_S9_fPKiSB_SB_iPKfiiiPfSD_PS6_PT2_iSC_SC_", 48_000),
    ("Cijk_Alik_Bljk_BBS_BH_Bias_HA_S_SAV_UserArgs_MT64x64x128_MI16x16x1_SN_LDSB1_AFC1_AFEM1_GRVWA8_K1_MIWT2_2", 44_000),
    ("_ZN4vllm15rms_norm_kernelIN3c108BFloat16ELi8ELi3EEEvPT_PKS3_S6_fii", 9_000),
    ("Cijk_Alik_Bljk_BBS_BH_Bias_HA_S_SAV_UserArgs_MT128x64x64_MI16x16x1_SN_LDSB1_AFC1_AFEM1_GRVWA8_K1_MIWT4_2", 112_000),
]
SAMPLING = [
    ("aten::softmax", "void at::native::(anonymous namespace)::cunn_SoftMaxForward<4, float, float, float, at::native::(anonymous namespace)::SoftMaxForwardEpilogue>(float*, float const*, int)", 21_000),
    ("aten::argmax", "void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, at::native::ArgMaxOps<float>, unsigned int, long, 4> >(at::native::ReduceOp<float, at::native::ArgMaxOps<float>, unsigned int, long, 4>)", 14_000),
]

HEADER = {
    "schemaVersion": 1,
    "deviceProperties": [{
        "id": 0, "name": "AMD Instinct MI300X", "totalGlobalMem": 206141652992,
        "computeMajor": 9, "computeMinor": 4, "maxThreadsPerBlock": 1024, "maxThreadsPerMultiprocessor": 2048,
        "regsPerBlock": 65536, "warpSize": 64, "sharedMemPerBlock": 65536, "numSms": 304,
        "maxSharedMemoryPerMultiProcessor": 65536}],
    "roctracer_version": 4.1,
    "hip_runtime_version": 60342134,
    "distributedInfo": {"backend": "nccl", "rank": 0, "world_size": 1, "pg_count": 1,
                        "pg_config": [{"pg_name": "0", "pg_desc": "default_pg", "backend_config": "cuda:nccl",
                                       "pg_size": 1, "ranks": [0]}], "nccl_version": "2.21.5"},
    "record_shapes": 0,
    "hip_driver_version": 60342134,
    "with_stack": 0,
    "trace_id": "9C5E0B8D4A3F4E21B7D61F0A2C5E7B19",
}


def us(ns):
    """ns on the trace clock -> the µs text Kineto prints (relative to baseTimeNanoseconds)."""
    return f"{ns // 1000}.{ns % 1000:03d}"


class Trace:
    def __init__(self):
        self.events = []
        self.correlation = 41_000
        self.external = 9_000
        self.cpu_events = 0  # Kineto's "Ev Idx": the CPU-side events in the order they began

    def x(self, cat, name, pid, tid, begin, end, args):
        self.events.append(f'{{"ph": "X", "cat": "{cat}", "name": {json.dumps(name)}, "pid": {pid}, "tid": {tid}, '
                           f'"ts": {us(begin)}, "dur": {us(end - begin)}, "args": {{{args}}}}}')

    def flow(self, corr, begin, gpu_begin):
        self.events.append(f'{{"ph": "s", "id": {corr}, "pid": {HOST_PID}, "tid": {HOST_PID}, "ts": {us(begin)}, '
                           f'"cat": "ac2g", "name": "ac2g"}}')
        self.events.append(f'{{"ph": "f", "id": {corr}, "pid": {GPU_PID}, "tid": 0, "ts": {us(gpu_begin)}, '
                           f'"cat": "ac2g", "name": "ac2g", "bp": "e"}}')

    def next_external(self):
        self.external += 1
        self.cpu_events += 1
        return self.external, self.cpu_events - 1

    def op(self, name, begin, end):
        ext, index = self.next_external()
        self.x("cpu_op", name, HOST_PID, HOST_PID, begin, end, f'"External id": {ext}, "Ev Idx": {index}')
        return ext

    def next_correlation(self):
        self.correlation += 1
        return self.correlation

    def kernel(self, name, begin, end, corr, external=None):
        ext = f'"External id": {external}, ' if external is not None else ""
        self.x("kernel", name, GPU_PID, 0, begin, end,
               f'{ext}"device": {GPU_PID}, "stream": 0, "correlation": {corr}, "kind": "Dispatch Kernel"')


def build():
    t = Trace()
    meta = []
    for pid, name, labels, index in ((HOST_PID, "python3", "CPU", HOST_PID), (GPU_PID, "python3", f"GPU {GPU_PID}", 5000000 + GPU_PID)):
        meta.append(f'{{"name": "process_name", "ph": "M", "ts": {us(START_NS)}, "pid": {pid}, "tid": 0, "args": {{"name": "{name}"}}}}')
        meta.append(f'{{"name": "process_labels", "ph": "M", "ts": {us(START_NS)}, "pid": {pid}, "tid": 0, "args": {{"labels": "{labels}"}}}}')
        meta.append(f'{{"name": "process_sort_index", "ph": "M", "ts": {us(START_NS)}, "pid": {pid}, "tid": 0, "args": {{"sort_index": {index}}}}}')
    meta.append(f'{{"name": "thread_name", "ph": "M", "ts": {us(START_NS)}, "pid": {GPU_PID}, "tid": 0, "args": {{"name": "stream 0 "}}}}')
    meta.append(f'{{"name": "thread_name", "ph": "M", "ts": {us(START_NS)}, "pid": {HOST_PID}, "tid": {HOST_PID}, "args": {{"name": "thread {HOST_PID} (VllmWorker)"}}}}')
    t.events.extend(meta)

    now = START_NS + 150_000
    gpu_free = now
    for step in range(STEPS):
        step_begin = now
        annotation_at = len(t.events)  # the annotation is written first, its end known later
        annotation_ext, annotation_index = t.next_external()
        # Input preparation: token ids and positions copied to the device.
        copy_begin = now + 12_000
        ext = t.op("aten::copy_", copy_begin, copy_begin + 31_000)
        corr = t.next_correlation()
        rt_begin = copy_begin + 9_000
        t.x("cuda_runtime", "hipMemcpyWithStream", HOST_PID, HOST_PID, rt_begin, rt_begin + 18_000,
            f'"External id": {ext}, "cid": 60, "correlation": {corr}')
        g0 = max(gpu_free, rt_begin + 6_000)
        t.x("gpu_memcpy", "Memcpy HtoD (Host -> Device)", GPU_PID, 0, g0, g0 + 3_000,
            f'"External id": {ext}, "device": {GPU_PID}, "stream": 0, "correlation": {corr}, "kind": "HtoD"')
        t.flow(corr, rt_begin, g0)
        gpu_free = g0 + 3_000
        now = copy_begin + 45_000
        # The model's piecewise graphs, replayed one after the other.
        for graph in range(GRAPHS_PER_STEP):
            corr = t.next_correlation()
            launch_begin = now
            t.x("cuda_runtime", "hipGraphLaunch", HOST_PID, HOST_PID, launch_begin, launch_begin + 11_000,
                f'"cid": 335, "correlation": {corr}')
            graph_begin = max(gpu_free, launch_begin + 14_000)
            kernel_at = graph_begin
            for k in range(KERNELS_PER_GRAPH):
                name, dur = GRAPH_KERNELS[k % len(GRAPH_KERNELS)]
                if graph == RECORDED_GRAPH:
                    t.kernel(name, kernel_at, kernel_at + dur, corr)
                kernel_at += dur + 1_500  # the graph's own dispatch gap
            gpu_free = kernel_at
            now = launch_begin + 19_000
        # Sampling: eager kernels once the graphs are done.
        now = max(now, gpu_free - 60_000)
        for op_name, kernel_name, dur in SAMPLING:
            op_begin = now
            ext = t.op(op_name, op_begin, op_begin + 24_000)
            corr = t.next_correlation()
            rt_begin = op_begin + 8_000
            t.x("cuda_runtime", "hipLaunchKernel", HOST_PID, HOST_PID, rt_begin, rt_begin + 7_000,
                f'"External id": {ext}, "cid": 107, "correlation": {corr}, '
                f'"grid": [1, 1, 1], "block": [512, 1, 1], "shared memory": 0')
            g0 = max(gpu_free, rt_begin + 5_000)
            t.kernel(kernel_name, g0, g0 + dur, corr, ext)
            t.flow(corr, rt_begin, g0)
            gpu_free = g0 + dur
            now = op_begin + 27_000
        # The sampled tokens back to the host: the copy waits for the GPU.
        copy_begin = max(now, gpu_free - 20_000)
        corr = t.next_correlation()
        g0 = max(gpu_free, copy_begin + 10_000)
        ext = t.op("aten::copy_", copy_begin, g0 + 12_000)
        t.x("cuda_runtime", "hipMemcpyWithStream", HOST_PID, HOST_PID, copy_begin + 6_000, g0 + 9_000,
            f'"External id": {ext}, "cid": 60, "correlation": {corr}')
        t.x("gpu_memcpy", "Memcpy DtoH (Device -> Host)", GPU_PID, 0, g0, g0 + 2_500,
            f'"External id": {ext}, "device": {GPU_PID}, "stream": 0, "correlation": {corr}, "kind": "DtoH"')
        t.flow(corr, copy_begin + 6_000, g0)
        gpu_free = g0 + 2_500
        step_end = g0 + 20_000
        t.events.insert(annotation_at,
                        f'{{"ph": "X", "cat": "user_annotation", "name": "execute_model", "pid": {HOST_PID}, '
                        f'"tid": {HOST_PID}, "ts": {us(step_begin)}, "dur": {us(step_end - step_begin)}, '
                        f'"args": {{"External id": {annotation_ext}, "Ev Idx": {annotation_index}}}}}')
        now = step_end + 310_000  # the scheduler between steps
    t.events.append(f'{{"name": "Iteration Start: PyTorch Profiler", "ph": "i", "s": "g", "pid": "Traces", '
                    f'"tid": "Trace PyTorch Profiler", "ts": {us(START_NS)}}}')
    t.events.append(f'{{"name": "Record Window End", "ph": "i", "s": "g", "pid": "", "tid": "", "ts": {us(now)}}}')

    lines = ["{"]
    for key, value in HEADER.items():
        lines.append(f'  "{key}": {json.dumps(value)},')
    lines.append('  "traceEvents": [')
    lines.append(",\n".join("  " + e for e in t.events))
    lines.append("  ],")
    lines.append('  "traceName": "/tmp/vllm_profile/dp0_pp0_tp0_dcp0_ep0_rank0.1767190031512377125.pt.trace.json.gz",')
    lines.append('  "displayTimeUnit": "ms",')
    lines.append(f'  "baseTimeNanoseconds": {BASE_NS}')
    lines.append("}")
    return "\n".join(lines) + "\n"


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "graph-replay-decode")
    os.makedirs(out, exist_ok=True)
    text = build()
    json.loads(text)  # valid JSON
    path = os.path.join(out, "torch_profile.json")
    with open(path, "w", newline="\n") as f:
        f.write(text)
    print(path, len(text), "bytes")


if __name__ == "__main__":
    main()
