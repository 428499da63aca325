#!/bin/bash
# Stage 3: the libFuzzer targets (clang, ASan + UBSan on the parsers; preset `fuzz`), each run
# for a short fixed time from a fresh corpus seeded with tests/fuzz/seeds/<parser>, the
# matching files of tests/data and the regression inputs. Any crash, sanitizer report, leak,
# timeout or out-of-memory fails the stage and leaves the input in build/fuzz/artifacts/.
#   GOBLIN_FUZZ_SECONDS  seconds per target (default 20: 16 targets, and the whole CI run kept under 45 min)
#   GOBLIN_FUZZ_TARGETS  which targets (default: kerneltrace torchtrace amdsmi csv json database
#                        pftrace; the two grammar targets start from the seeds of the formats
#                        written in them, database from the SQLite files of tests/data)
source "$(dirname "$0")/ci-lib.sh"
cd "$GOBLIN_SOURCE_DIR"

seconds=${GOBLIN_FUZZ_SECONDS:-20}
targets=${GOBLIN_FUZZ_TARGETS:-kerneltrace torchtrace amdsmi csv json database pftrace}
build=$GOBLIN_BUILD_ROOT/fuzz

section "Stage 3/4: fuzz targets (preset fuzz, clang)"
cmake --preset fuzz -B "$build"
fuzz_targets=()
for t in $targets; do fuzz_targets+=("fuzz_$t"); done
cmake --build "$build" --target "${fuzz_targets[@]}"

# The formats whose seeds, test files and regression inputs a target starts from, and its dictionary.
seed_formats() {
    case $1 in
        csv) echo "kerneltrace amdsmi csv" ;;
        json) echo "torchtrace json" ;;
        *) echo "$1" ;;
    esac
}
dictionary() {
    case $1 in
        csv) echo kerneltrace ;;
        *) echo "$1" ;;
    esac
}

# Copies the tests/data files that a parser reads into a seed folder (small ones only: big
# seeds slow every mutation down).
collect_data_seeds() {
    local parser=$1 out=$2
    local -a names
    case $parser in
        kerneltrace) names=(-name trace.csv -o -name '*_kernel_trace.csv' -o -name 'results*.csv' -o -name 'timestamps.csv') ;;
        torchtrace) names=(-name 'torch_profile.json*' -o -name '*.pt.trace.json*') ;;
        amdsmi) names=(-name 'amd_smi.csv' -o -name '*amd*smi*.csv') ;;
        json) names=(-name '*.json') ;;
        database) names=(-name '*.rpd' -o -name '*.sqlite' -o -name '*.db') ;;  # rocpd, rpd, nsys
        pftrace) names=(-name '*.pftrace') ;;
        *) return 0 ;;  # a grammar's own seeds only
    esac
    local n=0 f
    while IFS= read -r -d '' f; do
        cp "$f" "$out/data-$parser-$n-$(basename "$f")"
        n=$((n + 1))
    done < <(find tests/data -path tests/data/fuzz-regressions -prune -o -type f \( "${names[@]}" \) -size -256k -print0 | sort -z)
    echo "$n file(s) from tests/data"
}

for parser in $targets; do
    section "Stage 3/4: fuzz_$parser for ${seconds}s"
    corpus=$build/corpus/$parser
    seeds=$build/seeds/$parser
    artifacts=$build/artifacts/$parser
    rm -rf "$corpus" "$seeds" "$artifacts"
    mkdir -p "$corpus" "$seeds" "$artifacts"
    for format in $(seed_formats "$parser"); do
        if [ -d tests/fuzz/seeds/"$format" ]; then
            cp tests/fuzz/seeds/"$format"/* "$seeds"/
        fi
        collect_data_seeds "$format" "$seeds"
        if [ -d tests/data/fuzz-regressions/"$format" ]; then
            cp tests/data/fuzz-regressions/"$format"/* "$seeds"/ 2>/dev/null || true
        fi
    done
    # A gzip seed that inflates to megabytes (the gzip bomb of F2) costs every mutation of it
    # the whole inflation (40 ms under ASan, the time of 40 other inputs): tst_fuzzregressions
    # reads it under ASan in stage 2, the fuzzer gets the smaller seeds.
    for f in "$seeds"/*.gz; do
        [ -e "$f" ] || continue
        if [ "$( (gzip -dc "$f" 2>/dev/null || true) | head -c 1048577 | wc -c)" -gt 1048576 ]; then
            echo "not a fuzz seed (inflates to over 1 MB): $(basename "$f")"
            rm -f "$f"
        fi
    done
    # New inputs go to the first folder (a scratch corpus); the seeds are only read.
    status=0
    # The JSON targets parse every byte through instrumented code (about 7 ms per 64 kB input
    # under ASan+UBSan): 8 kB inputs (seeds cut there) give eight times the mutations. fuzz_csv
    # reads every input a second time in 1-16-byte chunks (a refill and a resumed scan per
    # chunk): 16 kB inputs hold a header and dozens of records, and the grammar's one
    # size-dependent rule (Python's 131,072-character field limit) is out of reach of 64 kB
    # inputs anyway; its caps and truncation paths run with the small caps of the mode byte.
    # A database seed is a whole SQLite file (64-256 kB of pages): cut at 64 kB it would only be
    # "truncated". Its reader's own deadline (10 s for a small file) must stop a costly file
    # before libFuzzer's timeout would: a timeout there is a finding.
    max_len=65536
    timeout=10
    case $parser in torchtrace|json) max_len=8192 ;; csv) max_len=16384 ;; database) max_len=262144 timeout=20 ;; esac
    "$build/tests/fuzz/fuzz_$parser" \
        -max_total_time="$seconds" -timeout="$timeout" -rss_limit_mb=2048 -max_len="$max_len" \
        -dict="tests/fuzz/$(dictionary "$parser").dict" -artifact_prefix="$artifacts/" \
        -print_final_stats=1 "$corpus" "$seeds" 2>"$build/fuzz_$parser.log" || status=$?
    grep -E '^(stat::|Done |INFO: (Loaded|seed corpus))' "$build/fuzz_$parser.log" || true
    if [ "$status" -ne 0 ]; then
        tail -n 60 "$build/fuzz_$parser.log"
        ls -l "$artifacts"
        die "fuzz_$parser found a problem (exit $status); the input is in $artifacts"
    fi
done
echo "fuzzing found nothing in ${seconds}s per target"
