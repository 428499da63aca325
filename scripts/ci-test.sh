#!/bin/bash
# The whole check, as CI runs it: build + tests with -Werror, the test suite under ASan+UBSan,
# the fuzzers for a short fixed time, and the .deb built, validated, installed and run.
# Stages can be picked: scripts/ci-test.sh [build] [sanitizers] [fuzz] [package]
source "$(dirname "$0")/ci-lib.sh"
here=$(dirname "$0")
stages=("$@")
[ ${#stages[@]} -gt 0 ] || stages=(build sanitizers fuzz package)
start=$SECONDS
for stage in "${stages[@]}"; do
    case $stage in
        build) "$here/ci-build-test.sh" ;;
        sanitizers) "$here/ci-sanitizers.sh" ;;
        fuzz) "$here/ci-fuzz.sh" ;;
        package) "$here/ci-package.sh" ;;
        *) die "unknown stage '$stage' (build, sanitizers, fuzz, package)" ;;
    esac
done
section "All stages passed (${stages[*]}) in $(((SECONDS - start) / 60)) min $(((SECONDS - start) % 60)) s"
