#!/usr/bin/env python3
"""An independent count of what a Kineto trace's `[memory]` events say, for tst_tracememory and
the report's `memory.devices[]` (docs/memory.md): Python's json module only, no code shared with
the C++ reading.

Per GPU device, keyed by (args "Device Type", args "Device Id") with Device Type != 0 (0 is the
host): the number of `[memory]` events, the maximum of "Total Allocated" and of "Total Reserved"
(null when no event carries the key), deviceProperties' name,
totalGlobalMem and numSms of the entry whose "id" equals the Device Id; per CPU ProfilerStep#N
range (user_annotation, or an operator in 2021 traces) the highest totals held during the step
(the last value before the step, carried forward, and every event with begin <= ts <= end); the
ops that allocated most: for each event with Bytes > 0, the CPU op (cat cpu_op / Operator, not a
ProfilerStep#) on the same pid and tid (compared as text: 2021 traces write tids as strings on
ops and as numbers on memory events) with begin <= ts <= end and the latest begin (ties: the
shortest); its allocations and summed Bytes. A device none of whose events carries "Total
Allocated" but some "Bytes" (Kineto 2021) has its allocated values from the running sum of the
signed Bytes in time order, starting at 0 (peak: the largest sum, never below 0), and
"allocated_from": "bytes_running_sum" ("allocator_totals" with Total Allocated, null with neither).

Usage: memory_peaks.py TRACE [TRACE...]   (plain or .gz) -> JSON on stdout, one object per trace.
"""
import decimal
import gzip
import json
import sys

decimal.getcontext().prec = 40


def ns(us):
    return int((decimal.Decimal(str(us)) * 1000).quantize(decimal.Decimal(1), rounding=decimal.ROUND_HALF_UP))


def key_text(v):
    return str(v)


def count(path, top=5):
    opener = gzip.open if open(path, 'rb').read(2) == b'\x1f\x8b' else open
    with opener(path, 'rt', encoding='utf-8') as f:
        doc = json.load(f, parse_float=decimal.Decimal)
    events = doc['traceEvents'] if isinstance(doc, dict) else doc
    props = {p.get('id'): p for p in (doc.get('deviceProperties') or [])} if isinstance(doc, dict) else {}
    memory, ops, steps = [], {}, []
    oom = 0
    for e in events:
        if not isinstance(e, dict):
            continue
        name = e.get('name')
        if e.get('ph') in ('i', 'I') and name == '[OutOfMemory]':
            oom += 1
        if e.get('ph') in ('i', 'I') and name == '[memory]':
            memory.append(e)
        elif e.get('ph') == 'X' and isinstance(name, str):
            cat = e.get('cat')
            if name.startswith('ProfilerStep#') and cat in ('user_annotation', 'cpu_op', 'Operator'):
                steps.append((ns(e['ts']), ns(e['ts']) + ns(e['dur']), name))
            elif cat in ('cpu_op', 'Operator'):
                k = (key_text(e.get('pid')), key_text(e.get('tid')))
                ops.setdefault(k, []).append((ns(e['ts']), ns(e['ts']) + ns(e['dur']), name))
    steps.sort()
    devices = {}
    cpu = 0
    for e in memory:
        a = e.get('args', {})
        if a.get('Device Type') == 0:
            cpu += 1
            continue
        devices.setdefault((a.get('Device Type'), a.get('Device Id')), []).append(e)
    out = []
    for (dtype, did), evs in sorted(devices.items(), key=lambda kv: (kv[0][1], kv[0][0])):
        evs = sorted(evs, key=lambda e: ns(e['ts']))  # stable: document order on ties
        alloc = [e['args']['Total Allocated'] for e in evs if 'Total Allocated' in e['args']]
        res = [e['args']['Total Reserved'] for e in evs if 'Total Reserved' in e['args']]
        from_bytes = not alloc and any('Bytes' in e['args'] for e in evs)
        if from_bytes:
            # The running sum after each event, written where the totals would be.
            running = 0
            evs = [dict(e, args=dict(e['args'])) for e in evs]
            for e in evs:
                if 'Bytes' in e['args']:
                    running += e['args']['Bytes']
                    e['args']['Total Allocated'] = running
            alloc = [0] + [e['args']['Total Allocated'] for e in evs if 'Total Allocated' in e['args']]
        p = props.get(did, {})
        d = {'device_type': dtype, 'device': did, 'events': len(evs),
             'allocated_from': 'bytes_running_sum' if from_bytes else 'allocator_totals' if alloc else None,
             'peak_allocated_bytes': max(alloc) if alloc else None,
             'peak_reserved_bytes': max(res) if res else None,
             'name': p.get('name'), 'capacity_bytes': p.get('totalGlobalMem'), 'num_sms': p.get('numSms')}
        d['steps'] = []
        if alloc or res:
            for begin, end, label in steps:
                before = [e for e in evs if ns(e['ts']) < begin]
                inside = [e for e in evs if begin <= ns(e['ts']) <= end]
                if not before and not inside:
                    continue
                held = ([before[-1]] if before else []) + inside
                # the carried value: the last event before that has the key
                def carried(key):
                    vals = []
                    last = None
                    for e in before:
                        if key in e['args']:
                            last = e['args'][key]
                    if last is not None:
                        vals.append(last)
                    vals += [e['args'][key] for e in inside if key in e['args']]
                    return max(vals) if vals else 0
                d['steps'].append({'label': label, 'peak_allocated_bytes': carried('Total Allocated'),
                                   'peak_reserved_bytes': carried('Total Reserved') if res else None})
        per_op = {}
        outside = 0
        allocations = 0
        for e in evs:
            b = e['args'].get('Bytes', 0)
            if not b or b <= 0:
                continue
            allocations += 1
            t = ns(e['ts'])
            cands = [o for o in ops.get((key_text(e.get('pid')), key_text(e.get('tid'))), []) if o[0] <= t <= o[1]]
            if not cands:
                outside += 1
                continue
            o = max(cands, key=lambda o: (o[0], -o[1]))
            n, s = per_op.get(o[2], (0, 0))
            per_op[o[2]] = (n + 1, s + b)
        d['allocations'] = allocations
        d['allocations_outside_ops'] = outside
        d['top_ops'] = [{'name': k, 'allocations': v[0], 'allocated_bytes': v[1]}
                        for k, v in sorted(per_op.items(), key=lambda kv: (-kv[1][1], kv[0]))[:top]]
        out.append(d)
    return {'memory_events': len(memory), 'cpu_events': cpu, 'out_of_memory_events': oom, 'devices': out}


def main():
    result = {}
    for path in sys.argv[1:]:
        result[path.rsplit('/', 1)[-1]] = count(path)
    json.dump(result if len(result) != 1 else next(iter(result.values())), sys.stdout, indent=1, sort_keys=True)
    print()


if __name__ == '__main__':
    main()
