#!/usr/bin/env python3
"""An independent count of the traits of Kineto traces (issue 23 item 3), with Python's json
module, for the expected values of tests/parsers/kineto/tst_tracetraits.cpp and
tests/model/tst_runtraits.cpp. It reads each file whole (gzip or plain) and applies the rules the
consumer documents (src/parsers/workbench/tracetraitsconsumer.cpp), written here from the rule
text, not from the C++:

  * only complete events ("ph": "X") count;
  * graph launch: a runtime call (cat cuda_runtime, cuda_driver, Runtime) named hipGraphLaunch,
    cudaGraphLaunch or cuGraphLaunch, alone or with an "_..." suffix; capture: a runtime call
    named {hip,cuda,cu}StreamBeginCapture* or {hip,cuda,cu}GraphInstantiate*;
  * GPU event (cat kernel, gpu_memcpy, gpu_memset, Kernel, Memcpy, Memset) in a graph: its
    args.correlation is a graph launch's correlation (anywhere in the file), or its args["graph
    id"] is a nonzero integer; per launch, the GPU events sharing its correlation;
  * CPU operators: cat cpu_op or Operator. Backward: the name starts with
    "autograd::engine::evaluate_function:" or ends with "Backward" + digits. Optimizer:
    Optimizer.step#... / Optimizer.zero_grad#... (user_annotation, or Operator/cpu_op) and
    aten::_fused_adam*/_fused_sgd*/_fused_adagrad* operators (other aten:: operators count as
    neither backward nor DataLoader). DataLoader: CPU operators or user_annotation ranges whose
    name contains "DataLoader";
  * nn.Module frames: python_function named "nn.Module: ...";
  * identity: distributedInfo rank, world_size, backend, pg_config[0]; deviceProperties name,
    totalGlobalMem, numSms; the runtime API from the runtime calls' names (hip... vs cu...), without
    calls from the first backend version key (roctracer_version... HIP, cupti_version... CUDA).

With --timeline it also checks the GPU timeline as tests/model/tst_runtraits.cpp expects
(src/model/runtraits.cpp states the same rules):

  * GPU events: complete events of the GPU categories with integer args.device and args.stream,
    times in exact ns (json's floats read as decimals);
  * overlapping kernels: per (device, stream), kernels (cat kernel/Kernel) longer than 0 ns sorted
    by (start, end); a kernel counts when the latest end of the kernels before it exceeds its
    start by more than 1000 ns;
  * outside the steps: the file's step windows are the CPU-lane ProfilerStep#... ranges
    (user_annotation, cpu_op, Operator), else the GPU-lane ones (gpu_user_annotation
    ProfilerStep#... and Optimizer.step...); a GPU event counts when it meets no window (an
    event of 0 ns when it lies in none).

usage: trace_traits.py [--timeline] FILE...   (prints one block per file)
"""
import decimal
import gzip
import json
import re
import sys

GPU_CATS = {"kernel", "gpu_memcpy", "gpu_memset", "Kernel", "Memcpy", "Memset"}
RUNTIME_CATS = {"cuda_runtime", "cuda_driver", "Runtime"}
LAUNCH = re.compile(r"^(hip|cuda|cu)GraphLaunch(_.*)?$")
CAPTURE = re.compile(r"^(hip|cuda|cu)(StreamBeginCapture|GraphInstantiate)")
BACKWARD = re.compile(r"^autograd::engine::evaluate_function:|Backward[0-9]*$")
FUSED_OPT = re.compile(r"^aten::_fused_(adam|sgd|adagrad)")


def as_int(v):
    if isinstance(v, bool):
        return None
    if isinstance(v, int):
        return v
    if isinstance(v, str) and re.fullmatch(r"-?[0-9]+", v):
        return int(v)
    return None


def ranks_text(ranks):
    out, i = [], 0
    while i < len(ranks):
        j = i
        while j + 1 < len(ranks) and ranks[j + 1] == ranks[j] + 1:
            j += 1
        out.append(f"{ranks[i]}-{ranks[j]}" if j > i else f"{ranks[i]}")
        i = j + 1
    return ",".join(out)


