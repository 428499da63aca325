#!/usr/bin/env python3
"""Loading benchmark of Goblin Workbench: the headless `report` against the reference parser and
against reading the same files from the page cache.

For each folder size it makes (once, and reuses) a synthetic run folder with the shared
make_run.py, warms the page cache once (`cat FILES > /dev/null`), then runs alternately, N times
each, the `cat` floor, `goblin-workbench report DIR --json FILE` and the reference oracle, and
prints the medians: wall time, peak RSS, CPU use (user+sys / wall: > 1 means more than one core
was busy), the speed-up over the reference and the ratio to the `cat` floor.

Wall time and peak RSS come from GNU time (`/usr/bin/time -f ...`, Debian package `time`);
without it the script measures the same quantities itself through wait4() and says so.

No timing is asserted anywhere: the script exits non-zero only when a command fails, or when the
workbench's `--profile reference` metrics differ from the reference oracle's output (--no-check
turns that comparison off).

When goblin-bench-csv was built (only with Debian's libcsv-dev), the script also runs it on each
folder's trace.csv and prints a second table: MB/s of goblin::CsvReader and of libcsv splitting
the same file, and whether both found the same records and fields (--csv-bench none skips it).

Examples:
    bench/bench.py                      # 10 MB, 100 MB, 1 GB, 2.2 GB, 0.9 GB trace-only (~5 GB in the work dir)
    bench/bench.py --sizes 1GB,0.9GB-trace-only --runs 3   # issue 13's two folders
    bench/bench.py --smoke              # CI: the 10 MB folder, one run each
    bench/bench.py --sizes 10MB,100MB --runs 3 --markdown
    bench/bench.py --sizes 1GB,0.9GB-trace-only --runs 7 --ref-max-kernels 0 \
        --baseline /tmp/before/goblin-workbench     # before/after: a build of an earlier commit
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent

# label -> make_run.py --kernels (sizes as the issue names them)
SIZES = {
    "10MB": 10_000,
    "100MB": 100_000,
    "1GB": 1_000_000,
    "2.2GB": 2_000_000,
}
# Folders holding only the torch trace (its GPU kernel events are then the timeline): label ->
# make_run.py --kernels, trace.csv and amd_smi.csv removed after generation. 1.4 M kernels give a
# 0.9 GB torch_profile.json (the GPU-0 mirror of 3 profiled steps).
TRACE_ONLY = {
    "0.9GB-trace-only": 1_400_000,
}
# From this many kernels on a folder counts as "large": the reference runs --ref-runs-large times
# (it needs ~80 s and 2.6 GB per run on the 1 GB folder).
LARGE_KERNELS = 1_000_000

RUN_FILES = ("trace.csv", "torch_profile.json", "amd_smi.csv")


# --------------------------------------------------------------------------------------------
# measuring one command


@dataclass
class Sample:
    wall_s: float
    max_rss_kb: int
    user_s: float
    sys_s: float
    major_faults: int
    swaps: int
    fs_inputs: int  # 512-byte blocks read from disk: ~0 when the page cache held the files
    exit_code: int

    @property
    def cpu_cores(self) -> float:
        return (self.user_s + self.sys_s) / self.wall_s if self.wall_s > 0 else float("nan")


GNU_TIME = "/usr/bin/time"
TIME_FORMAT = "%e %M %U %S %F %W %I %x"


def have_gnu_time() -> bool:
    if not os.access(GNU_TIME, os.X_OK):
        return False
    try:
        out = subprocess.run([GNU_TIME, "--version"], capture_output=True, text=True, timeout=10)
    except OSError:
        return False
    return "GNU" in (out.stdout + out.stderr)


def measure(cmd: list[str], stdout_path: str | None, use_gnu_time: bool, stderr_path: str) -> Sample:
    """Runs `cmd` once; wall time, peak RSS, CPU times and faults of that process."""
    out = open(stdout_path, "wb") if stdout_path else subprocess.DEVNULL
    err = open(stderr_path, "wb")
    try:
        if use_gnu_time:
            with tempfile.NamedTemporaryFile("r", suffix=".time", delete=False) as tf:
                time_file = tf.name
            try:
                start = time.monotonic()
                rc = subprocess.call([GNU_TIME, "-f", TIME_FORMAT, "-o", time_file] + cmd, stdout=out, stderr=err)
                wall = time.monotonic() - start
                fields = Path(time_file).read_text().strip().splitlines()[-1].split()
            finally:
                os.unlink(time_file)
            # GNU time prints "Command exited with non-zero status N" before the format line.
            # Its %e has 10 ms resolution, too coarse for `cat` on the small folders: the wall
            # time is taken here around it instead (it adds the ~1 ms fork/exec of time itself).
            _, rss, user, system, majflt, swaps, inputs, code = fields
            return Sample(wall, int(rss), float(user), float(system), int(majflt), int(swaps), int(inputs),
                          int(code) if code.lstrip("-").isdigit() else (rc or 1))
        # Fallback without GNU time: the same numbers from wait4() (ru_maxrss is in KB on Linux).
        start = time.monotonic()
        proc = subprocess.Popen(cmd, stdout=out, stderr=err)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.monotonic() - start
        proc.returncode = os.waitstatus_to_exitcode(status)
        return Sample(wall, int(usage.ru_maxrss), usage.ru_utime, usage.ru_stime, int(usage.ru_majflt),
                      int(usage.ru_nswap), int(usage.ru_inblock), proc.returncode)
    finally:
        if out is not subprocess.DEVNULL:
            out.close()
        err.close()


# --------------------------------------------------------------------------------------------
# run folders


def folder_bytes(run_dir: Path) -> int:
    return sum(p.stat().st_size for p in run_dir.rglob("*") if p.is_file())


def input_files(run_dir: Path) -> list[str]:
    return sorted(str(p) for p in run_dir.rglob("*") if p.is_file())


def ensure_run_folder(work_dir: Path, kernels: int, make_run: Path, log, trace_only: bool = False) -> Path:
    """Makes `<work>/run-k<N>` (`run-k<N>-trace-only`: the torch trace alone) with make_run.py
    unless a finished one with the same arguments exists. The completion marker sits next to the
    folder, never inside it."""
    stem = f"run-k{kernels}" + ("-trace-only" if trace_only else "")
    run_dir = work_dir / stem
    marker = work_dir / f"{stem}.done"
    args = ["--kernels", str(kernels), "--quiet"]
    wanted = json.dumps({"make_run_args": args, "trace_only": trace_only} if trace_only else {"make_run_args": args})
    if run_dir.is_dir() and marker.is_file() and marker.read_text() == wanted:
        return run_dir
    if not make_run.is_file():
        sys.exit(f"bench: {make_run}: make_run.py not found (set --make-run or GOBLIN_MAKE_RUN); "
                 f"cannot make {run_dir}")
    tmp = work_dir / f"{stem}.tmp"
    shutil.rmtree(tmp, ignore_errors=True)
    log(f"making {run_dir} (make_run.py --kernels {kernels}) ...")
    started = time.monotonic()
    subprocess.run([sys.executable, str(make_run), str(tmp)] + args, check=True)
    if trace_only:
        for name in ("trace.csv", "amd_smi.csv"):
            (tmp / name).unlink(missing_ok=True)
    shutil.rmtree(run_dir, ignore_errors=True)
    tmp.rename(run_dir)
    marker.write_text(wanted)
    log(f"  made in {time.monotonic() - started:.1f} s, {folder_bytes(run_dir) / 1e6:.0f} MB")
    return run_dir


# --------------------------------------------------------------------------------------------
# checking the workbench against the reference (so a fast but wrong parser is not celebrated)


def compare(a, b, path="metrics", rel=1e-9):
    """First difference between two JSON values as a string, or None."""
    if isinstance(a, bool) or isinstance(b, bool):
        return None if a == b else f"{path}: {a!r} != {b!r}"
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        if a == b or (math.isfinite(a) and math.isfinite(b) and abs(a - b) <= rel * max(abs(a), abs(b))):
            return None
        return f"{path}: {a!r} != {b!r}"
    if isinstance(a, dict) and isinstance(b, dict):
        for key in sorted(set(a) | set(b)):
            if key not in a or key not in b:
                return f"{path}.{key}: only in {'workbench' if key in a else 'reference'}"
            diff = compare(a[key], b[key], f"{path}.{key}", rel)
            if diff:
                return diff
        return None
    if isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            return f"{path}: {len(a)} items != {len(b)}"
        for i, (x, y) in enumerate(zip(a, b)):
            diff = compare(x, y, f"{path}[{i}]", rel)
            if diff:
                return diff
        return None
    return None if a == b else f"{path}: {a!r} != {b!r}"


# --------------------------------------------------------------------------------------------
# machine description


def machine_info(work_dir: Path) -> dict:
    info = {"nproc": os.cpu_count(), "cpu": "unknown", "ram_gb": None, "disk": "unknown",
            "kernel": platform.release(), "python": platform.python_version()}
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                info["cpu"] = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                info["ram_gb"] = round(int(line.split()[1]) / 1024 / 1024, 1)
            if line.startswith("SwapTotal:"):
                info["swap_gb"] = round(int(line.split()[1]) / 1024 / 1024, 1)
    except OSError:
        pass
    try:
        df = subprocess.run(["df", "-hT", str(work_dir)], capture_output=True, text=True).stdout.splitlines()[-1].split()
        device = df[0]
        rotational = "?"
        name = Path(device).name
        for candidate in (name, name.rstrip("0123456789")):
            flag = Path(f"/sys/block/{candidate}/queue/rotational")
            if flag.is_file():
                rotational = "rotational" if flag.read_text().strip() == "1" else "non-rotational"
                break
        info["disk"] = f"{device} {df[1]}, {df[2]} ({rotational} as the kernel reports it), {df[4]} free"
    except (OSError, IndexError):
        pass
    return info


def build_type(binary: Path) -> str:
    """CMAKE_BUILD_TYPE of the build tree the binary came from, if it can be found."""
    for parent in binary.resolve().parents:
        cache = parent / "CMakeCache.txt"
        if cache.is_file():
            for line in cache.read_text(errors="replace").splitlines():
                if line.startswith("CMAKE_BUILD_TYPE:"):
                    return line.split("=", 1)[1] or "(none)"
            return "(unknown)"
    return "(unknown)"


def git_state() -> str:
    """HEAD of the source tree, and whether it had local changes (the binary may include them)."""
    try:
        head = subprocess.run(["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"], capture_output=True,
                              text=True, timeout=10).stdout.strip()
        dirty = subprocess.run(["git", "-C", str(REPO), "status", "--porcelain", "--untracked-files=no"],
                               capture_output=True, text=True, timeout=30).stdout.strip()
    except (OSError, subprocess.TimeoutExpired):
        return "unknown"
    if not head:
        return "unknown"
    return head + (" with local changes" if dirty else "")


def find_binary(explicit: str | None) -> Path | None:
    candidates = [explicit] if explicit else [
        os.environ.get("GOBLIN_WORKBENCH"),
        REPO / "build/release/src/app/goblin-workbench",
        REPO / "build-release/src/app/goblin-workbench",
        REPO / "build/ci/src/app/goblin-workbench",
        REPO / "build/dev/src/app/goblin-workbench",
        REPO / "build/src/app/goblin-workbench",
    ]
    for c in candidates:
        if c and Path(c).is_file() and os.access(c, os.X_OK):
            return Path(c).resolve()
    return None


# --------------------------------------------------------------------------------------------
# one folder


@dataclass
class Result:
    label: str
    kernels: int
    run_dir: str
    bytes: int
    workbench: list[Sample] = field(default_factory=list)
    baseline: list[Sample] = field(default_factory=list)  # --baseline: the "before" binary, run alternately
    reference: list[Sample] = field(default_factory=list)
    cat: list[Sample] = field(default_factory=list)
    reference_note: str = ""
    check: str = "n/a"
    loadavg_before: float = float("nan")
    loadavg_after: float = float("nan")
    csv: dict | None = None  # goblin-bench-csv's figures (CSV tokenizers), when it ran


def median(samples: list[Sample], attr: str) -> float:
    values = [getattr(s, attr) for s in samples]
    return statistics.median(values) if values else float("nan")


def bench_folder(label, kernels, run_dir: Path, args, binary: Path, oracle: Path | None, use_gnu_time, scratch: Path,
                 log) -> Result:
    res = Result(label, kernels, str(run_dir), folder_bytes(run_dir))
    res.loadavg_before = os.getloadavg()[0]
    files = input_files(run_dir)
    # Warm the page cache once; nothing is dropped: every command below reads from memory, so
    # the comparison is CPU against CPU, and `cat` is the floor no parser beats.
    subprocess.run(["cat"] + files, stdout=subprocess.DEVNULL, check=True)

    ref_runs = 0
    if oracle is None:
        res.reference_note = "n/a"
    elif kernels > args.ref_max_kernels:
        res.reference_note = "skipped"
    else:
        ref_runs = args.ref_runs_large if kernels >= LARGE_KERNELS else args.ref_runs
        ref_runs = min(ref_runs, args.runs)

    report_json = scratch / f"report-k{kernels}.json"
    oracle_json = scratch / f"oracle-k{kernels}.json"
    errlog = str(scratch / "stderr.txt")

    def fail(what: str, sample: Sample):
        tail = Path(errlog).read_text(errors="replace")[-2000:]
        sys.exit(f"bench: {what} failed on {run_dir} (exit {sample.exit_code}):\n{tail}")

    cat_cmd = ["cat"] + files
    workbench_cmd = [str(binary), "report", str(run_dir), "--json", str(report_json)]

    def warm_up(cmd):
        # Unmeasured runs of the same command first: on the paravirtualised benchmark machine a
        # vCPU that was idle (the reference's long single-threaded runs leave the other one idle
        # for seconds) takes a while to come back to speed, which made the workbench's next run
        # up to 40 % slower than back-to-back runs. cat and the workbench get the same.
        for _ in range(args.warmup):
            subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    for i in range(args.runs):
        warm_up(cat_cmd)
        s = measure(cat_cmd, None, use_gnu_time, errlog)
        if s.exit_code != 0:
            fail("cat", s)
        res.cat.append(s)

        warm_up(workbench_cmd)
        s = measure(workbench_cmd, None, use_gnu_time, errlog)
        if s.exit_code != 0:
            fail("goblin-workbench report", s)
        res.workbench.append(s)

        if args.baseline:
            baseline_cmd = [str(args.baseline), "report", str(run_dir), "--json", str(scratch / "baseline.json")]
            warm_up(baseline_cmd)
            s = measure(baseline_cmd, None, use_gnu_time, errlog)
            if s.exit_code != 0:
                fail("the --baseline binary's report", s)
            res.baseline.append(s)

        if i < ref_runs:
            s = measure([args.python, str(oracle), str(run_dir)], str(oracle_json), use_gnu_time, errlog)
            if s.exit_code != 0:
                fail("the reference oracle", s)
            res.reference.append(s)
        log(f"  {label} run {i + 1}/{args.runs}: workbench {res.workbench[-1].wall_s:.2f} s "
            f"{res.workbench[-1].max_rss_kb / 1024:.0f} MB, cat {res.cat[-1].wall_s:.2f} s"
            + (f", reference {res.reference[-1].wall_s:.2f} s {res.reference[-1].max_rss_kb / 1024:.0f} MB"
               if i < ref_runs else ""))

    res.loadavg_after = os.getloadavg()[0]
    if ref_runs and not args.no_check:
        # One untimed run in the reference profile, compared with the oracle's RunMetrics.
        ref_report = scratch / f"report-reference-k{kernels}.json"
        s = measure([str(binary), "report", str(run_dir), "--profile", "reference", "--json", str(ref_report)], None,
                    use_gnu_time, errlog)
        if s.exit_code != 0:
            fail("goblin-workbench report --profile reference", s)
        try:
            mine = json.loads(ref_report.read_text())["metrics"]
            theirs = json.loads(oracle_json.read_text())
            diff = compare(mine, theirs)
        except (OSError, ValueError, KeyError) as e:
            diff = f"unreadable output: {e}"
        res.check = "match" if diff is None else f"DIFF {diff}"
    return res


# --------------------------------------------------------------------------------------------
# output


def fmt(value: float, spec: str, suffix: str = "") -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "n/a"
    return format(value, spec) + suffix


def table_rows(results: list[Result]) -> tuple[list[str], list[list[str]]]:
    head = ["size", "kernels", "workbench s", "reference s", "ref/wb", "ref/wb CPU", "cat s", "wb/cat", "wb CPU s", "CPU cores",
            "peak RSS MiB", "RSS/size", "ref RSS MB", "ref RSS/size", "wb s/GB", "wb CPU s/GiB", "cat CPU s/GiB",
            "disk MB", "check", "load 1m"]
    rows = []
    for r in results:
        wb = median(r.workbench, "wall_s")
        cat = median(r.cat, "wall_s")
        rss_mb = median(r.workbench, "max_rss_kb") / 1024
        size_mb = r.bytes / 1e6
        if r.reference:
            ref = median(r.reference, "wall_s")
            ref_rss = median(r.reference, "max_rss_kb") / 1024
            ref_cpu = statistics.median([x.user_s + x.sys_s for x in r.reference])
            wb_cpu = statistics.median([x.user_s + x.sys_s for x in r.workbench])
            ref_cols = [fmt(ref, ".2f") + ("" if len(r.reference) > 1 else " (1 run)"), fmt(ref / wb, ".0f", "x"),
                        fmt(ref_cpu / wb_cpu if wb_cpu > 0 else float("nan"), ".0f", "x")]
            ref_mem = [fmt(ref_rss, ".0f"), fmt(ref_rss * 1024 * 1024 / r.bytes, ".2f")]
        else:
            note = r.reference_note or "n/a"
            ref_cols = [note, "n/a", "n/a"]
            ref_mem = ["n/a", "n/a"]
        rows.append([
            f"{size_mb:,.0f} MB" + (" trace-only" if r.label in TRACE_ONLY else ""), f"{r.kernels:,}",
            fmt(wb, ".3f"), *ref_cols,
            fmt(cat, ".3f"), fmt(wb / cat if cat > 0 else float("nan"), ".1f", "x"),
            fmt(statistics.median([x.user_s + x.sys_s for x in r.workbench]), ".2f"),
            fmt(median(r.workbench, "cpu_cores"), ".2f"),
            fmt(rss_mb, ".0f"), fmt(rss_mb * 1024 * 1024 / r.bytes, ".2f"),
            *ref_mem,
            fmt(wb / (r.bytes / 1e9), ".2f"),
            fmt(statistics.median([x.user_s + x.sys_s for x in r.workbench]) / (r.bytes / 2**30), ".2f"),
            fmt(statistics.median([x.user_s + x.sys_s for x in r.cat]) / (r.bytes / 2**30), ".2f"),
            fmt(median(r.workbench, "fs_inputs") * 512 / 1e6, ".0f"),
            r.check,
            f"{r.loadavg_before:.1f}/{r.loadavg_after:.1f}",
        ])
    return head, rows


def print_before_after(results: list[Result], baseline: Path, markdown: bool):
    """--baseline: the same folders loaded by the earlier build, in alternating runs."""
    if not any(r.baseline for r in results):
        return
    print()
    print(f"before/after: --baseline {baseline} (before) against the workbench above (after), alternating runs, medians")
    head = ["size", "CPU s before", "CPU s after", "CPU ratio", "CPU s/GiB before", "CPU s/GiB after", "wall s before",
            "wall s after", "wall ratio", "peak RSS MiB before", "peak RSS MiB after"]
    rows = []
    for r in results:
        cpu_before = statistics.median([x.user_s + x.sys_s for x in r.baseline])
        cpu_after = statistics.median([x.user_s + x.sys_s for x in r.workbench])
        wall_before, wall_after = median(r.baseline, "wall_s"), median(r.workbench, "wall_s")
        gib = r.bytes / 2**30
        rows.append([f"{r.bytes / 1e6:,.0f} MB" + (" trace-only" if r.label in TRACE_ONLY else ""),
                     fmt(cpu_before, ".2f"), fmt(cpu_after, ".2f"), fmt(cpu_after / cpu_before, ".3f", "x"),
                     fmt(cpu_before / gib, ".2f"), fmt(cpu_after / gib, ".2f"), fmt(wall_before, ".3f"),
                     fmt(wall_after, ".3f"), fmt(wall_after / wall_before, ".3f", "x"),
                     fmt(max(x.max_rss_kb for x in r.baseline) / 1024, ".0f"),
                     fmt(max(x.max_rss_kb for x in r.workbench) / 1024, ".0f")])
    print_table(head, rows, markdown)
    print("CPU = user + sys; peak RSS: the largest of the runs.")


def find_csv_bench(explicit: str | None, binary: Path) -> Path | None:
    """goblin-bench-csv (built only when libcsv-dev is installed) beside the workbench's build."""
    if explicit == "none":
        return None
    candidates = [explicit] if explicit else [binary.parent.parent.parent / "bench/goblin-bench-csv"]
    for c in candidates:
        if c and Path(c).is_file() and os.access(c, os.X_OK):
            return Path(c).resolve()
    if explicit:
        sys.exit(f"bench: --csv-bench {explicit}: not an executable")
    return None


