#!/usr/bin/env python3
"""Compare benchmark of Goblin Workbench (issue 14): the time `goblin-workbench compare A B` takes
on two 1 GB run folders, from the page cache.

Makes (once, and reuses) two synthetic ~1.1 GB run folders with the shared make_run.py
(--kernels 1000000; the second with another seed and a data-wait gap, so the budgets differ),
warms the page cache once, then runs `goblin-workbench compare A B --json FILE` N times (and,
with --png, once more with --png too) and prints the medians: wall time, CPU seconds
(user + sys), CPU seconds per GiB read, peak RSS. For scale it also times `report A` alone.

Measurement as bench/bench.py does it (GNU time when installed, else wait4()). No timing is
asserted; the script exits non-zero only when a command fails or the comparison's delta is not
the difference of the two runs' step times.

Examples:
    bench/bench_compare.py                        # 2 x 1 GB under /tmp/goblin-bench
    bench/bench_compare.py --kernels 100000 --runs 1   # 2 x 110 MB, quick
    bench/bench_compare.py --markdown
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench import REPO, find_binary, folder_bytes, have_gnu_time, input_files, measure  # noqa: E402

GIB = 1024 ** 3


def ensure_folder(work: Path, name: str, args: list[str], make_run: Path, log) -> Path:
    """`<work>/<name>` made by make_run.py with `args` unless a finished one exists (the marker
    sits beside the folder, never inside it)."""
    run_dir, marker = work / name, work / f"{name}.done"
    wanted = json.dumps({"make_run_args": args})
    if run_dir.is_dir() and marker.is_file() and marker.read_text() == wanted:
        return run_dir
    tmp = work / f"{name}.tmp"
    shutil.rmtree(tmp, ignore_errors=True)
    log(f"making {run_dir} (make_run.py {' '.join(args)}) ...")
    started = time.monotonic()
    subprocess.run([sys.executable, str(make_run), str(tmp)] + args, check=True)
    shutil.rmtree(run_dir, ignore_errors=True)
    tmp.rename(run_dir)
    marker.write_text(wanted)
    log(f"  made in {time.monotonic() - started:.1f} s, {folder_bytes(run_dir) / 1e6:.0f} MB")
    return run_dir


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--kernels", type=int, default=1_000_000, help="make_run.py --kernels per folder (default 1000000)")
    ap.add_argument("--runs", type=int, default=3, help="runs of each command (default 3)")
    ap.add_argument("--png", action="store_true", help="also time compare with --png (needs the GUI helper)")
    ap.add_argument("--work-dir", default=os.environ.get("GOBLIN_BENCH_DIR", "/tmp/goblin-bench"))
    ap.add_argument("--binary", default=None, help="goblin-workbench (default: the usual build folders)")
    ap.add_argument("--make-run", default=os.environ.get("GOBLIN_MAKE_RUN", str(REPO.parent / "shared/tools/make_run.py")))
    ap.add_argument("--markdown", action="store_true", help="print the table as Markdown")
    args = ap.parse_args()

    def log(msg):
        print(msg, file=sys.stderr, flush=True)

    binary = find_binary(args.binary)
    if not binary:
        sys.exit("bench_compare: goblin-workbench not found; build it or pass --binary")
    work = Path(args.work_dir)
    work.mkdir(parents=True, exist_ok=True)
    common = ["--kernels", str(args.kernels), "--quiet"]
    run_a = ensure_folder(work, f"compare-a-k{args.kernels}", common, Path(args.make_run), log)
    run_b = ensure_folder(work, f"compare-b-k{args.kernels}", common + ["--seed", "2", "--data-wait-ms", "40"],
                          Path(args.make_run), log)
    total_bytes = folder_bytes(run_a) + folder_bytes(run_b)
    for d in (run_a, run_b):  # warm the page cache: this measures the workbench, not the disk
        for f in input_files(d):
            with open(f, "rb") as fh:
                while fh.read(1 << 24):
                    pass

    use_gnu_time = have_gnu_time()
    scratch = Path(tempfile.mkdtemp(prefix="bench-compare-"))
    rows = []
    try:
        out_json = scratch / "compare.json"
        commands = [
            ("report A", [str(binary), "report", str(run_a), "--json", str(scratch / "a.json")], folder_bytes(run_a)),
            ("compare A B", [str(binary), "compare", str(run_a), str(run_b), "--json", str(out_json)], total_bytes),
        ]
        if args.png:
            commands.append(("compare A B --png", [str(binary), "compare", str(run_a), str(run_b), "--json",
                                                   str(scratch / "c2.json"), "--png", str(scratch / "c.png")],
                             total_bytes))
        for label, cmd, nbytes in commands:
            samples = []
            for i in range(args.runs):
                s = measure(cmd, None, use_gnu_time, str(scratch / "stderr.txt"))
                if s.exit_code != 0:
                    sys.exit(f"bench_compare: {label} failed ({s.exit_code}): "
                             f"{(scratch / 'stderr.txt').read_text()[-2000:]}")
                samples.append(s)
                log(f"  {label} run {i + 1}: {s.wall_s:.2f} s wall, {s.user_s + s.sys_s:.2f} s CPU, "
                    f"{s.max_rss_kb / 1024:.0f} MiB")
            wall = statistics.median(s.wall_s for s in samples)
            cpu = statistics.median(s.user_s + s.sys_s for s in samples)
            rss = statistics.median(s.max_rss_kb for s in samples) / 1024
            rows.append([label, f"{nbytes / GIB:.2f}", f"{wall:.2f}", f"{cpu:.2f}", f"{cpu / (nbytes / GIB):.2f}",
                         f"{rss:.0f}", str(args.runs)])

        # The comparison is checked, not only timed: the delta is the difference of the reports.
        cmp = json.loads(out_json.read_text())
        steps = [r["aggregates"]["step_time_seconds"] for r in cmp["runs"]]
        if abs(cmp["delta"]["step_time_seconds"] - (steps[1] - steps[0])) > 1e-12:
            sys.exit("bench_compare: compare's step-time delta is not the difference of the two reports")
    finally:
        shutil.rmtree(scratch, ignore_errors=True)

    head = ["command", "GiB read", "wall s", "CPU s", "CPU s/GiB", "peak RSS MiB", "runs"]
    print(f"# goblin-workbench compare, two folders of make_run.py --kernels {args.kernels} "
          f"({total_bytes / 1e9:.2f} GB together), page cache warm, medians; "
          f"{os.cpu_count()} CPUs, load {os.getloadavg()[0]:.1f}; timing by {'GNU time' if use_gnu_time else 'wait4()'}")
    if args.markdown:
        print("| " + " | ".join(head) + " |")
        print("|" + "|".join("---" if i == 0 else "---:" for i in range(len(head))) + "|")
        for r in rows:
            print("| " + " | ".join(r) + " |")
    else:
        widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(head)]
        print("  ".join(h.ljust(w) if i == 0 else h.rjust(w) for i, (h, w) in enumerate(zip(head, widths))))
        for r in rows:
            print("  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths))))
    return 0


if __name__ == "__main__":
    sys.exit(main())
