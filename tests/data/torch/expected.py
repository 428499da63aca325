"""Expected values for tests/parsers/kineto/tst_torchtraceparser.cpp (run by hand; the tests never run this).

reference(): profile_parser._read_torch_profile on the (decompressed) bytes saved as torch_profile.json.
workbench(): an independent computation of the workbench definitions with Decimal timestamps: mean
CPU-lane ProfilerStep (a last step under 20 % of the others dropped), else span / optimizer steps,
else span; host busy = |union(CPU ops) ∩ windows| - |… ∩ union(GPU waits)| over |windows|.
Note: Python decides RecursionError by its call depth; the test rows for 993/994 levels follow
oracle.py (parse -> _read_torch_profile), which this script's extra frame shifts by one.
"""
import sys, json, gzip, tempfile, shutil, math
from decimal import Decimal, ROUND_HALF_UP
from pathlib import Path
sys.path.insert(0, '/work/shared/reference')
from agent import profile_parser as pp

def load_bytes(path):
    data = open(path, 'rb').read()
    return gzip.decompress(data) if data[:2] == b'\x1f\x8b' else data

def reference(data):
    d = tempfile.mkdtemp()
    p = Path(d) / 'torch_profile.json'
    p.write_bytes(data)
    try:
        s = pp._read_torch_profile(p, w := [])
        return dict(tokens=s.tokens_per_sec, mfu=s.mfu_pct, version=s.pytorch_version, step=s.step_time_seconds,
                    busy=s.host_busy_fraction, failed=bool(w))
    finally:
        shutil.rmtree(d)

def ns(v):
    if isinstance(v, bool) or not isinstance(v, Decimal) or not v.is_finite():
        return None
    return int((v * 1000).quantize(Decimal(1), rounding=ROUND_HALF_UP))

def union(iv):
    out = []
    for a, b in sorted(iv):
        if b <= a: continue
        if out and a <= out[-1][1]:
            out[-1][1] = max(out[-1][1], b)
        else:
            out.append([a, b])
    return out

def inter(A, B):
    out = []; i = j = 0
    while i < len(A) and j < len(B):
        lo = max(A[i][0], B[j][0]); hi = min(A[i][1], B[j][1])
        if lo < hi: out.append([lo, hi])
        if A[i][1] < B[j][1]: i += 1
        else: j += 1
    return out

def measure(v): return sum(b - a for a, b in v)

def workbench(data):
    doc = json.loads(data, parse_float=Decimal, parse_int=Decimal)
    events = doc if isinstance(doc, list) else doc.get('traceEvents', [])
    steps, busy, wait = [], [], []
    lo = hi = None
    opt = 0
    for e in events:
        if not isinstance(e, dict) or e.get('ph') != 'X': continue
        t, d = ns(e.get('ts')), ns(e.get('dur'))
        if t is None or d is None or d < 0: continue
        lo = t if lo is None else min(lo, t); hi = t + d if hi is None else max(hi, t + d)
        cat, name = e.get('cat'), e.get('name')
        if not isinstance(cat, str) or not isinstance(name, str): continue
        if name.startswith('ProfilerStep#'):
            if cat in ('user_annotation', 'Operator', 'cpu_op'): steps.append((t, t + d))
            continue
        if cat in ('cpu_op', 'Operator'):
            (wait if name.lower().endswith('synchronize') or name in ('aten::item', 'aten::_local_scalar_dense') else busy).append((t, t + d))
        elif cat == 'user_annotation' and name.startswith('Optimizer.step#'):
            opt += 1
    steps.sort()
    if len(steps) >= 2:
        last = steps[-1][1] - steps[-1][0]
        others = sum(b - a for a, b in steps[:-1]) / (len(steps) - 1)
        if last < 0.2 * others: steps.pop()
    step = None
    if steps:
        step = float(sum(b - a for a, b in steps)) / len(steps) / 1e9
    elif lo is not None and hi > lo:
        step = float(hi - lo) / 1e9 / (opt if opt > 1 else 1)
    W = union(steps) if steps else ([[lo, hi]] if lo is not None and hi > lo else [])
    hb = None
    if W and (busy or wait):
        B = inter(union(busy), W)
        hb = float(measure(B) - measure(inter(B, union(wait)))) / float(measure(W))
    return dict(step=step, busy=hb, steps=len(steps))

def r(v):
    if v is None: return 'QVariant()'
    if isinstance(v, float) and math.isnan(v): return 'qQNaN()'
    return repr(float(v))

if __name__ == '__main__':
    for f in sys.argv[1:]:
        data = load_bytes(f)
        ref = reference(data)
        wb = workbench(data)
        print(Path(f).name, ref, wb)
