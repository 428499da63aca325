#!/bin/bash
# Installs what the host's CI stages (sanitizers, fuzzers) need: the build dependencies and clang
# with the libFuzzer/sanitizer runtimes; mmdebstrap for the fresh-root stages; and the packaging
# checks' tools for a developer's `scripts/ci-package.sh` on this machine. Goes through
# scripts/install-deps.sh so there is one apt command and one package list for the build.
source "$(dirname "$0")/ci-lib.sh"

section "Installing build, fuzzing and packaging dependencies (Debian 12)"
extra=(
    clang libclang-rt-14-dev                            # fuzz targets (stage 3)
    dpkg-dev file desktop-file-utils appstream jq       # .deb, desktop entry, metainfo, report checks
    xdotool imagemagick                                 # the installed window: its title, a screenshot
    mmdebstrap                                          # scripts/ci-fresh-root.sh
)
"$GOBLIN_SOURCE_DIR/scripts/install-deps.sh" "${extra[@]}"
echo "installed the build dependencies and: ${extra[*]}"
