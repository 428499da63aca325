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

# The MCP TypeScript SDK for ctest mcp_sdk_client (stage 2 finds it in GOBLIN_BUILD_ROOT/mcp-sdk).
# Not fatal: without the npm registry that test says it is skipped and the Python client covers
# the protocol.
section "The MCP TypeScript SDK (npm)"
# Node.js and npm only where missing (a machine may have them from elsewhere, e.g. NodeSource,
# whose nodejs conflicts with Debian's npm package); a failure here only skips that test.
if ! command -v npm >/dev/null 2>&1; then
    apt-get install -y --no-install-recommends nodejs npm >/dev/null 2>&1 || echo "could not install nodejs and npm"
fi
if command -v npm >/dev/null 2>&1 && timeout 300 npm install --no-audit --no-fund --prefix "$GOBLIN_BUILD_ROOT/mcp-sdk" @modelcontextprotocol/sdk@1 >/dev/null 2>&1; then
    echo "installed @modelcontextprotocol/sdk into $GOBLIN_BUILD_ROOT/mcp-sdk"
else
    echo "could not install @modelcontextprotocol/sdk from npm: ctest mcp_sdk_client will be skipped"
fi
