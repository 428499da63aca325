#!/bin/bash
# Re-renders the committed hicolor PNGs from the hand-drawn SVG (needs librsvg2-bin).
# Run after editing the SVG; the build installs the committed PNGs and never needs rsvg.
set -euo pipefail
cd "$(dirname "$0")"
id=io.github.goblinworkbench.GoblinWorkbench
for size in 16 22 24 32 48 64 128 256 512; do
    mkdir -p "hicolor/${size}x${size}/apps"
    rsvg-convert -w "$size" -h "$size" "$id.svg" -o "hicolor/${size}x${size}/apps/$id.png"
done