def json_floor(binary: Path, results, runs: int, log):
    """Runs goblin-bench-jsonfloor (simdjson's DOM parse of the torch trace: alone in memory, and
    end to end from the file on two threads beside `cat`'s loop) on each trace-only folder, and
    prints its lines with the workbench's time on the same folder beside them."""
    tool = binary.parent.parent.parent / "bench/goblin-bench-jsonfloor"
    if not (tool.is_file() and os.access(tool, os.X_OK)):
        return
    for r in results:
        if r.label not in TRACE_ONLY:
            continue
        trace = Path(r.run_dir) / "torch_profile.json"
        proc = subprocess.run([str(tool), str(trace), "--repeat", str(runs), "--threads", str(os.cpu_count() or 2)],
                              capture_output=True, text=True)
        if proc.returncode != 0:
            log(f"bench: {tool} failed on {trace} (exit {proc.returncode}): {proc.stderr.strip()[-500:]}")
            continue
        wb = statistics.median(s.wall_s for s in r.workbench) if r.workbench else float("nan")
        print()
        print(f"JSON floor on {r.label} (goblin-bench-jsonfloor: simdjson parses, nothing is interpreted; "
              f"the workbench reads, validates and interprets the same file in {wb:.3f} s):")
        for line in proc.stdout.splitlines():
            print("  " + line)