def count(path):
    opener = gzip.open if open(path, "rb").read(2) == b"\x1f\x8b" else open
    with opener(path, "rb") as f:
        doc = json.loads(f.read())
    events = doc.get("traceEvents", []) if isinstance(doc, dict) else doc
    launches, gpu = [], []
    t = dict(captures=0, cpu_ops=0, backward_ops=0, optimizer_ops=0, optimizer_steps=0, dataloader_ops=0,
             forward_modules=0, hip_calls=0, cuda_calls=0)
    launch_name = ""
    for e in events:
        if not isinstance(e, dict) or e.get("ph") != "X":
            continue
        cat, name = e.get("cat"), e.get("name")
        if not isinstance(cat, str) or not isinstance(name, str):
            continue
        args = e.get("args") if isinstance(e.get("args"), dict) else {}
        if cat in RUNTIME_CATS:
            if name.startswith("hip"):
                t["hip_calls"] += 1
            elif name.startswith("cu"):
                t["cuda_calls"] += 1
            if LAUNCH.match(name):
                c = as_int(args.get("correlation"))
                launches.append(c if c is not None and c >= 0 else None)
                launch_name = launch_name or name
            elif CAPTURE.match(name):
                t["captures"] += 1
        elif cat in GPU_CATS:
            c = as_int(args.get("correlation"))
            g = as_int(args.get("graph id"))
            gpu.append((c if c is not None and c >= 0 else None, g is not None and g != 0))
        elif cat in ("cpu_op", "Operator"):
            t["cpu_ops"] += 1
            if name.startswith("Optimizer.step#"):
                t["optimizer_ops"] += 1
                t["optimizer_steps"] += 1
            elif name.startswith("Optimizer.zero_grad#"):
                t["optimizer_ops"] += 1
            elif FUSED_OPT.match(name):
                t["optimizer_ops"] += 1
            elif name.startswith("aten::"):
                pass  # an ATen operator is neither an autograd node nor a DataLoader range
            elif BACKWARD.search(name):
                t["backward_ops"] += 1
            elif "DataLoader" in name:
                t["dataloader_ops"] += 1
        elif cat == "user_annotation":
            if name.startswith("Optimizer.step#"):
                t["optimizer_ops"] += 1
                t["optimizer_steps"] += 1
            elif name.startswith("Optimizer.zero_grad#"):
                t["optimizer_ops"] += 1
            elif "DataLoader" in name:
                t["dataloader_ops"] += 1
        elif cat == "python_function" and name.startswith("nn.Module: "):
            t["forward_modules"] += 1
    first_launch = {}
    for i, c in enumerate(launches):
        if c is not None and c not in first_launch:
            first_launch[c] = i
    per_launch = [0] * len(launches)
    in_graphs = 0
    for c, graph_id in gpu:
        hit = c is not None and c in first_launch
        if hit:
            per_launch[first_launch[c]] += 1
        if hit or graph_id:
            in_graphs += 1
    t["launches"] = len(launches)
    t["launches_with_gpu_events"] = sum(1 for n in per_launch if n)
    t["gpu_events_in_graphs"] = in_graphs
    t["gpu_events_per_launch"] = [n for n in per_launch if n]
    t["gpu_events"] = len(gpu)
    t["launch_name"] = launch_name

    info = doc.get("distributedInfo") if isinstance(doc, dict) else None
    if isinstance(info, dict):
        t["rank"], t["world_size"], t["backend"] = info.get("rank"), info.get("world_size"), info.get("backend", "")
        pg = info.get("pg_config")
        pg = pg[0] if isinstance(pg, list) and pg else pg if isinstance(pg, dict) else None
        if isinstance(pg, dict):
            parts = [pg.get("pg_desc") or ("pg %s" % pg["pg_name"] if pg.get("pg_name") not in (None, "") else "")]
            if isinstance(pg.get("pg_size"), int):
                parts.append(f"size {pg['pg_size']}")
            if isinstance(pg.get("ranks"), list):
                parts.append("ranks " + ranks_text(pg["ranks"]))
            t["process_group"] = " ".join(p for p in parts if p)
    props = doc.get("deviceProperties") if isinstance(doc, dict) else None
    if isinstance(props, list):
        t["device_names"] = [p.get("name", "") for p in props]
        t["device_memory_bytes"] = [p.get("totalGlobalMem", 0) for p in props]
        t["device_compute_units"] = [p.get("numSms", p.get("maxComputeUnits", 0)) for p in props]
    if t["hip_calls"] or t["cuda_calls"]:
        t["runtime_api"] = "HIP" if t["hip_calls"] >= t["cuda_calls"] else "CUDA"
    elif isinstance(doc, dict):
        for key in doc:  # no calls: the first backend version key
            if key in ("roctracer_version", "rocprofiler-sdk_version", "hip_runtime_version"):
                t["runtime_api"] = "HIP"
                break
            if key in ("cupti_version", "cuda_runtime_version"):
                t["runtime_api"] = "CUDA"
                break
    return t


