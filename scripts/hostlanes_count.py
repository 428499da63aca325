#!/usr/bin/env python3
"""Independent count of the Timeline's host lanes of a non-Kineto input, straight from the raw
file(s), for the tests to compare with (stdlib only).

  hostlanes_count.py DIR         rocprofv3 CSV: DIR's *_hip_api_trace.csv, *_marker_api_trace.csv and
                                 its kernel trace (trace.csv, else *_kernel_trace.csv)
  hostlanes_count.py FILE.rpd    rocmProfileData: rocpd_api (UserMarker rows are ranges, rpd_tracer's
                                 overhead records left out), rocpd_op, rocpd_api_ops
  hostlanes_count.py FILE.db     rocpd (rocprofv3): rocpd_region rows whose event's category is MARKER_* (named by
                                 extdata's message, else the region's name) or HIP_* (runtime calls), their
                                 event's stack_id; the kernel dispatches' event stack_id
  hostlanes_count.py FILE.json[.gz] rocprofv3 JSON: buffer_records.hip_api (named by strings.buffer_records'
                                 operations, internal correlation id), marker_api ranges (named by
                                 strings.marker_api's message), kernel_dispatch internal correlation ids
  hostlanes_count.py FILE.sqlite Nsight Systems export: CUPTI_ACTIVITY_KIND_RUNTIME (nameId in StringIds,
                                 globalTid, correlationId), NVTX_EVENTS ranges (text, else textId),
                                 the kernels', copies' and memsets' correlationId

Prints: threads, slices per kind (Step = the default step pattern, DataLoading = names a DataLoader,
Annotation = other ranges, Runtime = runtime calls), the deepest nesting (0 = flat) per thread
(a range's depth = the ranges of its thread still open when it starts; ties: longer first), the
GPU events with a correlation id, those whose id names a runtime call, and the first kernel's
launching call.
"""
import csv, glob, gzip, json, os, re, sqlite3, sys

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


def read_rocpd(path):
    db = sqlite3.connect(f'file:{path}?mode=ro', uri=True)
    tables = [r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
    ranges, calls, gpu = [], [], []
    for meta in (t for t in tables if t.startswith('rocpd_metadata_')):
        suffix = meta[len('rocpd_metadata'):]
        t = lambda base: f'"{base}{suffix}"'
        names = dict(db.execute(f'SELECT id, string FROM {t("rocpd_string")}'))
        for pid, tid, start, end, name_id, extdata, category, stack in db.execute(
                f'SELECT R.pid, R.tid, R.start, R."end", R.name_id, R.extdata, E.category_id, E.stack_id '
                f'FROM {t("rocpd_region")} R JOIN {t("rocpd_event")} E ON E.id = R.event_id'):
            category = names.get(category, '')
            if end < start:
                continue
            if category.startswith('MARKER_'):
                try:
                    message = json.loads(extdata).get('message', '')
                except ValueError:
                    message = ''
                name = message.strip() or names.get(name_id, '')
                if end > start:
                    ranges.append((pid, tid, start, end, marker_kind(name), name))
            elif category.startswith('HIP_'):
                calls.append((pid, tid, start, end, 'Runtime', names.get(name_id, ''), stack))
        for start, stack in db.execute(f'SELECT K.start, E.stack_id FROM {t("rocpd_kernel_dispatch")} K '
                                       f'JOIN {t("rocpd_event")} E ON E.id = K.event_id'):
            gpu.append((start, stack, 'kernel'))
    return ranges, calls, gpu


def read_rocprof_json(path):
    opener = gzip.open if open(path, 'rb').read(2) == b'\x1f\x8b' else open
    with opener(path, 'rt', encoding='utf-8') as f:
        doc = json.load(f)
    ranges, calls, gpu = [], [], []
    for proc in doc['rocprofiler-sdk-tool']:
        pid = proc.get('metadata', {}).get('pid', 0)
        kinds = proc.get('strings', {}).get('buffer_records', [])
        messages = {e['key']: e['value'] for e in proc.get('strings', {}).get('marker_api', [])}
        def op(r):
            kind = kinds[r['kind']] if r['kind'] < len(kinds) else {'kind': '', 'operations': []}
            ops = kind.get('operations', [])
            return kind.get('kind', ''), ops[r['operation']] if r['operation'] < len(ops) else ''
        records = proc.get('buffer_records', {})
        for r in records.get('hip_api', []):
            start, end = r['start_timestamp'], r['end_timestamp']
            if end >= start:
                calls.append((pid, r['thread_id'], start, end, 'Runtime', op(r)[1] or 'HIP call',
                              r['correlation_id']['internal']))
        for r in records.get('marker_api', []):
            start, end = r['start_timestamp'], r['end_timestamp']
            kind, opname = op(r)
            msg = messages.get(r['correlation_id']['internal'])
            if kind == 'MARKER_CORE_API' and opname != 'roctxGetThreadId' and msg is not None:
                name = msg
            elif kind == '' and msg is not None:
                name = msg
            else:
                name = opname
            if name and end > start:
                ranges.append((pid, r['thread_id'], start, end, marker_kind(name), name))
        for d in records.get('kernel_dispatch', []):
            if d['correlation_id'].get('internal'):
                gpu.append((d['start_timestamp'], d['correlation_id']['internal'], 'kernel'))
    return ranges, calls, gpu


def read_nsys(path):
    db = sqlite3.connect(f'file:{path}?mode=ro', uri=True)
    tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    names = dict(db.execute('SELECT id, value FROM StringIds'))
    split = lambda g: ((g >> 24) & 0xFFFFFF, g & 0xFFFFFF)
    ranges, calls, gpu = [], [], []
    for start, end, gtid, corr, name_id in db.execute(
            'SELECT start, "end", globalTid, correlationId, nameId FROM CUPTI_ACTIVITY_KIND_RUNTIME'):
        if end >= start:
            calls.append((*split(gtid or 0), start, end, 'Runtime', names.get(name_id, ''), corr))
    if 'NVTX_EVENTS' in tables:
        for start, end, text, text_id, gtid in db.execute(
                'SELECT start, "end", text, textId, globalTid FROM NVTX_EVENTS'):
            if end is not None and start is not None and end > start:
                name = text if text is not None else names.get(text_id, '')
                ranges.append((*split(gtid or 0), start, end, marker_kind(name), name))
    for table in ('CUPTI_ACTIVITY_KIND_KERNEL', 'CUPTI_ACTIVITY_KIND_MEMCPY', 'CUPTI_ACTIVITY_KIND_MEMSET'):
        if table in tables:
            for start, corr in db.execute(f'SELECT start, correlationId FROM {table}'):
                if corr is not None:
                    gpu.append((start, corr, table))
    return ranges, calls, gpu


def main():
    src = sys.argv[1]
    readers = {'.rpd': read_rpd, '.sqlite': read_nsys, '.db': read_rocpd, '.json': read_rocprof_json,
               '.gz': read_rocprof_json}
    ranges, calls, gpu = readers.get(os.path.splitext(src)[1], read_csv_dir)(src)
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