CSV_LINE = re.compile(r"^(goblin::CsvReader|libcsv)\s+([0-9.]+) s\s+([0-9.]+) MB/s\s+(\d+) records\s+(\d+) fields")


def csv_tokenizers(tool: Path, run_dir: Path, runs: int, log) -> dict:
    """Runs goblin-bench-csv on the folder's trace.csv: MB/s of CsvReader and of libcsv."""
    proc = subprocess.run([str(tool), str(run_dir / "trace.csv"), "--repeat", str(runs)],
                          capture_output=True, text=True)
    out = {"exit_code": proc.returncode}
    for line in proc.stdout.splitlines():
        m = CSV_LINE.match(line)
        if m:
            out[m.group(1)] = {"s": float(m.group(2)), "mb_s": float(m.group(3)),
                               "records": int(m.group(4)), "fields": int(m.group(5))}
    if proc.returncode not in (0, 1) or "libcsv" not in out or "goblin::CsvReader" not in out:
        log(f"bench: {tool} failed on {run_dir} (exit {proc.returncode}): {proc.stderr.strip()[-500:]}")
        out["error"] = True
    return out


def print_csv_tokenizers(results, markdown: bool):
    rows = []
    for r in results:
        c = r.csv
        if not c or c.get("error"):
            continue
        ours, theirs = c["goblin::CsvReader"], c["libcsv"]
        same = ours["records"] == theirs["records"] and ours["fields"] == theirs["fields"]
        rows.append([f"{r.bytes / 1e6:,.0f} MB", f"{ours['mb_s']:,.0f}", f"{theirs['mb_s']:,.0f}",
                     f"{ours['mb_s'] / theirs['mb_s']:.1f}x", f"{ours['records']:,}", f"{ours['fields']:,}",
                     "same" if same else f"DIFF (libcsv {theirs['records']:,} records, {theirs['fields']:,} fields)"])
    if not rows:
        return
    print()
    print("CSV tokenizer on trace.csv (goblin-bench-csv: best of --runs, fields and records only, no number parsing):")
    head = ["folder", "CsvReader MB/s", "libcsv MB/s", "CsvReader/libcsv", "records", "fields", "counts"]
    if markdown:
        print("| " + " | ".join(head) + " |")
        print("|---|" + "|".join("---:" for _ in head[1:-1]) + "|---|")
        for row in rows:
            print("| " + " | ".join(row) + " |")
    else:
        widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(head)]
        print("  ".join(h.rjust(w) for h, w in zip(head, widths)))
        for row in rows:
            print("  ".join(c.rjust(w) for c, w in zip(row, widths)))


