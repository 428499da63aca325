#!/usr/bin/env python3
"""gzip benchmark of Goblin Workbench (issue 25 item 4): a `.json.gz` trace against the same trace
uncompressed, in one run.

It makes (once, and reuses) bench.py's 0.9 GB trace-only folder with the shared make_run.py, and a
twin folder beside it whose torch_profile.json.gz is that trace compressed with `gzip -9 -n` (the
level torch.profiler's gzip.open() writes). Both files are warmed into the page cache, then each
command runs alternately, N times, after an unmeasured warm-up run:

    plain     goblin-workbench report PLAIN_DIR --json FILE
    gz        goblin-workbench report GZ_DIR --json FILE          (the default: ISA-L, on its own
                                                                   thread from 3 hardware threads on)
    igzip -dc torch_profile.json.gz > /dev/null                    (Debian package isal; the record)
    zcat      torch_profile.json.gz > /dev/null                    (gzip's inflate; the record)

and, unless --no-variants, the gz load with the environment variable GOBLIN_INFLATE set, so each
part's share shows (io/bytesource.h): `isal,ahead` and `zlib,ahead` (the inflate thread whatever
the cores), `isal,inline` and `zlib,inline` (the reader inflates itself; `zlib,inline` is the path
before issue 25).

It prints the medians: wall time, CPU seconds (user+sys), CPU use (CPU s / wall), peak RSS, and
the ratio of each load to the plain load, with the load average seen before and after. The
goal is gz/plain <= 1.2 in <= 64 MiB peak RSS. Nothing is asserted about times; the script exits
non-zero when a command fails or when the gz load's metrics differ from the plain load's.

Examples:
    bench/gzip_bench.py --binary build-release/src/app/goblin-workbench
    bench/gzip_bench.py --runs 3 --markdown --json /tmp/gzip-bench.json
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench  # noqa: E402  (bench.py beside this script: folders, measuring, machine description)

LABEL = "0.9GB-trace-only"
KERNELS = bench.TRACE_ONLY[LABEL]
GZIP_ARGS = ["-9", "-n"]


def ensure_gz_twin(work_dir: Path, plain_dir: Path, log) -> Path:
    """`<plain_dir>-gz/torch_profile.json.gz`: the plain trace compressed, remade when the plain
    trace changed. The completion marker sits next to the folder, never inside it."""
    source = plain_dir / "torch_profile.json"
    stat = source.stat()
    twin = work_dir / f"{plain_dir.name}-gz"
    marker = work_dir / f"{plain_dir.name}-gz.done"
    wanted = json.dumps({"source": str(source), "bytes": stat.st_size, "mtime_ns": stat.st_mtime_ns,
                         "gzip": GZIP_ARGS})
    if twin.is_dir() and marker.is_file() and marker.read_text() == wanted:
        return twin
    if shutil.which("gzip") is None:
        sys.exit("gzip_bench: gzip is not installed (Debian package gzip)")
    tmp = work_dir / f"{plain_dir.name}-gz.tmp"
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    log(f"making {twin} (gzip {' '.join(GZIP_ARGS)} of {source.stat().st_size / 1e6:.0f} MB) ...")
    started = time.monotonic()
    with open(tmp / "torch_profile.json.gz", "wb") as out:
        subprocess.run(["gzip", *GZIP_ARGS, "-c", str(source)], stdout=out, check=True)
    shutil.rmtree(twin, ignore_errors=True)
    tmp.rename(twin)
    marker.write_text(wanted)
    log(f"  made in {time.monotonic() - started:.1f} s, {bench.folder_bytes(twin) / 1e6:.0f} MB")
    return twin


def cpu_s(sample: bench.Sample) -> float:
    return sample.user_s + sample.sys_s


def med(values) -> float:
    values = list(values)
    return statistics.median(values) if values else float("nan")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    ap.add_argument("--runs", type=int, default=5, help="measured runs of each command (default 5)")
    ap.add_argument("--warmup", type=int, default=1, help="unmeasured runs before each measured one (default 1)")
    ap.add_argument("--work-dir", default=os.environ.get("GOBLIN_BENCH_DIR", "/tmp/goblin-bench"),
                    help="where the run folders are made and reused (env GOBLIN_BENCH_DIR; default /tmp/goblin-bench)")
    ap.add_argument("--binary", help="goblin-workbench executable (env GOBLIN_WORKBENCH; default as bench.py)")
    ap.add_argument("--make-run", default=os.environ.get("GOBLIN_MAKE_RUN", str(bench.REPO.parent / "shared/tools/make_run.py")),
                    help="make_run.py (env GOBLIN_MAKE_RUN; default ../shared/tools/make_run.py beside the repo)")
    ap.add_argument("--no-variants", action="store_true",
                    help="only the default gz load, not the GOBLIN_INFLATE variants")
    ap.add_argument("--markdown", action="store_true", help="print the table as Markdown")
    ap.add_argument("--json", dest="json_out", help="also write every measurement to this JSON file")
    args = ap.parse_args()

    def log(msg: str):
        print(msg, file=sys.stderr, flush=True)

    binary = bench.find_binary(args.binary)
    if binary is None:
        sys.exit("gzip_bench: no goblin-workbench binary found; build one or pass --binary")
    work_dir = Path(args.work_dir)
    work_dir.mkdir(parents=True, exist_ok=True)
    plain_dir = bench.ensure_run_folder(work_dir, KERNELS, Path(args.make_run), log, trace_only=True)
    gz_dir = ensure_gz_twin(work_dir, plain_dir, log)
    plain_file = plain_dir / "torch_profile.json"
    gz_file = gz_dir / "torch_profile.json.gz"
    use_gnu_time = bench.have_gnu_time()
    scratch = work_dir / "gzip-bench-scratch"
    scratch.mkdir(exist_ok=True)
    errlog = str(scratch / "stderr.txt")

    def report(run_dir: Path, name: str, inflate: str | None = None) -> list[str]:
        cmd = [str(binary), "report", str(run_dir), "--json", str(scratch / f"{name}.json")]
        return (["env", f"GOBLIN_INFLATE={inflate}"] + cmd) if inflate else cmd

    commands: dict[str, list[str]] = {
        "plain": report(plain_dir, "plain"),
        "gz": report(gz_dir, "gz"),
    }
    if not args.no_variants:
        commands["gz GOBLIN_INFLATE=isal,ahead"] = report(gz_dir, "gz-isal-ahead", "isal,ahead")
        commands["gz GOBLIN_INFLATE=isal,inline"] = report(gz_dir, "gz-isal-inline", "isal,inline")
        commands["gz GOBLIN_INFLATE=zlib,ahead"] = report(gz_dir, "gz-zlib-ahead", "zlib,ahead")
        commands["gz GOBLIN_INFLATE=zlib,inline"] = report(gz_dir, "gz-zlib-inline", "zlib,inline")
    igzip = shutil.which("igzip")
    if igzip:
        commands["igzip -dc"] = [igzip, "-dc", str(gz_file)]
    else:
        log("igzip not found (Debian package isal): its row is left out")
    commands["zcat"] = ["zcat", str(gz_file)]
    commands["cat (plain)"] = ["cat", str(plain_file)]

    subprocess.run(["cat", str(plain_file), str(gz_file)], stdout=subprocess.DEVNULL, check=True)
    loadavg_before = os.getloadavg()
    samples: dict[str, list[bench.Sample]] = {name: [] for name in commands}
    for i in range(args.runs):
        for name, cmd in commands.items():
            for _ in range(args.warmup):
                subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            s = bench.measure(cmd, None, use_gnu_time, errlog)
            if s.exit_code != 0:
                tail = Path(errlog).read_text(errors="replace")[-2000:]
                sys.exit(f"gzip_bench: {name} failed (exit {s.exit_code}):\n{tail}")
            samples[name].append(s)
        log(f"  run {i + 1}/{args.runs}: " + ", ".join(f"{n} {samples[n][-1].wall_s:.2f} s" for n in commands))
    loadavg_after = os.getloadavg()

    # The gz loads must read what the plain load reads.
    check = "match"
    plain_metrics = json.loads((scratch / "plain.json").read_text())["metrics"]
    for name in [n for n in commands if n.startswith("gz")]:
        out = Path(commands[name][-1])  # the report's --json file
        diff = bench.compare(plain_metrics, json.loads(out.read_text())["metrics"])
        if diff is not None:
            check = f"DIFF ({name}): {diff}"
            break

    plain_wall = med(s.wall_s for s in samples["plain"])
    plain_cpu = med(cpu_s(s) for s in samples["plain"])
    head = ["command", "wall s", "CPU s (user+sys)", "CPU use", "peak RSS MiB", "wall / plain", "CPU / plain"]
    rows = []
    for name, ss in samples.items():
        wall = med(s.wall_s for s in ss)
        cpu = med(cpu_s(s) for s in ss)
        rows.append([name, f"{wall:.3f}", f"{cpu:.3f}", f"{cpu / wall:.2f}" if wall > 0 else "-",
                     f"{med(s.max_rss_kb for s in ss) / 1024:.0f}",
                     f"{wall / plain_wall:.2f}" if name != "cat (plain)" else "-",
                     f"{cpu / plain_cpu:.2f}" if name != "cat (plain)" else "-"])

    info = bench.machine_info(work_dir)
    print(f"gzip benchmark: {plain_file} ({plain_file.stat().st_size / 1e6:.0f} MB) and "
          f"{gz_file.name} ({gz_file.stat().st_size / 1e6:.0f} MB, gzip {' '.join(GZIP_ARGS)})")
    print(f"binary: {binary} ({bench.build_type(binary)}), source {bench.git_state()}")
    print(f"machine: {info['cpu']}, {info['nproc']} CPUs; load average before {loadavg_before[0]:.2f}, "
          f"after {loadavg_after[0]:.2f}; medians of {args.runs} runs, {args.warmup} warm-up run(s) before each")
    bench.print_table(head, rows, args.markdown)
    gz_wall = med(s.wall_s for s in samples["gz"])
    print(f"gz / plain load: {gz_wall / plain_wall:.2f}x wall, "
          f"{med(cpu_s(s) for s in samples['gz']) / plain_cpu:.2f}x CPU; "
          f"gz peak RSS {med(s.max_rss_kb for s in samples['gz']) / 1024:.0f} MiB; metrics gz vs plain: {check}")
    if args.json_out:
        Path(args.json_out).write_text(json.dumps({
            "plain": str(plain_file), "gz": str(gz_file), "binary": str(binary), "machine": info,
            "loadavg_before": loadavg_before, "loadavg_after": loadavg_after, "check": check,
            "samples": {name: [vars(s) for s in ss] for name, ss in samples.items()},
        }, indent=1))
    return 0 if check == "match" else 1


if __name__ == "__main__":
    sys.exit(main())
