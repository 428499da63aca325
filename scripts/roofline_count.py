#!/usr/bin/env python3
"""Independent count of FLOPs, bytes and achieved rates per op of a Kineto trace (docs/roofline.md).

Reads the raw trace (.json or .json.gz) with the Python standard library only and applies the
formulas of docs/roofline.md to each op's recorded "Input Dims", "Input type" and (convolution
forward, attention) "Concrete Inputs", without any code
of the workbench. Rows are (op name, Input Dims) as in the report's `ops[]`; the distinct "Input
type" lists of a row's calls are each costed and must agree. Device self time per row (the GPU
events an op launched itself) is counted by scripts/attribution_count.py, itself an independent
count of docs/attribution.md. The roof is the GPU table's (resources/gpus.json) for the trace's
deviceProperties name.

Usage:
  roofline_count.py TRACE                       print the modelled rows as JSON
  roofline_count.py TRACE --compare REPORT.json compare flops, bytes, achieved_tflops,
      achieved_tbps, roof_tflops, efficiency and time_at_roof_s of every row with the report's
      `ops[]` (goblin-workbench report --json); exit 1 on any difference (relative 1e-12, i.e.
      the last bits of a double) or on a row modelled by one side only.
"""

from __future__ import annotations

import argparse
import gzip
import json
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import attribution_count  # noqa: E402  (stdlib only, an independent count of device self time)

OP_CATS = {"cpu_op", "Operator"}
REL_TOL = 1e-12

BPE = {"float": 4, "int": 4, "unsigned int": 4, "double": 8, "long int": 8, "long": 8, "c10::complex<float>": 8,
       "c10::Half": 2, "c10::BFloat16": 2, "short int": 2, "short": 2, "signed char": 1, "unsigned char": 1,
       "bool": 1, "c10::complex<double>": 16}
ROOF_DTYPE = {"float": "fp32", "double": "fp64", "c10::Half": "fp16", "c10::BFloat16": "bf16", "signed char": "int8"}

ELEMENTWISE = set("""add add_ sub sub_ mul mul_ div div_ maximum minimum where addcmul_ addcdiv_ lerp_ relu relu_
gelu silu silu_ sigmoid sigmoid_ tanh tanh_ neg exp exp_ log rsqrt sqrt abs reciprocal erf pow clamp clamp_ clamp_min
clamp_min_ hardtanh hardtanh_ threshold_backward gelu_backward silu_backward sigmoid_backward tanh_backward
hardtanh_backward""".split())
REDUCTIONS = set("sum mean amax amin max min norm linalg_vector_norm var std var_mean argmax prod".split())


def bpe(dtype):
    if isinstance(dtype, str) and dtype.startswith("c10::Float8_"):
        return 1
    return BPE.get(dtype, 0)


def roof_dtype(dtype):
    if dtype.startswith("c10::Float8_"):
        return "fp8"
    return ROOF_DTYPE.get(dtype)


def prod(xs):
    n = 1
    for x in xs:
        n *= x
    return n


class T:
    """A tensor input: dims (list of int) and dtype."""

    def __init__(self, dims, dtype):
        self.dims, self.dtype, self.b = dims, dtype, bpe(dtype)

    @property
    def n(self):
        return prod(self.dims)

    @property
    def bytes(self):
        return self.n * self.b


def tensors(dims, types):
    out = []
    for d, t in zip(dims, types):
        ok = isinstance(d, list) and all(isinstance(x, int) and not isinstance(x, bool) and x >= 0 for x in d)
        out.append(T(d, t) if ok and bpe(t) > 0 else None)
    return out


def broadcast(shapes):
    rank = max(len(s) for s in shapes)
    out = [1] * rank
    for s in shapes:
        for i, d in enumerate(s):
            j = rank - len(s) + i
            if d == out[j] or d == 1:
                continue
            if out[j] != 1:
                return None
            out[j] = d
    return out


# Where each convolution op keeps (bias, stride, padding, dilation, transposed, output_padding, groups)
# in its arguments (native_functions.yaml); None: not an argument; transposed True/False: fixed.
CONV_ARGS = {
    "convolution": (2, 3, 4, 5, 6, 7, 8), "_convolution": (2, 3, 4, 5, 6, 7, 8),
    "conv1d": (2, 3, 4, 5, False, None, 6), "conv2d": (2, 3, 4, 5, False, None, 6),
    "conv3d": (2, 3, 4, 5, False, None, 6),
    "cudnn_convolution": (None, 3, 2, 4, False, None, 5),
    "miopen_convolution": (2, 4, 3, 5, False, None, 6),
    "conv_transpose1d": (2, 3, 4, 7, True, 5, 6), "conv_transpose2d": (2, 3, 4, 7, True, 5, 6),
    "conv_transpose3d": (2, 3, 4, 7, True, 5, 6),
}


