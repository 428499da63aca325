#!/usr/bin/env python3
"""A small ResNet-50-style Kineto trace for the Timeline's host lanes (tests/widgets/tst_tracelanes).

Two ProfilerSteps of 100 ms on pid 100: each starts with a 40 ms enumerate(DataLoader) range
(the GPU idle under it), then an nn.Module forward whose convolutions nest four CPU operators deep
before their cudaLaunchKernel (depth 5 under the step), a backward on a second thread (tid 101),
and an Optimizer.step record_function. Every launch has its correlation id on both ends and an
ac2g flow pair, as Kineto writes them.

    python3 make_host_lanes_fixture.py        # writes hostlanes-resnet/torch_profile.json and
                                              # hostlanes-resnet.expected (the independent count)

The expected file holds, for a few ranges, what the range budget must say, computed here from the
events alone: GPU busy = union of the GPU events; host active = union of the cpu_op events and the
DataLoader ranges; idle with the host busy = host active minus busy; data wait = the DataLoader
ranges minus busy (all in ns, inside the range).
"""
import json
import os

PID, MAIN, BWD = 100, 100, 101
events = []
correlation = [1000]


def x(cat, name, ts, dur, tid=MAIN, args=None, pid=PID):
    e = {"ph": "X", "cat": cat, "name": name, "pid": pid, "tid": tid, "ts": ts, "dur": dur}
    if args is not None:
        e["args"] = args
    events.append(e)
    return e


def launch(ts, kernel, kts, kdur, tid):
    c = correlation[0]
    correlation[0] += 1
    x("cuda_runtime", "cudaLaunchKernel", ts, 60, tid, {"correlation": c, "External id": c})
    x("kernel", kernel, kts, kdur, 7, {"device": 0, "stream": 7, "correlation": c, "External id": c}, pid=0)
    events.append({"ph": "s", "id": c, "pid": PID, "tid": tid, "ts": ts, "cat": "ac2g", "name": "ac2g"})
    events.append({"ph": "f", "id": c, "pid": 0, "tid": 7, "ts": kts, "cat": "ac2g", "name": "ac2g", "bp": "e"})


T = 1_000_000  # µs
for step in range(2):
    t0 = T + step * 100_000
    x("user_annotation", f"ProfilerStep#{step}", t0, 100_000)
    x("user_annotation", "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__", t0 + 10, 40_000)
    x("cpu_op", "aten::stack", t0 + 39_000, 900)
    x("python_function", "nn.Module: ResNet_0", t0 + 40_100, 19_900)
    for i in range(10):
        s = t0 + 40_200 + i * 1_900
        x("cpu_op", "aten::conv2d", s, 1_500)
        x("cpu_op", "aten::convolution", s + 50, 1_400)
        x("cpu_op", "aten::cudnn_convolution", s + 100, 1_300)
        launch(s + 200, "implicit_convolve_sgemm", s + 400, 1_500, MAIN)
    x("cpu_op", "autograd::engine::evaluate_function: ConvolutionBackward0", t0 + 60_500, 18_500, BWD)
    x("cpu_op", "aten::convolution_backward", t0 + 60_600, 18_000, BWD)
    for i in range(4):
        launch(t0 + 61_000 + i * 4_000, "wgrad_alg0_engine", t0 + 62_000 + i * 4_000, 3_000, BWD)
    x("user_annotation", "Optimizer.step#SGD.step", t0 + 80_000, 10_000)
    x("cpu_op", "aten::add_", t0 + 80_100, 500)
    launch(t0 + 80_200, "vectorized_elementwise_kernel", t0 + 80_700, 800, MAIN)

doc = {"schemaVersion": 1, "traceEvents": events, "traceName": "hostlanes-resnet"}
here = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(here, "hostlanes-resnet", "torch_profile.json"), "w") as f:
    json.dump(doc, f, indent=None, separators=(",", ":"))
    f.write("\n")


def union(intervals):
    out = []
    for a, b in sorted(intervals):
        if b <= a:
            continue
        if out and a <= out[-1][1]:
            out[-1][1] = max(out[-1][1], b)
        else:
            out.append([a, b])
    return out


def measure(u, a, b):
    return sum(max(0, min(e, b) - max(s, a)) for s, e in u)


def minus(u, v):  # u − v, both unions
    out = []
    for s, e in u:
        cur = s
        for vs, ve in v:
            if ve <= cur or vs >= e:
                continue
            if vs > cur:
                out.append([cur, vs])
            cur = max(cur, ve)
        if cur < e:
            out.append([cur, e])
    return out


ns = lambda us: us * 1000
busy = union([(ns(e["ts"]), ns(e["ts"] + e["dur"])) for e in events if e.get("cat") == "kernel"])
data = union([(ns(e["ts"]), ns(e["ts"] + e["dur"])) for e in events if "DataLoader" in e["name"] and e["ph"] == "X"])
cpu = union([(ns(e["ts"]), ns(e["ts"] + e["dur"])) for e in events if e.get("cat") == "cpu_op"])
active = union(cpu + data)
with open(os.path.join(here, "hostlanes-resnet.expected"), "w") as f:
    f.write("# startNs endNs busyNs idleNs hostActiveNs idleHostBusyNs idleDataLoadingNs (make_host_lanes_fixture.py)\n")
    for a_us, b_us in [(T, T + 100_000), (T + 20_000, T + 70_000), (T + 95_000, T + 145_000), (T, T + 200_000)]:
        a, b = ns(a_us), ns(b_us)
        bz = measure(busy, a, b)
        f.write(f"{a} {b} {bz} {b - a - bz} {measure(active, a, b)} {measure(minus(active, busy), a, b)} "
                f"{measure(minus(data, busy), a, b)}\n")
