#!/usr/bin/env python3
"""How the fixtures in tests/data/torch were made (run once, by hand; the tests never run this).

Real traces are copied from /work/shared/samples/kineto (see tests/data/PROVENANCE.md); the 2021
ResNet50 trace is cut to its first ProfilerStep (original bytes, array and object closed); the
gen_* traces come from /work/shared/tools/make_run.py. The expected values in
tests/parsers/kineto/tst_torchtraceparser.cpp come from expected.py next to this file.
"""
import gzip, json, shutil, subprocess, sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
SAMPLES = Path('/work/shared/samples/kineto')
MAKE_RUN = '/work/shared/tools/make_run.py'

for name in ['hta_amd_mi250_minitoy_train_ROCm6_2_kineto.json.gz', 'hta_cpu_only_rank-34.Jul_15_10_52_41.1074.pt.trace.json.gz',
             'hta_trace_filter_sampled_rank-0.json.gz', 'tracelens_mi300_gaunernst_bert-small-uncased__1016001.json.gz',
             'tracelens_mi210_gpu_only_trace.json.gz', 'tracelens_mi300x_torch_compile_triton_trace.json.gz']:
    shutil.copyfile(SAMPLES / name, HERE / name)

raw = gzip.open(SAMPLES / 'kineto_tbplugin_2021_resnet50_worker0.1623143089861.pt.trace.json.gz').read()
end = raw.index(b'\n  },', raw.index(b'ProfilerStep#5')) + len(b'\n  }')
cut = raw[:end] + b'\n]}\n'
json.loads(cut)
with gzip.GzipFile(HERE / 'kineto_2021_resnet50_first_step.json.gz', 'wb', mtime=0) as g:
    g.write(cut)

GENERATED = {
    'gen_patched': [],
    'gen_kineto': ['--metadata', 'kineto'],
    'gen_kineto_object': ['--metadata', 'kineto-object'],
    'gen_both': ['--metadata', 'both'],
    'gen_start': ['--metadata-position', 'start'],
    'gen_none': ['--metadata', 'none'],
    'gen_int_compact': ['--metadata', 'none', '--ts-style', 'int', '--json-layout', 'compact'],
    'gen_frac': ['--metadata', 'none', '--ts-style', 'frac'],
    'gen_no_steps': ['--metadata', 'none', '--no-profiler-steps'],
    'gen_lite': ['--metadata', 'none', '--torch-detail', 'lite'],
    'gen_two_gpus_seed7': ['--metadata', 'none', '--gpus', '2', '--seed', '7'],
}
tmp = Path(sys.argv[1] if len(sys.argv) > 1 else '/tmp/torch-fixtures')
for name, args in GENERATED.items():
    out = tmp / name
    subprocess.run([sys.executable, MAKE_RUN, str(out), '--files', 'torch', '--kernels-per-step', '20', '--steps', '4',
                    '--quiet', '--truth', str(out) + '.truth.json'] + args, check=True)
    data = (out / 'torch_profile.json').read_bytes()
    if name == 'gen_none':  # kept plain: the run-folder and truncation tests copy its bytes
        (HERE / f'{name}.json').write_bytes(data)
    else:
        with gzip.GzipFile(HERE / f'{name}.json.gz', 'wb', mtime=0) as g:
            g.write(data)
    print(name, json.load(open(str(out) + '.truth.json'))['torch_window'])