def causal_index(op, n):
    """(index of is_causal in Concrete Inputs, is an int custom_mask_type) by the argument count."""
    if op == "scaled_dot_product_attention":
        return (5, False) if n >= 6 else None
    if op == "_scaled_dot_product_flash_attention":
        return (4, False) if n >= 5 else None
    if op == "_scaled_dot_product_efficient_attention":
        return (4, False) if n == 5 else (6, False) if n >= 8 else None
    if op == "_scaled_dot_product_cudnn_attention":
        return (4, False) if n == 7 else (6, False) if n >= 9 else None
    if op == "_flash_attention_forward":
        return (8, False) if n >= 9 else None
    if op == "_efficient_attention_forward":
        return (9, True) if n >= 10 else None
    if op in ("_scaled_dot_product_flash_attention_backward", "_flash_attention_backward"):
        return (11, False) if n >= 12 else None
    if op == "_scaled_dot_product_efficient_attention_backward":
        return (6, False) if n == 8 else (11, False) if n >= 12 else None
    if op == "_scaled_dot_product_cudnn_attention_backward":
        return (14, False) if n >= 15 else None
    if op == "_efficient_attention_backward":
        return (14, True) if n >= 15 else None
    return None


def int_list(text, rank, default):
    """'[2, 2]', '2' or '' (default) as `rank` numbers; None when it is none of these."""
    text = text.strip()
    if text == "":
        return [default] * rank
    inner = text[1:-1] if text.startswith("[") and text.endswith("]") else text
    try:
        vals = [int(x) for x in inner.split(",") if x.strip() != ""]
    except ValueError:
        return None
    if len(vals) == 1:
        vals = vals * rank
    if len(vals) != rank or any(v < 0 for v in vals):
        return None
    return vals


def conv_forward(op, t, concrete):
    bad = "the recorded shapes do not fit the op's formula"
    X, W = (t[0] if t else None), (t[1] if len(t) > 1 else None)
    if not X or not W or len(W.dims) < 3 or len(X.dims) != len(W.dims):
        return bad
    if concrete is None:
        return "no Concrete Inputs recorded"
    bias_i, s_i, p_i, d_i, tr_i, op_i, g_i = CONV_ARGS[op]
    args = concrete
    if len(args) <= g_i:
        return "Concrete Inputs do not fit"
    arg = lambda i: args[i] if i is not None and i < len(args) else ""
    rank = len(X.dims) - 2
    ptext = arg(p_i).strip()
    same = ptext == "same"
    pad = [0] * rank if ptext in ("same", "valid") else int_list(ptext, rank, 0)
    stride, dil, opad = int_list(arg(s_i), rank, 1), int_list(arg(d_i), rank, 1), int_list(arg(op_i), rank, 0)
    gtext = arg(g_i).strip()
    try:
        groups = int(gtext) if gtext else 1
    except ValueError:
        return "Concrete Inputs do not fit"
    if None in (pad, stride, dil, opad) or groups < 1:
        return "Concrete Inputs do not fit"
    if isinstance(tr_i, bool):
        transposed = tr_i
    else:
        if arg(tr_i).strip() not in ("True", "False"):
            return "Concrete Inputs do not fit"
        transposed = arg(tr_i).strip() == "True"
    if (W.dims[0] != X.dims[1]) if transposed else (W.dims[1] * groups != X.dims[1]):
        return bad
    out = [X.dims[0], W.dims[1] * groups if transposed else W.dims[0]]
    for i in range(rank):
        n, k = X.dims[2 + i], W.dims[2 + i]
        if same:
            o = n
        elif transposed:
            o = (n - 1) * stride[i] - 2 * pad[i] + dil[i] * (k - 1) + opad[i] + 1
        else:
            o = (n + 2 * pad[i] - dil[i] * (k - 1) - 1) // max(1, stride[i]) + 1
        if o < 1:
            return bad
        out.append(o)
    n_out = prod(out)
    f = 2 * (X.n if transposed else n_out) * prod(W.dims[1:])
    by = X.bytes + W.bytes + n_out * X.b
    B = t[bias_i] if bias_i is not None and bias_i < len(t) else None
    if B:
        f += n_out
        by += B.bytes
    return f, by, X.dtype


