#!/usr/bin/env python3
"""Writes the step-plan fixtures (docs/steps.md) and prints their expected numbers.

gpu-optimizer-steps.json  five GPU-lane Optimizer.step#SGD.step windows 0.3-3.3 s apart (and the
                          CPU-lane annotations of the same steps), no ProfilerStep: five steps
cpu-optimizer-steps.json  thirty CPU-lane Optimizer.step#AdamW.step annotations, nothing on the GPU
                          lane, no ProfilerStep: the 29 windows between consecutive ends are the steps
Deterministic; Python 3 standard library only. Run: python3 make_steps.py (in this folder).
"""
import json


def kernel(name, ts, dur):
    return {"ph": "X", "cat": "kernel", "name": name, "pid": 0, "tid": 7, "ts": ts, "dur": dur,
            "args": {"device": 0, "stream": 7}}


def cpu(cat, name, ts, dur):
    return {"ph": "X", "cat": cat, "name": name, "pid": 100, "tid": 100, "ts": ts, "dur": dur}


def write(path, events):
    with open(path, "w") as f:
        json.dump({"schemaVersion": 1, "traceEvents": events}, f, indent=0)


def gpu_optimizer_steps():
    # Steps start at these µs; gaps between them 0.3 … 3.3 s, as in a trace with a long eval pause.
    starts = [1000.0, 301000.0, 1301000.0, 4601000.0, 5201000.0]
    window_us = [30.0, 33.0, 36.0, 31.0, 35.0]
    events, windows = [], []
    for i, t in enumerate(starts):
        events.append(cpu("cpu_op", "aten::mm", t, 50.0))
        events.append(cpu("cuda_runtime", "cudaLaunchKernel", t + 10.0, 5.0))
        events.append(kernel("Cijk_Ailk_Bljk_gemm", t + 60.0, 200.0))
        opt = t + 300.0
        events.append(cpu("user_annotation", "Optimizer.step#SGD.step", opt, 40.0))
        events.append(cpu("cpu_op", "aten::add_", opt + 2.0, 30.0))
        events.append({"ph": "X", "cat": "gpu_user_annotation", "name": "Optimizer.step#SGD.step", "pid": 0,
                       "tid": 7, "ts": opt + 45.0, "dur": window_us[i], "args": {"device": 0, "stream": 7}})
        events.append(kernel("vectorized_elementwise_kernel", opt + 47.0, window_us[i] - 4.0))
        windows.append(window_us[i])
    write("gpu-optimizer-steps.json", events)
    print("gpu-optimizer-steps.json: %d steps, step time %.9f s" % (len(windows), sum(windows) / len(windows) / 1e6))


def cpu_optimizer_steps():
    events, ends = [], []
    t = 1000.0
    for i in range(30):
        period = 10000.0 + 100.0 * (i % 3)
        events.append(cpu("cpu_op", "aten::mm", t, 400.0))
        events.append(cpu("cuda_runtime", "cudaLaunchKernel", t + 10.0, 5.0))
        events.append(kernel("Cijk_Ailk_Bljk_gemm", t + 450.0, 6000.0))
        opt = t + period - 500.0
        events.append(cpu("user_annotation", "Optimizer.step#AdamW.step", opt, 400.0))
        events.append(cpu("cpu_op", "aten::_foreach_add_", opt + 10.0, 300.0))
        events.append(kernel("multi_tensor_apply_kernel", opt + 320.0, 150.0))
        ends.append(opt + 400.0)
        t += period
    write("cpu-optimizer-steps.json", events)
    print("cpu-optimizer-steps.json: %d steps, step time %.9f s" % (len(ends) - 1, (ends[-1] - ends[0]) / (len(ends) - 1) / 1e6))


if __name__ == "__main__":
    gpu_optimizer_steps()
    cpu_optimizer_steps()
