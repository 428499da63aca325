#!/usr/bin/env python3
"""Turns a make_run folder into what `rocprofv3 --kernel-trace --marker-trace --hip-trace` leaves:
trace.csv as it is, plus <pid>_marker_api_trace.csv (one roctx range per ProfilerStep#N of the torch
trace, named "step N") and <pid>_hip_api_trace.csv (one row per runtime call of the torch trace), both
moved onto trace.csv's boot clock with the offset scripts/clock_offset.py finds. The torch trace and
the telemetry are left out. Rows are written in order of their end, as rocprofv3 writes them.

With --lanes (the Timeline's host lanes): every user_annotation of the torch trace becomes a roctx
range too (forward, backward, enumerate(DataLoader)#…, nested as they were), and each HIP row keeps
the torch trace's correlation id, which is trace.csv's Correlation_Id of the kernel it launched (as
rocprofv3 joins a kernel to its HIP call); without it Correlation_Id is the row number.

usage: make_rocprof_api_traces.py RUN_DIR OUT_DIR [--no-hip] [--lanes] [--step-name FORMAT]   (FORMAT: "step {n}")
"""
import json, os, shutil, subprocess, sys
from fractions import Fraction

HEADER = '"Domain","Function","Process_Id","Thread_Id","Correlation_Id","Start_Timestamp","End_Timestamp"\n'


def main():
    run, out = sys.argv[1], sys.argv[2]
    step_name = sys.argv[sys.argv.index('--step-name') + 1] if '--step-name' in sys.argv else 'step {n}'
    here = os.path.dirname(os.path.abspath(__file__))
    printed = subprocess.run([sys.executable, os.path.join(here, 'clock_offset.py'), run], capture_output=True,
                             text=True, check=True).stdout.split()
    offset = int(printed[printed.index('offset_ns') + 1])
    with open(os.path.join(run, 'torch_profile.json')) as f:
        trace = json.load(f)
    ns = lambda us: int(Fraction(str(us)) * 1000)
    pid = 4242
    lanes = '--lanes' in sys.argv
    markers, calls = [], []
    for e in trace['traceEvents']:
        if e.get('ph') != 'X':
            continue
        start, end = ns(e['ts']) + offset, ns(e['ts']) + ns(e['dur']) + offset
        if e.get('cat') in ('user_annotation', 'cpu_op') and str(e.get('name', '')).startswith('ProfilerStep#'):
            n = e['name'].split('#', 1)[1]
            markers.append(('MARKER_CORE_RANGE_API', step_name.format(n=n), start, end, None))
        elif lanes and e.get('cat') == 'user_annotation':
            markers.append(('MARKER_CORE_RANGE_API', e['name'], start, end, None))
        elif e.get('cat') in ('cuda_runtime', 'Runtime'):
            correlation = e.get('args', {}).get('correlation') if lanes else None
            calls.append(('HIP_RUNTIME_API_EXT', e['name'], start, end, correlation))
    os.makedirs(out, exist_ok=True)
    shutil.copy(os.path.join(run, 'trace.csv'), os.path.join(out, 'trace.csv'))
    outputs = [('marker_api_trace', markers)] + ([] if '--no-hip' in sys.argv else [('hip_api_trace', calls)])
    for kind, rows in outputs:
        with open(os.path.join(out, f'{pid}_{kind}.csv'), 'w') as f:
            f.write(HEADER)
            for i, (domain, name, start, end, correlation) in enumerate(sorted(rows, key=lambda r: r[3])):
                f.write(f'"{domain}","{name}",{pid},{pid},{i + 1 if correlation is None else correlation},{start},{end}\n')
    print(f'offset_ns {offset}: {len(markers)} step ranges, {len(calls)} runtime calls')


if __name__ == '__main__':
    main()
