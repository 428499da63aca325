#!/bin/bash
# Stage 1: the normal build with warnings as errors (preset `ci`) and the whole test suite.
source "$(dirname "$0")/ci-lib.sh"
cd "$GOBLIN_SOURCE_DIR"

build=$GOBLIN_BUILD_ROOT/ci

section "Stage 1/4: build with -Werror (preset ci)"
cmake --preset ci -B "$build"
cmake --build "$build"

section "Stage 1/4: full test suite"
# As the ci test preset: fail when no test ran.
ctest --test-dir "$build" --output-on-failure --no-tests=error
