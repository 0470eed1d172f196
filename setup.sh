#!/usr/bin/env bash
# Set up a fresh Debian machine, build callgrind-bd, and profile the
# bundled example with inclusive cache-use costs.
#   ./setup.sh               install packages (as root or with sudo), build,
#                            run the example and show which call chain
#                            wastes the cache
#   ./setup.sh --build       install and build only (used by tests/run-all and CI)
#   ./setup.sh --kcachegrind also install KCachegrind, the graphical browser
#                            of profiles (optional; a KDE program, well
#                            over 100 MB of packages)
#   ./setup.sh --pictures    also install what docs/make-pictures.sh needs
#                            (KCachegrind, Xvfb, xdotool, ImageMagick, dbus)
# Options combine: ./setup.sh --build --kcachegrind.
set -eu
cd "$(dirname "$0")"

usage() { sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'; }
build_only=no
# graphviz: `dot` draws tools/cg2dot.py's call graphs;
# openmpi-bin, libopenmpi-dev: mpirun and mpicc for the MPI tests;
# python3-mpi4py: callgrind-bd_merge's MPI mode;
# python3-matplotlib: callgrind-bd_bandwidth --plot
need="autoconf automake pkgconf make gcc g++ libgomp1 valgrind python3 perl binutils gzip xz-utils
      graphviz openmpi-bin libopenmpi-dev python3-mpi4py python3-matplotlib"
for arg in "$@"; do
    case "$arg" in
        --build) build_only=yes ;;
        --kcachegrind) need="$need kcachegrind" ;;
        --pictures) need="$need kcachegrind xvfb xdotool imagemagick dbus" ;;
        -h|--help) usage; exit 0 ;;
        *) echo "setup.sh: unknown option '$arg' (see ./setup.sh --help)" >&2; exit 2 ;;
    esac
done
missing=""
for p in $need; do dpkg -s "$p" >/dev/null 2>&1 || missing="$missing $p"; done
if [ -n "$missing" ]; then
    echo "== installing:$missing"
    SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO=sudo
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq $missing >/dev/null
fi

if [ ! -x configure ] || [ configure.ac -nt configure ] || [ Makefile.am -nt configure ]; then
    echo "== autoreconf"; autoreconf -i >/dev/null 2>&1 || autoreconf -i
fi
[ -f Makefile ] || { echo "== configure"; ./configure -q; }
echo "== make"; make -s -j"$(nproc)" 2>&1 | grep -v "^  VGLIB\|^make" || true
test -x vglib/callgrind-bd-amd64-linux

[ "$build_only" = yes ] && exit 0

echo "== profiling examples/cacheuse-example.c"
mkdir -p examples/build
gcc -g -O0 -o examples/build/cacheuse-example examples/cacheuse-example.c
out=examples/build/callgrind.out.example
VALGRIND_LIB=$PWD/vglib valgrind --tool=callgrind-bd --cache-sim=yes --cacheuse=yes \
    --callgrind-out-file=$out examples/build/cacheuse-example
# Run from the profile's directory: callgrind_annotate 3.19 shortens the
# names of files below its working directory only where a function is
# defined, not where it is called, and would list main twice from here.
view="callgrind_annotate --inclusive=yes --sort=SpLoss1 --show=SpLoss1,AcCost1,Ir --auto=no"
echo
echo "== which call chains waste the L1 cache: functions by inclusive SpLoss1"
echo "   (cd examples/build && $view callgrind.out.example)"
(cd examples/build && $view callgrind.out.example) | sed -n '/file:function/,$p'
cat <<'TEXT'

SpLoss1: bytes of L1 cache lines that were loaded but never used before the
line left the cache. AcCost1: 1000 / (accesses to the line while cached),
summed over lines: high when lines are used once. Both are inclusive here:
every function is charged for the lines loaded while it (or its callees) ran.
stream_outer -> stream_inner wastes 2/3 of all SpLoss1; see README.md.
TEXT
