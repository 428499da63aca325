#!/bin/bash
# The package: build the .deb with CPack from a finished build, validate the desktop
# integration on a DESTDIR install and the declared dependencies ("build" part); then install
# the .deb with apt like a user would and run the INSTALLED binary: --version, a headless report
# (no display) and the window under Xvfb ("install" part).
#   scripts/ci-package.sh [all]          both parts on this machine (a developer's check)
#   scripts/ci-package.sh build          cpack + validation; the .deb is left in the build folder
#   scripts/ci-package.sh install DEB    apt-get install ./DEB and run it (scripts/ci-fresh-root.sh
#                                        does this in a second fresh Debian 12 root)
# In "install", the tools the checks need (jq, file, Xvfb, xdotool, ImageMagick) are installed only
# after the package has been installed and has run headless, so that they cannot stand in for a
# dependency the package forgot to declare.
source "$(dirname "$0")/ci-lib.sh"
cd "$GOBLIN_SOURCE_DIR"

mode=${1:-all}
app_id=io.github.goblinworkbench.GoblinWorkbench
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export DEBIAN_FRONTEND=noninteractive

package_build() {
# The build to package: stage 1's by default; .ci/run passes the README command's build/.
build=${GOBLIN_PACKAGE_BUILD_DIR:-$GOBLIN_BUILD_ROOT/ci}
[ -f "$build/CMakeCache.txt" ] || die "$build is not configured; build it first (scripts/ci-build-test.sh)"

section "Stage 4/4: cpack -G DEB and TGZ"
rm -f "$build"/goblin-workbench_*.deb "$build"/goblin-workbench-*.tar.gz
(cd "$build" && cpack -G "DEB;TGZ")
debs=("$build"/goblin-workbench_*.deb)
if [ ${#debs[@]} -ne 1 ] || [ ! -f "${debs[0]}" ]; then
    die "expected exactly one goblin-workbench_*.deb in $build"
fi
deb=${debs[0]}
dpkg-deb --info "$deb"
dpkg-deb --contents "$deb"

section "Stage 4/4: DESTDIR install, desktop-file-validate, appstreamcli validate-tree"
destdir=$work/destdir
DESTDIR=$destdir cmake --install "$build" --prefix /usr >/dev/null
desktop-file-validate "$destdir/usr/share/applications/$app_id.desktop"
echo "desktop-file-validate: $app_id.desktop is valid"
appstreamcli validate-tree --no-net "$destdir"
for size in 16 22 24 32 48 64 128 256 512; do
    icon=$destdir/usr/share/icons/hicolor/${size}x${size}/apps/$app_id.png
    file "$icon" | grep -q "PNG image data, $size x $size" || die "icon $icon is not a ${size}px PNG"
done
gzip -t "$destdir/usr/share/man/man1/goblin-workbench.1.gz"

section "Stage 4/4: declared dependencies cover every library the binary links"
depends=$(dpkg-deb --field "$deb" Depends)
echo "Depends: $depends"
dpkg-deb --extract "$deb" "$work/extracted"
declared=$(tr ',' '\n' <<<"$depends" | sed -E 's/^ *//; s/[ (|].*$//' | sort -u)
# Which installed package ships a library file (dpkg knows /lib and /usr/lib spellings apart on
# merged-/usr systems, so try both).
owner() {
    local path=$1 alt
    case $path in
        /usr/lib/*) alt=${path#/usr} ;;
        /lib/*) alt=/usr$path ;;
        *) alt=$path ;;
    esac
    dpkg -S "$path" 2>/dev/null || dpkg -S "$alt" 2>/dev/null || true
}
missing=0
# Both programs: goblin-workbench (QtCore only) and the window it execs, goblin-workbench-gui.
for binary in "$work/extracted/usr/bin/goblin-workbench" \
              "$work/extracted/usr/libexec/goblin-workbench/goblin-workbench-gui"; do
[ -x "$binary" ] || { echo "  ${binary#"$work"/extracted}: missing from the package"; missing=1; continue; }
echo "${binary#"$work"/extracted}:"
# Only the libraries the binary itself names (DT_NEEDED); theirs are their packages' business.
for soname in $(readelf -d "$binary" | sed -nE 's/.*\(NEEDED\).*\[(.*)\]/\1/p'); do
    path=$(ldd "$binary" | awk -v so="$soname" '$1 == so && $2 == "=>" {print $3}')
    # The dynamic loader is listed by its path alone ("/lib64/ld-linux-x86-64.so.2 (0x…)"); a binary
    # names it when thread_local storage in position-independent code asks for __tls_get_addr.
    [ -n "$path" ] || path=$(ldd "$binary" | awk -v so="$soname" '$2 != "=>" && $1 ~ ("/" so "$") {print $1}')
    [ -n "$path" ] || { echo "  $soname: not found by the dynamic linker"; missing=1; continue; }
    pkg=$(owner "$path" | head -n1 | cut -d: -f1)
    if [ -z "$pkg" ]; then
        pkg=$(owner "$(readlink -f "$path")" | head -n1 | cut -d: -f1)
    fi
    if [ -z "$pkg" ]; then
        echo "  $soname -> $path: no package owns it"
        missing=1
    elif grep -qxF "$pkg" <<<"$declared"; then
        echo "  $soname -> $pkg (declared)"
    else
        echo "  $soname -> $pkg NOT DECLARED"
        missing=1
    fi
done
done
[ "$missing" -eq 0 ] || die "the package does not declare every runtime library it needs"

echo "package built and validated: $deb"
}

package_install() {
deb=$1
[ -f "$deb" ] || die "no package at '$deb'"
shot=${GOBLIN_PACKAGE_SHOT:-$(dirname "$deb")/installed-window.png}
section "Stage 4/4: apt-get install ./$(basename "$deb")"
# A same-version package already installed would make apt skip the install and leave the old
# binary in place, so remove it first.
if dpkg-query -W -f='${Status}' goblin-workbench 2>/dev/null | grep -q 'ok installed'; then
    as_root dpkg --purge goblin-workbench
fi
cp "$deb" "$work/"
chmod 0644 "$work/$(basename "$deb")"
chmod 0755 "$work"
(cd "$work" && as_root apt-get install -y -qq "./$(basename "$deb")")
dpkg-query -W -f='${Package} ${Version} ${Status}\n' goblin-workbench
installed=$(command -v goblin-workbench) || die "goblin-workbench is not on PATH after the install"
[ "$installed" = /usr/bin/goblin-workbench ] || die "goblin-workbench resolves to $installed, not /usr/bin"
[ -f /usr/share/man/man1/goblin-workbench.1.gz ] || die "the man page is not installed"

section "Stage 4/4: the installed binary"
/usr/bin/goblin-workbench --version
/usr/bin/goblin-workbench --version | grep -Eq '^goblin-workbench [0-9]+\.[0-9]+\.[0-9]+$' \
    || die "--version does not print 'goblin-workbench X.Y.Z'"
/usr/bin/goblin-workbench --help | head -n 5
# The example installed with the package (Help > Open Example Run), not the source tree's.
run=/usr/share/goblin-workbench/example-run
[ -f "$run/trace.csv" ] || die "the example run is not installed in $run"
# Headless means no display at all: no X, no Wayland, no platform override.
env -u DISPLAY -u WAYLAND_DISPLAY -u QT_QPA_PLATFORM \
    /usr/bin/goblin-workbench report "$run" --json - --png "$work/report.png" >"$work/report.json"
echo "goblin-workbench report ran on the installed example ($(wc -c <"$work/report.json") bytes of JSON)"

section "Stage 4/4: the checks' own tools"
missing_tools=()
for tool in jq file xvfb-run xauth xdotool import; do
    command -v "$tool" >/dev/null || missing_tools+=("$tool")
done
if [ ${#missing_tools[@]} -gt 0 ]; then
    echo "installing the checks' tools (missing: ${missing_tools[*]})"
    as_root apt-get install -y -qq --no-install-recommends jq file xvfb xauth xdotool imagemagick >/dev/null
fi
jq -e '.generator.name == "goblin-workbench" and (.metrics | type == "object")' "$work/report.json" >/dev/null \
    || die "the report is not the expected JSON"
jq '{generator, profile, metrics: (.metrics | {gpu_util_pct, hbm_peak_gb, waste_budget})}' "$work/report.json"
file "$work/report.png" | grep -q 'PNG image data' || die "--png did not write a PNG"
file "$work/report.png"

# The window, as a user starts it from the menu: on a virtual X server, Help > Open Example Run's
# folder given on the command line. It must load the example (the title names the run) and keep
# running; a screenshot is kept in the build folder.
cat >"$work/window-check.sh" <<EOS
#!/bin/bash
/usr/bin/goblin-workbench "$run" >"$work/gui.log" 2>&1 &
app=\$!
for _ in \$(seq 60); do
    sleep 0.5
    kill -0 \$app 2>/dev/null || { echo "the window exited: \$(wait \$app; echo status \$?)"; exit 1; }
    if xdotool search --name 'Goblin Workbench — example-run' >/dev/null 2>&1; then
        sleep 2
        kill -0 \$app 2>/dev/null || { echo "the window exited after loading"; exit 1; }
        import -window root "$shot"
        kill \$app
        echo "window title: \$(xdotool getwindowname \$(xdotool search --name 'Goblin Workbench — example-run' | head -n1) 2>/dev/null || echo 'Goblin Workbench — example-run')"
        exit 0
    fi
done
echo "no window titled 'Goblin Workbench — example-run' within 30 s"
kill \$app
exit 1
EOS
chmod +x "$work/window-check.sh"
if ! xvfb-run -a -s '-screen 0 1600x1000x24' "$work/window-check.sh"; then
    cat "$work/gui.log"
    die "the installed window did not open the example run"
fi
file "$shot"
echo "the installed window opened the example run (screenshot: $shot)"
echo "package OK: $(basename "$deb")"
}

case $mode in
    all)
        package_build
        package_install "$deb"
        ;;
    build) package_build ;;
    install) package_install "${2:?usage: ci-package.sh install DEB}" ;;
    *) die "unknown mode '$mode' (all, build, install DEB)" ;;
esac
