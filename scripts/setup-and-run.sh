#!/usr/bin/env bash
# Fresh Debian 12 -> dependencies installed, project built, the example run folder opened.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/install-deps.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo
cmake --build build -j"$(nproc)" --target goblin-workbench
exec ./build/src/app/goblin-workbench "${1:-resources/example-run}"