def cost(op, dims, types, concrete=None):
    """(flops, bytes, math dtype) of one call, or a string saying why not. `concrete`: the call's
    "Concrete Inputs" (a list of strings) for the ops that need them, else None."""
    if len(dims) != len(types) or not dims:
        return "Input Dims and Input type do not pair up"
    t = tensors(dims, types)

    def at(i):
        return t[i] if i < len(t) else None

    bad = "the recorded shapes do not fit the op's formula"
    if op in ("mm", "addmm"):
        a = 0 if op == "mm" else 1
        A, B = at(a), at(a + 1)
        if not A or not B or len(A.dims) != 2 or len(B.dims) != 2 or A.dims[1] != B.dims[0]:
            return bad
        m, k, n = A.dims[0], A.dims[1], B.dims[1]
        f, by = 2 * m * n * k, (m * k + n * k + m * n) * A.b
        if op == "addmm" and at(0):
            f += m * n
            by += at(0).bytes
        return f, by, A.dtype
    if op in ("bmm", "baddbmm"):
        a = 0 if op == "bmm" else 1
        A, B = at(a), at(a + 1)
        if not A or not B or len(A.dims) != 3 or len(B.dims) != 3 or A.dims[2] != B.dims[1] or A.dims[0] != B.dims[0]:
            return bad
        bt, m, k, n = A.dims[0], A.dims[1], A.dims[2], B.dims[2]
        f, by = 2 * bt * m * n * k, bt * (m * k + n * k + m * n) * A.b
        if op == "baddbmm" and at(0):
            f += bt * m * n
            by += at(0).bytes
        return f, by, A.dtype
    if op == "matmul":
        X, Y = at(0), at(1)
        if not X or not Y or not X.dims or not Y.dims:
            return bad
        k = X.dims[-1]
        ky = Y.dims[0] if len(Y.dims) == 1 else Y.dims[-2]
        if k != ky:
            return bad
        m = 1 if len(X.dims) == 1 else X.dims[-2]
        n = 1 if len(Y.dims) == 1 else Y.dims[-1]
        batch = broadcast([X.dims[:-2] if len(X.dims) > 2 else [], Y.dims[:-2] if len(Y.dims) > 2 else []])
        if batch is None:
            return bad
        bt = prod(batch)
        return 2 * bt * m * n * k, X.bytes + Y.bytes + bt * m * n * X.b, X.dtype
    if op == "linear":
        X, W = at(0), at(1)
        if not X or not W or not X.dims or len(W.dims) != 2 or X.dims[-1] != W.dims[1]:
            return bad
        k, n = X.dims[-1], W.dims[0]
        m = X.n / max(1, k)
        f, by = 2 * m * n * k, X.bytes + W.bytes + m * n * X.b
        if at(2):
            f += m * n
            by += at(2).bytes
        return f, by, X.dtype
    if op in ("convolution_backward", "cudnn_convolution_backward", "miopen_convolution_backward"):
        go, x = (0, 1) if op == "convolution_backward" else (1, 0)
        G, X, W = at(go), at(x), at(2)
        if not G or not X or not W or len(W.dims) < 3 or len(G.dims) != len(W.dims) or len(X.dims) != len(W.dims):
            return bad
        return 2 * G.n * (2 * prod(W.dims[1:])), 2 * (G.bytes + X.bytes + W.bytes), X.dtype
    if op in CONV_ARGS:
        return conv_forward(op, t, concrete)
    sdpa = {"scaled_dot_product_attention": (False, False), "_scaled_dot_product_flash_attention": (False, False),
            "_scaled_dot_product_efficient_attention": (False, False),
            "_scaled_dot_product_cudnn_attention": (False, False),
            "_flash_attention_forward": (False, True), "_efficient_attention_forward": (False, True),
            "_scaled_dot_product_flash_attention_backward": (True, False),
            "_scaled_dot_product_efficient_attention_backward": (True, False),
            "_scaled_dot_product_cudnn_attention_backward": (True, False),
            "_flash_attention_backward": (True, True), "_efficient_attention_backward": (True, True)}
    if op in sdpa:
        backward, bnhd = sdpa[op]
        f0 = 1 if backward else 0
        Q, K, V = at(f0), at(f0 + 1), at(f0 + 2)
        if not Q or not K or not V or len(Q.dims) != 4 or len(K.dims) != 4 or len(V.dims) != 4:
            return bad
        b = Q.dims[0]
        h, nq = (Q.dims[2], Q.dims[1]) if bnhd else (Q.dims[1], Q.dims[2])
        nkv = K.dims[1] if bnhd else K.dims[2]
        d, dv = Q.dims[3], V.dims[3]
        out = b * h * nq * dv
        share = 1.0
        if concrete is not None:  # is_causal: half of QK^T is masked (Nq = Nkv only)
            where = causal_index(op, len(concrete))
            if where is None:
                return "Concrete Inputs do not fit"
            v = concrete[where[0]].strip()
            if where[1]:
                try:
                    causal = int(v) != 0
                except ValueError:
                    return "Concrete Inputs do not fit"
            elif v in ("True", "False"):
                causal = v == "True"
            else:
                return "Concrete Inputs do not fit"
            if causal and nq != nkv:
                return "causal with Nq != Nkv"
            share = 0.5 if causal else 1.0
        if not backward:
            return 2 * b * h * nq * nkv * (d + dv) * share, Q.bytes + K.bytes + V.bytes + out * Q.b, Q.dtype
        return (2 * b * h * nq * nkv * (3 * d + 2 * dv) * share, 2 * (Q.bytes + K.bytes + V.bytes) + 2 * out * Q.b,
                Q.dtype)
    if op in ("layer_norm", "native_layer_norm", "rms_norm", "_fused_rms_norm"):
        X = at(0)
        if not X:
            return bad
        layer = "layer" in op
        by = 2 * X.bytes + sum(at(i).bytes for i in ((2, 3) if layer else (2,)) if at(i))
        return (5 if layer else 4) * X.n, by, X.dtype
    if op == "native_layer_norm_backward":
        G, X = at(0), at(1)
        if not G or not X:
            return bad
        by = G.bytes + 2 * X.bytes + sum((2 if i >= 5 else 1) * at(i).bytes for i in (3, 4, 5, 6) if at(i))
        return 8 * X.n, by, X.dtype
    if op in ("batch_norm", "native_batch_norm", "cudnn_batch_norm", "miopen_batch_norm", "_batch_norm_impl_index"):
        X = at(0)
        if not X:
            return bad
        return 5 * X.n, 2 * X.bytes + sum(at(i).bytes for i in (1, 2, 3, 4) if at(i)), X.dtype
    if op in ("softmax", "_softmax", "log_softmax", "_log_softmax"):
        X = at(0)
        return (3 * X.n, 2 * X.bytes, X.dtype) if X else bad
    if op in ("_softmax_backward_data", "_log_softmax_backward_data"):
        G, O = at(0), at(1)
        return (3 * G.n, 2 * G.bytes + O.bytes, G.dtype) if G and O else bad
    if op == "embedding":
        W, I = at(0), at(1)
        if not W or not I or len(W.dims) != 2:
            return bad
        return 0, 2 * I.n * W.dims[1] * W.b + I.bytes, W.dtype
    if op in ("fill_", "zero_"):
        S = at(0)
        return (0, S.bytes, S.dtype) if S else bad
    if op == "copy_":
        S, R = at(0), at(1)
        return (0, S.bytes + R.bytes, S.dtype) if S and R else bad
    if op in ELEMENTWISE:
        ts = [x for x in t if x]
        if not ts:
            return bad
        out = broadcast([x.dims for x in ts])
        if out is None:
            return bad
        n = prod(out)
        return n, n * ts[0].b + sum(x.bytes for x in ts), ts[0].dtype
    if op in REDUCTIONS:
        X = at(0)
        return (X.n, X.bytes, X.dtype) if X else bad
    return None  # no model


