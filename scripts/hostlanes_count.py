#!/usr/bin/env python3
"""Independent count of the Timeline's host lanes of a non-Kineto input, straight from the raw
file(s), for the tests to compare with (stdlib only).

  hostlanes_count.py DIR         rocprofv3 CSV: DIR's *_hip_api_trace.csv, *_marker_api_trace.csv and
                                 its kernel trace (trace.csv, else *_kernel_trace.csv)
  hostlanes_count.py FILE.rpd    rocmProfileData: rocpd_api (UserMarker rows are ranges, rpd_tracer's
                                 overhead records left out), rocpd_op, rocpd_api_ops

Prints: threads, slices per kind (Step = the default step pattern, DataLoading = names a DataLoader,
Annotation = other ranges, Runtime = runtime calls), the deepest nesting (0 = flat) per thread
(a range's depth = the ranges of its thread still open when it starts; ties: longer first), the
GPU events with a correlation id, those whose id names a runtime call, and the first kernel's
launching call.
"""
import csv, glob, os, re, sqlite3, sys

STEP = re.compile(r'(?:ProfilerStep#\d+|(train[_ ]?)?step([ _#:-]*\d+)?|iter(ation)?([ _#:-]*\d+)?)\Z', re.I)
OVERHEAD = {'hcc_activity_callback', 'rpdflush', 'BLOCKING', 'overhead (hip)', 'prepare', 'commit'}


def marker_kind(name):
    if STEP.match(name):
        return 'Step'
    return 'DataLoading' if 'DataLoader' in name else 'Annotation'


def read_csv_dir(d):
    ranges, calls, gpu = [], [], []  # ranges: (pid, tid, start, end, kind, name); calls add correlation
    for path in sorted(glob.glob(os.path.join(d, '*_api_trace.csv'))):
        with open(path, newline='') as f:
            for row in csv.DictReader(f):
                start, end = int(row['Start_Timestamp']), int(row['End_Timestamp'])
                key = (int(row.get('Process_Id') or 0), int(row.get('Thread_Id') or 0))
                if row['Domain'].startswith('MARKER'):
                    if end > start:
                        ranges.append((*key, start, end, marker_kind(row['Function']), row['Function']))
                elif row['Domain'].startswith('HIP_'):
                    calls.append((*key, start, end, 'Runtime', row['Function'], int(row['Correlation_Id'])))
    kernel_files = [os.path.join(d, 'trace.csv')] if os.path.exists(os.path.join(d, 'trace.csv')) else \
        sorted(glob.glob(os.path.join(d, '*_kernel_trace.csv')))
    for path in kernel_files:
        with open(path, newline='') as f:
            for row in csv.DictReader(f):
                gpu.append((int(row['Start_Timestamp']), int(row['Correlation_Id']), row['Kernel_Name']))
    return ranges, calls, gpu


def read_rpd(path):
    db = sqlite3.connect(f'file:{path}?mode=ro', uri=True)
    names = dict(db.execute('SELECT id, string FROM rocpd_string'))
    ranges, calls, gpu = [], [], []
    for id_, pid, tid, start, end, name_id, args_id in db.execute(
            'SELECT id, pid, tid, start, "end", apiName_id, args_id FROM rocpd_api'):
        name = names.get(name_id, '')
        if not name or name in OVERHEAD or '::' in name or end < start:
            continue
        if name == 'UserMarker':
            text = names.get(args_id, '')
            ranges.append((pid, tid, start, end, marker_kind(text), text))
        else:
            calls.append((pid, tid, start, end, 'Runtime', name, id_))
    launch = dict(db.execute('SELECT op_id, api_id FROM rocpd_api_ops'))
    for op_id, start, desc in db.execute('SELECT id, start, description_id FROM rocpd_op ORDER BY start, id'):
        if op_id in launch:
            gpu.append((start, launch[op_id], names.get(desc, '')))
    return ranges, calls, gpu


def main():
    src = sys.argv[1]
    ranges, calls, gpu = read_rpd(src) if src.endswith('.rpd') else read_csv_dir(src)
    slices = ranges + [c[:6] for c in calls]
    threads = sorted({(s[0], s[1]) for s in slices})
    print('threads', len(threads), ' '.join(f'{p}/{t}' for p, t in threads))
    for kind in ('Step', 'DataLoading', 'Annotation', 'Runtime'):
        print('slices', kind, sum(1 for s in slices if s[4] == kind))
    for key in threads:
        mine = sorted((s for s in slices if (s[0], s[1]) == key), key=lambda s: (s[2], -s[3]))
        deepest = 0
        for i, s in enumerate(mine):
            # open when s starts: an earlier (or longer, same start) range that ends after it starts
            depth = sum(1 for o in mine[:i] if o[3] > s[2])
            deepest = max(deepest, depth)
        print('deepest', f'{key[0]}/{key[1]}', deepest)
    by_correlation = {}
    for c in calls:
        by_correlation.setdefault(c[6], c)
    joined = [g for g in gpu if g[1] in by_correlation]
    print('gpu_correlations', len(gpu), 'joined', len(joined))
    if joined:
        first = min(joined)
        call = by_correlation[first[1]]
        print('first_kernel_start', first[0], 'correlation', first[1], 'call', call[5], 'call_start', call[2])


if __name__ == '__main__':
    main()
