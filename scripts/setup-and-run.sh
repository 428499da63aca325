#!/usr/bin/env bash
# Fresh Debian 12 -> dependencies installed, project built, the example run folder opened.
set -euo pipefail
cd "$(dirname "$0")/.."
# The window needs a display; say so before a build that would end in Qt's "could not connect
# to display" (the platform plugin's own message is long and names no way out).
if [ -z "${DISPLAY:-}" ] && [ -z "${WAYLAND_DISPLAY:-}" ] && [ -z "${QT_QPA_PLATFORM:-}" ]; then
    echo "setup-and-run.sh: no display (DISPLAY is not set): run it in a desktop session, over 'ssh -X', or on a virtual one: 'sudo apt-get install xvfb xauth && xvfb-run -a ./scripts/setup-and-run.sh'; without a window, 'goblin-workbench report RUN_DIR --json -' prints the report." >&2
    exit 1
fi
./scripts/install-deps.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo
cmake --build build -j"$(nproc)" --target goblin-workbench goblin-workbench-gui
exec ./build/src/app/goblin-workbench "${1:-resources/example-run}"