def squeezed(name):
    return "".join(c.lower() for c in name if c.isalnum())


def roof_for(name, table):
    s = squeezed(name or "")
    if not s:
        return None
    for e in table["gpus"]:
        if all(m in s for m in e.get("match", [])) and not any(x in s for x in e.get("exclude", [])):
            for r in e.get("roofs", []):
                if all(m in s for m in r.get("match", [])) and not any(x in s for x in r.get("exclude", [])):
                    return r
            return None
    return None


def count(path, table):
    events = attribution_count.load(path)
    types = {}  # (name, dims text) -> list of distinct Input type lists, in order met
    doc = None
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rb") as f:
        doc = json.loads(f.read().decode("utf-8", "replace"))
    props = doc.get("deviceProperties") if isinstance(doc, dict) else None
    device = props[0].get("name") if isinstance(props, list) and props and isinstance(props[0], dict) else None
    concretes = {}  # (name, dims text) -> distinct Concrete Inputs lists, for the ops whose cost needs them
    for e in events:
        if not isinstance(e, dict) or e.get("ph") != "X" or e.get("cat") not in OP_CATS:
            continue
        args = e.get("args") if isinstance(e.get("args"), dict) else {}
        if "Input Dims" not in args or not isinstance(e.get("name"), str):
            continue
        key = (e["name"], attribution_count.shapes_text(args))
        name = e["name"][6:] if e["name"].startswith("aten::") else None
        if name is not None and (name in CONV_ARGS or causal_index(name, 99) is not None) and \
                isinstance(args.get("Concrete Inputs"), list):
            lst = concretes.setdefault(key, [])
            text = json.dumps(args["Concrete Inputs"], separators=(",", ":"))
            if text not in lst:
                lst.append(text)
        it = args.get("Input type")
        if it is None:
            continue
        lst = types.setdefault(key, [])
        text = json.dumps(it, separators=(",", ":"))
        if text not in lst:
            lst.append(text)
    rows, _ = attribution_count.count(path)
    roof = roof_for(device, table)
    out = {}
    for (name, shapes), r in rows.items():
        if shapes is None or shapes == attribution_count.RUNTIME_CALL or not name.startswith("aten::"):
            continue
        lists = types.get((name, shapes), [])
        if not lists:
            continue
        dims = json.loads(shapes)
        conc = [json.loads(c) for c in concretes.get((name, shapes), [])] or [None]
        costs = [cost(name[6:], dims, json.loads(t), c) for t in lists for c in conc]
        if any(not isinstance(c, tuple) for c in costs):
            continue
        if any((c[0], c[1], roof_dtype(c[2])) != (costs[0][0], costs[0][1], roof_dtype(costs[0][2])) for c in costs):
            continue  # its calls ran with different dtypes: unknown
        f1, b1, dtype = costs[0]
        calls = r["calls"] or 1
        row = {"flops": f1 * calls, "bytes": b1 * calls}
        self_ns = r["device_self"]
        if self_ns > 0:
            seconds = self_ns / 1e9
            row["achieved_tflops"] = row["flops"] / seconds / 1e12
            row["achieved_tbps"] = row["bytes"] / seconds / 1e12
        if roof is not None:
            bw = roof["hbm_tbps"]["value"]
            rd = roof_dtype(dtype)
            peak = roof["peak_tflops"].get(rd, {}).get("value") if rd else None
            if row["flops"] == 0 or peak:
                compute_s = row["flops"] / (peak * 1e12) if row["flops"] > 0 else 0.0
                at_roof = max(compute_s, row["bytes"] / (bw * 1e12))
                row["time_at_roof_s"] = at_roof
                if row["flops"] > 0 and row["bytes"] > 0:
                    row["roof_tflops"] = min(peak, row["flops"] / row["bytes"] * bw)
                if at_roof > 0 and self_ns > 0:
                    row["efficiency"] = 100.0 * at_roof / (self_ns / 1e9)
        out[(name, shapes)] = row
    return out, device, roof


