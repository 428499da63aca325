#!/usr/bin/env python3
"""Cuts the Kineto 2021 ResNet-50 sample (pytorch/kineto tb_plugin) to a small valid trace with
its [memory] events: the header (schemaVersion, deviceProperties), the "M" metadata events, the
ProfilerStep#6 and #7 operators, and every [memory] event and Operator event of the training
process (pid 25738) that overlaps those two steps. Events are kept whole (re-serialised by
Python's json module, numbers as written); nothing is changed.

Usage: make_memory_fixture.py SAMPLES_KINETO_DIR OUT_DIR
"""
import decimal
import gzip
import json
import os
import sys

SOURCE = 'kineto_tbplugin_2021_resnet50_worker0.1623143089861.pt.trace.json.gz'
OUT = 'kineto_2021_resnet50_memory_steps6to7.json.gz'


def main():
    src, out = sys.argv[1], sys.argv[2]
    with gzip.open(os.path.join(src, SOURCE), 'rt', encoding='utf-8') as f:
        doc = json.load(f, parse_float=decimal.Decimal)
    events = doc['traceEvents']
    steps = [e for e in events if e.get('ph') == 'X' and e.get('name') in ('ProfilerStep#6', 'ProfilerStep#7')]
    begin = min(e['ts'] for e in steps)
    end = max(e['ts'] + e['dur'] for e in steps)
    kept = []
    for e in events:
        if e.get('ph') == 'M' or e in steps:
            kept.append(e)
        elif e.get('name') == '[memory]' and begin <= e['ts'] <= end:
            kept.append(e)
        elif e.get('cat') == 'Operator' and e.get('pid') == 25738 and e['ts'] <= end and e['ts'] + e['dur'] >= begin:
            kept.append(e)
    header = {k: v for k, v in doc.items() if k != 'traceEvents'}
    header['traceEvents'] = kept

    def default(o):
        if isinstance(o, decimal.Decimal):
            return float(o) if o != o.to_integral_value() else int(o)
        raise TypeError(o)

    text = json.dumps(header, default=default)
    with gzip.GzipFile(os.path.join(out, OUT), 'wb', mtime=0) as f:
        f.write(text.encode('utf-8'))


if __name__ == '__main__':
    main()
