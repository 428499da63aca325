#!/usr/bin/env python3
"""SQLite export benchmark of Goblin Workbench: `export-sqlite RUN -o FILE.sqlite` against `report
RUN --json FILE` on the same folder, alternating runs, from the page cache.

Prints the medians of wall time, CPU seconds (user + sys), CPU seconds per GiB read and peak RSS
of both, and their ratio (the target: the export at most 1.5 x the report's time), and checks that
the database holds as many steps, ops, kernels and diagnostics as the report. Measurement as
bench/bench.py does it (GNU time when installed, else wait4()). No timing is asserted; the script
exits non-zero only when a command fails or a row count differs.

Examples:
    bench/bench_sqlite.py /tmp/goblin-bench/run-k1000000        # a 1 GB folder (bench.py makes it)
    bench/bench_sqlite.py resources/example-run --runs 3
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench import find_binary, folder_bytes, have_gnu_time, measure  # noqa: E402

GIB = 1024 ** 3


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("run", help="run folder (or file) to export")
    parser.add_argument("--runs", type=int, default=5, help="measured runs of each command (default 5)")
    parser.add_argument("--binary", help="goblin-workbench executable (default: as bench.py finds it)")
    args = parser.parse_args()
    binary = str(find_binary(args.binary))
    run = Path(args.run)
    size = folder_bytes(run) if run.is_dir() else run.stat().st_size
    gnu = have_gnu_time()
    with tempfile.TemporaryDirectory(prefix="goblin-sqlite-bench-") as tmp:
        scratch = Path(tmp)
        report_cmd = [binary, "report", str(run), "--json", str(scratch / "report.json")]
        export_cmd = [binary, "export-sqlite", str(run), "-o", str(scratch / "run.sqlite")]
        # One unmeasured run of each warms the page cache.
        for cmd in (report_cmd, export_cmd):
            if measure(cmd, None, gnu, str(scratch / "stderr.txt")).exit_code != 0:
                print(f"failed: {' '.join(cmd)}: {(scratch / 'stderr.txt').read_text()}", file=sys.stderr)
                return 1
        samples = {"report": [], "export-sqlite": []}
        for _ in range(args.runs):
            for name, cmd in (("report", report_cmd), ("export-sqlite", export_cmd)):
                s = measure(cmd, None, gnu, str(scratch / "stderr.txt"))
                if s.exit_code != 0:
                    print(f"failed: {' '.join(cmd)}", file=sys.stderr)
                    return 1
                samples[name].append(s)
        report = json.loads((scratch / "report.json").read_text())
        db = sqlite3.connect(scratch / "run.sqlite")
        counts = {
            "steps": (db.execute("SELECT COUNT(*) FROM steps").fetchone()[0], len(report["per_step"])),
            "ops": (db.execute("SELECT COUNT(*) FROM ops").fetchone()[0], len(report["ops"])),
            "kernels": (db.execute("SELECT COUNT(*) FROM kernels").fetchone()[0],
                        report["aggregates"].get("distinct_kernel_names")),
            "diagnostics": (db.execute("SELECT COUNT(*) FROM diagnostics").fetchone()[0], len(report["diagnostics"])),
        }
        db.close()
    print(f"folder: {run} ({size / 1e6:,.0f} MB), {args.runs} run(s) each, medians")
    print(f"{'command':>14} {'wall s':>8} {'CPU s':>7} {'CPU s/GiB':>10} {'peak RSS MiB':>13}")
    med = {}
    for name, runs in samples.items():
        wall = statistics.median(s.wall_s for s in runs)
        cpu = statistics.median(s.user_s + s.sys_s for s in runs)
        rss = max(s.max_rss_kb for s in runs) / 1024
        med[name] = (wall, cpu)
        print(f"{name:>14} {wall:8.2f} {cpu:7.2f} {cpu / (size / GIB):10.2f} {rss:13.0f}")
    print(f"export / report: wall {med['export-sqlite'][0] / med['report'][0]:.2f}x, "
          f"CPU {med['export-sqlite'][1] / med['report'][1]:.2f}x (target: at most 1.5x)")
    bad = {k: v for k, v in counts.items() if v[0] != v[1]}
    print("row counts (database, report): " + ", ".join(f"{k} {a}/{b}" for k, (a, b) in counts.items()) +
          (" — MISMATCH" if bad else " — equal"))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