KEYS = ("flops", "bytes", "achieved_tflops", "achieved_tbps", "roof_tflops", "efficiency", "time_at_roof_s")


def compare(rows, report_path):
    with open(report_path) as f:
        report = json.load(f)
    got = {}
    for r in report.get("ops", []):
        if r.get("kind") == "runtime_call":
            continue
        got[(r["name"], r.get("input_shapes"))] = r
    problems, compared, worst = [], 0, 0.0
    for k, g in got.items():
        mine = rows.get(k, {})
        for key in KEYS:
            theirs = (g.get(key) or {}).get("value")
            want = mine.get(key)
            if (theirs is None) != (want is None):
                problems.append(f"{k} {key}: report {theirs} vs count {want}")
                continue
            if want is None:
                continue
            compared += 1
            diff = abs(theirs - want) / max(abs(want), 1e-300) if want else abs(theirs)
            worst = max(worst, diff)
            if not math.isclose(theirs, want, rel_tol=REL_TOL, abs_tol=0.0):
                problems.append(f"{k} {key}: report {theirs!r} vs count {want!r}")
    for k in rows:
        if k not in got:
            problems.append(f"row {k} counted here, not in the report")
    print(f"rows modelled {len(rows)}, values compared {compared}, worst relative difference {worst:.3g}: "
          f"{'OK' if not problems else 'MISMATCH'}")
    for p in problems[:20]:
        print("  ", p)
    return not problems


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("trace")
    ap.add_argument("--compare", metavar="REPORT_JSON")
    ap.add_argument("--gpus", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "resources",
                                                   "gpus.json"))
    opts = ap.parse_args()
    with open(opts.gpus) as f:
        table = json.load(f)
    rows, device, roof = count(opts.trace, table)
    if opts.compare:
        print(f"device {device!r}, roof {roof['model'] if roof else None}")
        return 0 if compare(rows, opts.compare) else 1
    json.dump({"device": device, "roof": roof["model"] if roof else None,
               "ops": [dict(name=k[0], input_shapes=k[1], **v) for k, v in rows.items()]}, sys.stdout, indent=1)
    print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