def print_table(head, rows, markdown: bool):
    if markdown:
        print("| " + " | ".join(head) + " |")
        print("|" + "|".join("---" if h in ("size", "check") else "---:" for h in head) + "|")
        for row in rows:
            print("| " + " | ".join(row) + " |")
        return
    widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(head)]
    print("  ".join(h.rjust(w) for h, w in zip(head, widths)))
    for row in rows:
        print("  ".join(c.rjust(w) for c, w in zip(row, widths)))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog="\n\n".join(__doc__.split("\n\n")[1:]))
    ap.add_argument("--smoke", action="store_true",
                    help="CI smoke mode: the 10 MB folder only, one run each (reference only if found)")
    ap.add_argument("--sizes", default=None,
                    help=f"comma list of {', '.join([*SIZES, *TRACE_ONLY])} or kernel counts (default: all five)")
    ap.add_argument("--runs", type=int, default=None, help="runs of each command per folder (default 5; smoke 1)")
    ap.add_argument("--warmup", type=int, default=1,
                    help="unmeasured runs of cat and of the workbench before each measured one (default 1; smoke 0)")
    ap.add_argument("--ref-runs", type=int, default=5, help="reference runs on folders below 1M kernels (default 5)")
    ap.add_argument("--ref-runs-large", type=int, default=1,
                    help="reference runs on folders of 1M kernels and more (default 1)")
    ap.add_argument("--ref-max-kernels", type=int, default=LARGE_KERNELS,
                    help="skip the reference above this many kernels (default 1000000: not on 2.2 GB)")
    ap.add_argument("--work-dir", default=os.environ.get("GOBLIN_BENCH_DIR", "/tmp/goblin-bench"),
                    help="where the run folders are made and reused (env GOBLIN_BENCH_DIR; default /tmp/goblin-bench)")
    ap.add_argument("--binary", default=None,
                    help="goblin-workbench executable (env GOBLIN_WORKBENCH; default: build/release, build-release, "
                         "build/ci, build/dev, build under the repo)")
    ap.add_argument("--oracle", default=os.environ.get("GOBLIN_REFERENCE_ORACLE",
                                                       str(REPO.parent / "shared/reference/oracle.py")),
                    help="the reference oracle.py (env GOBLIN_REFERENCE_ORACLE; default ../shared/reference/oracle.py "
                         "beside the repo); 'none' to skip it")
    ap.add_argument("--make-run", default=os.environ.get("GOBLIN_MAKE_RUN", str(REPO.parent / "shared/tools/make_run.py")),
                    help="make_run.py (env GOBLIN_MAKE_RUN; default ../shared/tools/make_run.py beside the repo)")
    ap.add_argument("--csv-bench", default=os.environ.get("GOBLIN_BENCH_CSV"),
                    help="goblin-bench-csv for the CSV tokenizer comparison with libcsv (env GOBLIN_BENCH_CSV; "
                         "default: bench/goblin-bench-csv of the workbench's build if it was built; 'none' skips it)")
    ap.add_argument("--python", default=sys.executable, help="interpreter for the oracle (default: this one)")
    ap.add_argument("--no-check", action="store_true",
                    help="do not compare the workbench's reference-profile metrics with the oracle's")
    ap.add_argument("--realtime", action="store_true",
                    help="run every measured command (cat, workbench, reference alike) under SCHED_FIFO priority 1 "
                         "(inherited by every child; needs root) so that other processes on a shared machine do not stretch the "
                         "wall times; the kernel still leaves them 5%% of each core")
    ap.add_argument("--markdown", action="store_true", help="print the table as Markdown")
    ap.add_argument("--json", dest="json_out", help="also write every measurement to this JSON file")
    ap.add_argument("--baseline", type=Path, default=None,
                    help="an earlier build's goblin-workbench: run after the workbench in every round and printed "
                         "beside it as before/after (CPU s, CPU s/GiB, wall, peak RSS and their ratios)")
    ap.add_argument("--clean-large", action="store_true",
                    help="delete the folders of 1M kernels and more when done (they are ~1 and ~2.2 GB)")
    args = ap.parse_args()

    def log(msg):
        print(msg, file=sys.stderr, flush=True)

    if args.smoke:
        sizes = args.sizes or "10MB"
        args.runs = args.runs or 1
        args.warmup = 0
        args.ref_runs = min(args.ref_runs, args.runs)
    else:
        sizes = args.sizes or ",".join([*SIZES, *TRACE_ONLY])
        args.runs = args.runs or 5
    if args.runs < 1:
        ap.error("--runs must be at least 1")
    plan = []
    for item in sizes.split(","):
        item = item.strip()
        if item in SIZES:
            plan.append((item, SIZES[item]))
        elif item in TRACE_ONLY:
            plan.append((item, TRACE_ONLY[item]))
        elif item.isdigit() and int(item) > 0:
            plan.append((f"{int(item)} kernels", int(item)))
        else:
            ap.error(f"--sizes: '{item}' is not one of {', '.join([*SIZES, *TRACE_ONLY])} nor a kernel count")

    if args.baseline is not None and not (args.baseline.is_file() and os.access(args.baseline, os.X_OK)):
        ap.error(f"--baseline {args.baseline}: not an executable")
    binary = find_binary(args.binary)
    if binary is None:
        sys.exit("bench: no goblin-workbench executable found; build one (scripts/bench.sh does, in build/release) "
                 "or pass --binary / set GOBLIN_WORKBENCH")
    oracle = None if args.oracle == "none" else Path(args.oracle)
    if oracle is not None and not oracle.is_file():
        log(f"bench: reference oracle {oracle} not found: reference: n/a")
        oracle = None
    use_gnu_time = have_gnu_time()
    csv_bench = find_csv_bench(args.csv_bench, binary)
    make_run = Path(args.make_run)
    work_dir = Path(args.work_dir)
    work_dir.mkdir(parents=True, exist_ok=True)

    info = machine_info(work_dir)
    print(f"machine: {info['nproc']} cores, {info['cpu']}, {info['ram_gb']} GB RAM"
          f" (swap {info.get('swap_gb', '?')} GB), disk {info['disk']}, Linux {info['kernel']}")
    print(f"workbench: {binary} (CMAKE_BUILD_TYPE {build_type(binary)}), source {git_state()}")
    print(f"reference: {oracle if oracle else 'n/a'}")
    print(f"measured with: {'GNU time (' + GNU_TIME + ' -f ' + repr(TIME_FORMAT) + ') for RSS and CPU, a monotonic clock around it for wall time' if use_gnu_time else 'wait4() and a monotonic clock (GNU time not installed: apt-get install time)'}; "
          f"{args.runs} run(s) each, medians; {args.warmup} unmeasured run(s) of cat and of the workbench before "
          f"each measured one; page cache warmed once, never dropped"
          + ("; every command under SCHED_FIFO 1 (--realtime)" if args.realtime else ""))
    print(f"CSV tokenizer comparison: {csv_bench if csv_bench else 'n/a (goblin-bench-csv not built: needs libcsv-dev)'}")
    print(f"load average at start: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    sys.stdout.flush()

    # The folders are made first, at normal priority.
    run_dirs = [ensure_run_folder(work_dir, kernels, make_run, log, label in TRACE_ONLY) for label, kernels in plan]
    if args.realtime:
        # This process, so that every child inherits the policy from fork() on: a prefix such as
        # `chrt` would leave the fork and exec before it at normal priority, which on a loaded
        # machine adds tens of milliseconds to every command.
        try:
            os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(1))
        except (OSError, AttributeError) as e:
            sys.exit(f"bench: --realtime needs the right to use SCHED_FIFO (root): {e}")

    results = []
    with tempfile.TemporaryDirectory(prefix="goblin-bench-") as scratch:
        for (label, kernels), run_dir in zip(plan, run_dirs):
            log(f"{label}: {run_dir} ({folder_bytes(run_dir) / 1e6:.0f} MB)")
            results.append(bench_folder(label, kernels, run_dir, args, binary, oracle, use_gnu_time, Path(scratch), log))
            if csv_bench and (run_dir / "trace.csv").is_file():  # trace-only folders have none
                results[-1].csv = csv_tokenizers(csv_bench, run_dir, args.runs, log)

    print()
    head, rows = table_rows(results)
    print_table(head, rows, args.markdown)
    print()
    print("ref/wb: reference time / workbench time (speed-up); ref/wb CPU: the same with user+sys CPU time")
    print("(less sensitive to other load on the machine); wb/cat: workbench time / `cat FILES > /dev/null`;")
    print("wb CPU s: user+sys of the workbench; CPU cores: that / wall (2 = both cores busy all along);")
    print("RSS/size: peak RSS / folder bytes; wb s/GB: workbench time per GB (flat = linear);")
    print("wb CPU s/GiB, cat CPU s/GiB: user+sys CPU seconds per GiB read (steadier than wall time on a shared machine);")
    print("disk MB: read from disk by the workbench (median; 0 = the files came from the page cache);")
    print("check: the workbench's --profile reference metrics against the oracle's (1e-9 relative);")
    print("load 1m: the machine's 1-minute load average before/after the folder's runs (other processes).")
    print_before_after(results, args.baseline, args.markdown)
    print_csv_tokenizers(results, args.markdown)
    json_floor(binary, results, args.runs, log)

    if args.json_out:
        Path(args.json_out).write_text(json.dumps({
            "machine": info, "binary": str(binary), "build_type": build_type(binary), "source": git_state(),
            "oracle": str(oracle) if oracle else None, "gnu_time": use_gnu_time, "runs": args.runs,
            "realtime": args.realtime,
            "results": [{
                "label": r.label, "kernels": r.kernels, "run_dir": r.run_dir, "bytes": r.bytes, "check": r.check,
                "reference_note": r.reference_note, "loadavg_before": r.loadavg_before,
                "loadavg_after": r.loadavg_after, "csv_tokenizers": r.csv,
                **{kind: [vars(s) for s in getattr(r, kind)] for kind in ("workbench", "baseline", "reference", "cat")},
            } for r in results],
        }, indent=2) + "\n")

    if args.clean_large:
        for label, kernels in plan:
            if kernels >= LARGE_KERNELS:
                stem = f"run-k{kernels}" + ("-trace-only" if label in TRACE_ONLY else "")
                shutil.rmtree(work_dir / stem, ignore_errors=True)
                (work_dir / f"{stem}.done").unlink(missing_ok=True)
                log(f"deleted {work_dir / stem}")

    mismatches = [r for r in results if r.check.startswith("DIFF")]
    if mismatches:
        for r in mismatches:
            log(f"bench: {r.label}: the workbench's reference profile differs from the oracle: {r.check}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
