#!/bin/bash
# The README's promise, proven where nothing was installed by hand: a minimal Debian 12 root made
# by mmdebstrap (--variant=apt, plus git) from Debian's packages only, with the host's apt sources.
#
#   scripts/ci-fresh-root.sh readme   clone the commit under test into a fresh root; run the README's
#                                     test command exactly as written there; the benchmark smoke run;
#                                     then the README's run command under Xvfb until the window's title
#                                     names the example; then build and validate the .deb
#   scripts/ci-fresh-root.sh deb      in a second fresh root: apt-get install ./goblin-workbench_*.deb,
#                                     the installed report on the installed example, the window
#   scripts/ci-fresh-root.sh          both
#
# Each root lives on a tmpfs inside private mount and pid namespaces (unshare): every mount and
# every process goes away with the namespace, also when a step fails. The root tarball is cached
# (GOBLIN_ROOT_CACHE, a week at most) and never changed: it holds only what mmdebstrap put there.
# Outputs (the .deb, the window screenshots, logs) go to GOBLIN_FRESH_OUT (default build/fresh-root).
source "$(dirname "$0")/ci-lib.sh"

[ "$(id -u)" -eq 0 ] || die "ci-fresh-root.sh needs root (mmdebstrap, unshare, mount, chroot)"
modes=("$@")
[ ${#modes[@]} -gt 0 ] || modes=(readme deb)
cache=${GOBLIN_ROOT_CACHE:-/var/cache/goblin-ci}
tarball=$cache/bookworm-apt-git.tar
out=${GOBLIN_FRESH_OUT:-$GOBLIN_BUILD_ROOT/fresh-root}
shared=$(cd "$GOBLIN_SOURCE_DIR/.." && pwd)/shared
mkdir -p "$cache" "$out"
out=$(cd "$out" && pwd)

ensure_tarball() {
    if [ -f "$tarball" ] && [ -n "$(find "$tarball" -mtime -7 2>/dev/null)" ]; then
        echo "fresh root: cached $tarball ($(du -h "$tarball" | cut -f1), made $(date -u -r "$tarball" '+%Y-%m-%d %H:%M') UTC)"
        return
    fi
    if ! command -v mmdebstrap >/dev/null; then
        apt-get update -qq
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends mmdebstrap >/dev/null
    fi
    # The host's apt sources, so that the root sees exactly the archive the host does. Given as a
    # file: without one mmdebstrap would read sources from standard input, and CI has none.
    local sources=/etc/apt/sources.list.d/debian.sources
    [ -f "$sources" ] || sources=/etc/apt/sources.list
    section "Making a minimal Debian 12 root: mmdebstrap --variant=apt --include=git,ca-certificates"
    mmdebstrap --variant=apt --format=tar --include=git,ca-certificates bookworm "$tarball.part" "$sources" </dev/null
    mv "$tarball.part" "$tarball"
}

# Runs the script on standard input as root inside a new fresh root. The source checkout is
# mounted read-only at /src/origin, ../shared (if any) read-only at /root/shared, $out at /out.
in_fresh_root() {
    local label=$1 inner
    inner=$(mktemp /tmp/goblin-fresh-inner.XXXXXX)
    cat >"$inner"
    local mountpoint
    mountpoint=$(mktemp -d /tmp/goblin-fresh-root.XXXXXX)
    section "Fresh Debian 12 root ($label)"
    local status=0
    GOBLIN_ROOT=$mountpoint GOBLIN_TARBALL=$tarball GOBLIN_ORIGIN=$GOBLIN_SOURCE_DIR GOBLIN_SHARED=$shared \
        GOBLIN_OUT=$out GOBLIN_INNER=$inner \
        unshare --mount --pid --fork --kill-child --propagation private bash -euo pipefail -c '
        root=$GOBLIN_ROOT
        mount -t tmpfs -o size=20g,mode=0755 goblin-fresh-root "$root"
        tar -C "$root" -xf "$GOBLIN_TARBALL"
        mount -t proc proc "$root/proc"
        mount --rbind /dev "$root/dev" && mount --make-rslave "$root/dev"
        mount --rbind /sys "$root/sys" && mount --make-rslave "$root/sys"
        cp /etc/resolv.conf "$root/etc/resolv.conf"
        mkdir -p "$root/src/origin" "$root/out" "$root/root/shared"
        mount --bind "$GOBLIN_ORIGIN" "$root/src/origin" && mount -o remount,bind,ro "$root/src/origin"
        mount --bind "$GOBLIN_OUT" "$root/out"
        if [ -d "$GOBLIN_SHARED" ]; then
            mount --bind "$GOBLIN_SHARED" "$root/root/shared" && mount -o remount,bind,ro "$root/root/shared"
        fi
        cp "$GOBLIN_INNER" "$root/inner.sh"
        echo "fresh root: $(du -sh --exclude=proc --exclude=sys --exclude=dev --exclude=src --exclude=out "$root" 2>/dev/null | cut -f1), $(chroot "$root" dpkg-query -W | wc -l) packages"
        chroot "$root" /usr/bin/env -i HOME=/root LANG=C.UTF-8 TERM=dumb CI=true \
            PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
            bash -euo pipefail /inner.sh
    ' || status=$?
    rm -f "$inner"
    rmdir "$mountpoint" 2>/dev/null || true
    [ "$status" -eq 0 ] || die "the fresh-root stage '$label' failed (exit $status)"
}

readme_stage() {
    rm -f "$out"/goblin-workbench_*.deb "$out"/*.png "$out"/*.log
    in_fresh_root "README commands" <<'EOS'
cd /root
git clone -q /src/origin goblin-workbench
cd goblin-workbench
echo "commit under test: $(git log -1 --format='%h %s')"
stage() { printf '\n==== fresh root: %s ==== [%s]\n' "$*" "$(date -u +%H:%M:%S)"; }

stage "the README's test command: ./scripts/setup-and-test.sh"
start=$SECONDS
./scripts/setup-and-test.sh
echo "README test command: passed in $((SECONDS - start)) s"

if [ -f ../shared/tools/make_run.py ]; then
    stage "benchmark smoke run (10 MB folder)"
    GOBLIN_BENCH_DIR=$(mktemp -d) python3 bench/bench.py --smoke --binary build/src/app/goblin-workbench
fi
if [ -d ../shared/samples ]; then
    stage "report self-check over the samples (scripts/selfcheck.py)"
    python3 scripts/selfcheck.py --binary build/src/app/goblin-workbench --samples ../shared/samples
fi

stage "the README's run command under Xvfb: xvfb-run -a ./scripts/setup-and-run.sh"
# The observer (window title, screenshot) is installed after the README's commands have run,
# so it cannot stand in for anything they forgot.
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends xdotool imagemagick >/dev/null
cat >/tmp/window-check.sh <<'EOW'
#!/bin/bash
./scripts/setup-and-run.sh >/out/run-command.log 2>&1 &
app=$!
start=$SECONDS
while [ $((SECONDS - start)) -lt 600 ]; do
    sleep 1
    kill -0 $app 2>/dev/null || { echo "the run command exited: $(wait $app; echo status $?)"; exit 1; }
    if xdotool search --name 'Goblin Workbench — example-run' >/dev/null 2>&1; then
        sleep 2
        import -window root /out/fresh-root-window.png
        echo "window title: $(xdotool getwindowname "$(xdotool search --name 'Goblin Workbench — example-run' | head -n1)")"
        echo "the run command opened the example in $((SECONDS - start)) s"
        kill $app
        exit 0
    fi
done
echo "no window titled 'Goblin Workbench — example-run' within 600 s"
exit 1
EOW
chmod +x /tmp/window-check.sh
if ! xvfb-run -a -s '-screen 0 1600x1000x24' /tmp/window-check.sh; then
    cat /out/run-command.log
    exit 1
fi
# Without a display the run command must say so in one line.
if env -u DISPLAY ./scripts/setup-and-run.sh >/tmp/nodisplay.log 2>&1; then
    echo "setup-and-run.sh without a display did not fail"; exit 1
fi
[ "$(wc -l </tmp/nodisplay.log)" -eq 1 ] && grep -q 'no display' /tmp/nodisplay.log \
    || { echo "setup-and-run.sh without a display said:"; cat /tmp/nodisplay.log; exit 1; }
echo "without a display: $(cat /tmp/nodisplay.log)"

stage "the .deb: cpack and validation"
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
    dpkg-dev file desktop-file-utils appstream >/dev/null
GOBLIN_PACKAGE_BUILD_DIR=$PWD/build ./scripts/ci-package.sh build
cp build/goblin-workbench_*.deb /out/
EOS
    ls -l "$out"/goblin-workbench_*.deb "$out"/fresh-root-window.png
}

deb_stage() {
    local debs=("$out"/goblin-workbench_*.deb)
    [ -f "${debs[0]}" ] || die "no .deb in $out: run the readme stage first"
    in_fresh_root ".deb install" <<'EOS'
apt-get update -qq
cd /src/origin
GOBLIN_BUILD_ROOT=/out GOBLIN_PACKAGE_SHOT=/out/installed-window.png ./scripts/ci-package.sh install /out/goblin-workbench_*.deb
EOS
}

ensure_tarball
for mode in "${modes[@]}"; do
    stage_start=$SECONDS
    case $mode in
        readme) readme_stage ;;
        deb) deb_stage ;;
        *) die "unknown stage '$mode' (readme, deb)" ;;
    esac
    echo "fresh-root stage '$mode' passed in $(((SECONDS - stage_start) / 60)) min $(((SECONDS - stage_start) % 60)) s"
done
