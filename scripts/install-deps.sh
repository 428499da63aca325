#!/usr/bin/env bash
# Installs what building, testing and running Goblin Workbench need on Debian 12 (apt only).
# dpkg-dev: dpkg-shlibdeps, which gives the .deb (cmake --build build --target package) its Depends.
# libqt6opengl6-dev: Qt6Charts' CMake package needs Qt6OpenGL's, only a Recommends of qt6-base-dev.
# libisal-dev: Intel ISA-L, which inflates .gz traces (zlib does when it is missing; issue 25).
set -euo pipefail
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends \
    cmake ninja-build g++ pkg-config dpkg-dev \
    qt6-base-dev qt6-base-dev-tools libqt6opengl6-dev qt6-charts-dev libqcustomplot-dev libgl-dev \
    libsimdjson-dev zlib1g-dev libisal-dev libsqlite3-dev libprotozero-dev libbenchmark-dev libcsv-dev \
    qt6-qpa-plugins fonts-dejavu-core xvfb xauth time python3 "$@" > /dev/null
