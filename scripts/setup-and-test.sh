#!/usr/bin/env bash
# Fresh Debian 12 -> dependencies installed, project built, every test run.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/install-deps.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo ${GOBLIN_CMAKE_ARGS:-}
cmake --build build -j"$(nproc)"
ctest --test-dir build --output-on-failure --no-tests=error -j"$(nproc)"
