# Sourced by the scripts/ci-*.sh stages: strict mode, section headers, paths, root helper.
# shellcheck shell=bash
set -euo pipefail

GOBLIN_SOURCE_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# Where the stage build folders go (ci, asan, fuzz); the presets' default is build/<preset>.
GOBLIN_BUILD_ROOT=${GOBLIN_BUILD_ROOT:-$GOBLIN_SOURCE_DIR/build}
# Two cores on the target machines; more parallel jobs only thrash.
export CMAKE_BUILD_PARALLEL_LEVEL=${CMAKE_BUILD_PARALLEL_LEVEL:-2}
export CTEST_PARALLEL_LEVEL=${CTEST_PARALLEL_LEVEL:-2}

section() {
    printf '\n==== %s ==== [%s]\n' "$*" "$(date -u +%H:%M:%S)"
}

die() {
    printf 'ERROR: %s\n' "$*" >&2
    exit 1
}

# Runs a command as root: directly when we are root (CI), else through sudo.
as_root() {
    if [ "$(id -u)" -eq 0 ]; then
        "$@"
    elif command -v sudo >/dev/null; then
        sudo "$@"
    else
        die "'$*' needs root and sudo is not installed"
    fi
}