def ns(v):
    return int((decimal.Decimal(v) if not isinstance(v, decimal.Decimal) else v) * 1000)


def timeline(path):
    opener = gzip.open if open(path, "rb").read(2) == b"\x1f\x8b" else open
    with opener(path, "rb") as f:
        doc = json.loads(f.read(), parse_float=decimal.Decimal)
    events = doc.get("traceEvents", []) if isinstance(doc, dict) else doc
    gpu, cpu_steps, gpu_steps = [], [], []
    for e in events:
        if not isinstance(e, dict) or e.get("ph") != "X":
            continue
        cat, name = e.get("cat"), e.get("name")
        if not isinstance(cat, str) or not isinstance(name, str):
            continue
        try:
            b = ns(e["ts"])
            d = ns(e["dur"])
        except (KeyError, TypeError, decimal.InvalidOperation):
            continue
        if d < 0:
            continue
        if name.startswith("ProfilerStep#") and cat in ("user_annotation", "cpu_op", "Operator"):
            cpu_steps.append((b, b + d))
        elif cat == "gpu_user_annotation" and (name.startswith("ProfilerStep#") or name.startswith("Optimizer.step")):
            gpu_steps.append((b, b + d))
        elif cat in GPU_CATS:
            args = e.get("args") if isinstance(e.get("args"), dict) else {}
            dev, stream = as_int(args.get("device")), as_int(args.get("stream"))
            if dev is not None and stream is not None:
                gpu.append((dev, stream, cat in ("kernel", "Kernel"), b, b + d))
    overlaps = 0
    streams = {}
    for dev, stream, kernel, b, e in gpu:
        if kernel and e > b:
            streams.setdefault((dev, stream), []).append((b, e))
    for ks in streams.values():
        ks.sort()
        latest = None
        for b, e in ks:
            if latest is not None and latest - b > 1000:
                overlaps += 1
            latest = e if latest is None else max(latest, e)
    windows = [w for w in (cpu_steps or gpu_steps) if w[1] > w[0]]
    outside, outside_ns = 0, 0
    if windows:
        for dev, stream, kernel, b, e in gpu:
            inside = any((wb < e and b < we) if e > b else (wb <= b < we) for wb, we in windows)
            if not inside:
                outside += 1
                outside_ns += e - b
    return dict(overlapping_kernels=overlaps, gpu_events_outside_steps=outside if windows else None,
                gpu_ns_outside_steps=outside_ns if windows else None, step_windows=len(windows))


def main(paths):
    with_timeline = "--timeline" in paths
    paths = [p for p in paths if p != "--timeline"]
    for p in paths:
        t = count(p)
        if with_timeline:
            t.update(timeline(p))
        print(p)
        for k in sorted(t):
            v = t[k]
            if k == "gpu_events_per_launch" and len(v) > 24:
                v = f"{v[:24]}... ({len(v)} values, sum {sum(v)}, min {min(v)}, max {max(v)})"
            print(f"  {k}: {v}")


if __name__ == "__main__":
    main(sys.argv[1:])
