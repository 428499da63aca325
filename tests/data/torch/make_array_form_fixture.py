#!/usr/bin/env python3
"""The array form of a chrome trace (the Trace Event Format's top level `[ {...}, ... ]`, which
torch 1.x's export_chrome_trace wrote and Perfetto and chrome://tracing open) from a real trace:
the "traceEvents" list of kineto_2021_resnet50_steps6to8.json.gz as the whole document, its bytes
unchanged (the header with deviceProperties is left out, as the array form has no room for it).
Run once, by hand: `cd tests/data/torch && python3 make_array_form_fixture.py`; the tests never
run this. Prints the counts tst_arrayformtrace checks, from Python's json module.
"""
import collections, gzip, json
from pathlib import Path

HERE = Path(__file__).resolve().parent
SOURCE = HERE / 'kineto_2021_resnet50_steps6to8.json.gz'
TARGET = HERE / 'kineto_2021_resnet50_steps6to8_array_form.json.gz'

raw = gzip.open(SOURCE).read()
begin = raw.index(b'[', raw.index(b'"traceEvents"'))
end = raw.rindex(b']') + 1  # the object's last member: "traceEvents" closes just before "}"
array = raw[begin:end] + b'\n'
events = json.loads(array)
assert events == json.loads(raw)['traceEvents']
with gzip.GzipFile(TARGET, 'wb', mtime=0) as g:
    g.write(array)

kernels = [e for e in events if e.get('cat') == 'Kernel']
steps = [e for e in events if str(e.get('name', '')).startswith('ProfilerStep#')]
print('events', len(events))
print('categories', dict(collections.Counter(e.get('cat') for e in events)))
print('kernels', len(kernels), 'distinct names', len({e['name'] for e in kernels}))
print('kernel time ns', sum(round(e['dur'] * 1000) for e in kernels))
print('steps', len(steps))
