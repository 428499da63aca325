#!/bin/bash
# The loading benchmark in one command: builds goblin-workbench in Release (build/release, only
# the targets it needs), then runs bench/bench.py with the given options.
#
#   scripts/bench.sh                 # 10 MB, 100 MB, 1 GB, 2.2 GB folders; ~4 GB in /tmp/goblin-bench
#   scripts/bench.sh --smoke         # the 10 MB folder only, one run each (CI)
#   scripts/bench.sh --sizes 10MB,100MB --markdown
#
# Environment: GOBLIN_BENCH_DIR (folders, default /tmp/goblin-bench), GOBLIN_REFERENCE_ORACLE
# (default ../shared/reference/oracle.py beside the repo; without it "reference: n/a"),
# GOBLIN_MAKE_RUN (default ../shared/tools/make_run.py), GOBLIN_BENCH_BUILD_DIR (build/release),
# GOBLIN_WORKBENCH (use this executable and skip the build).
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)

if [ -z "${GOBLIN_WORKBENCH:-}" ]; then
    build=${GOBLIN_BENCH_BUILD_DIR:-$repo/build/release}
    if [ ! -f "$build/CMakeCache.txt" ]; then
        cmake -S "$repo" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DGOBLIN_BUILD_TESTS=OFF >/dev/null
    fi
    targets=(goblin-workbench)
    # The benchmark executables too, when this build has them (optional dependencies).
    for t in goblin-bench-thresholds goblin-bench-repaint goblin-bench-csv goblin-bench-load; do
        if ninja -C "$build" -t targets all 2>/dev/null | grep -q "^$t:"; then
            targets+=("$t")
        fi
    done
    cmake --build "$build" --parallel "${CMAKE_BUILD_PARALLEL_LEVEL:-2}" --target "${targets[@]}" >&2
    export GOBLIN_WORKBENCH=$build/src/app/goblin-workbench
fi

exec python3 "$repo/bench/bench.py" "$@"
