#!/bin/bash
# Stage 2: the whole test suite built with AddressSanitizer + UndefinedBehaviorSanitizer (gcc,
# preset `asan`). Fails on any sanitizer report, including one from a child process (the tests
# start the application binary) whose exit status a test might not look at:
#  * ASan/LSan reports also go to log files (log_path), and any log file fails the stage;
#  * UBSan reports (gcc's libubsan ignores log_path) are found in ctest's full log of every
#    test's output, Testing/Temporary/LastTest.log.
# The preset links the executables without PIE and with zlib-compressed debug sections: each of the
# ~116 test binaries statically links the instrumented libraries, and was 78 MB (19 MB of PIE
# relocations, 20 MB of debug info), now 48 MB; the stage once ran the CI machine out of disk.
source "$(dirname "$0")/ci-lib.sh"
cd "$GOBLIN_SOURCE_DIR"

build=$GOBLIN_BUILD_ROOT/asan
logs=$build/sanitizer-logs

section "Stage 2/4: ASan + UBSan build (preset asan)"
cmake --preset asan -B "$build"
cmake --build "$build"

section "Stage 2/4: full test suite under ASan + UBSan"
rm -rf "$logs"
mkdir -p "$logs"
# The options of the asan test preset plus log_path, so ctest runs directly rather than through
# the preset (whose environment would override these).
export ASAN_OPTIONS="detect_leaks=1:abort_on_error=1:detect_stack_use_after_return=1:check_initialization_order=1:log_path=$logs/asan"
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1"
export LSAN_OPTIONS="suppressions=$GOBLIN_SOURCE_DIR/scripts/ci-lsan.supp:print_suppressions=0"
# The MCP SDK client test reads the SDK that scripts/ci-deps.sh installed (skipped without it).
export GOBLIN_MCP_SDK_DIR=${GOBLIN_MCP_SDK_DIR:-$GOBLIN_BUILD_ROOT/mcp-sdk}
status=0
ctest --test-dir "$build" --output-on-failure --no-tests=error -j "$CTEST_PARALLEL_LEVEL" || status=$?

shopt -s nullglob
reports=("$logs"/*)
if [ ${#reports[@]} -gt 0 ]; then
    for report in "${reports[@]}"; do
        printf '\n---- %s\n' "$report"
        cat "$report"
    done
    die "${#reports[@]} AddressSanitizer/LeakSanitizer report(s), see above"
fi
pattern='runtime error:|ERROR: (Address|Leak|UndefinedBehavior)Sanitizer|SUMMARY: [A-Za-z]*Sanitizer'
if grep -Eq "$pattern" "$build/Testing/Temporary/LastTest.log"; then
    grep -En -B2 -A12 "$pattern" "$build/Testing/Temporary/LastTest.log" | head -n 200
    die "sanitizer report(s) in the test output, see above"
fi
[ "$status" -eq 0 ] || die "ctest failed under sanitizers (exit $status)"
echo "no sanitizer reports"
