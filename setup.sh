#!/usr/bin/env bash
# Set up a fresh Debian machine, build callgrind-bd, and profile the
# bundled example with inclusive cache-use costs.
#   ./setup.sh            install packages (as root or with sudo), build, run the example
#   ./setup.sh --build    install and build only (used by tests/run-all and CI)
set -eu
cd "$(dirname "$0")"

# openmpi-bin, libopenmpi-dev: mpirun and mpicc for the MPI tests;
# python3-mpi4py: callgrind-bd_merge's MPI mode
need="autoconf automake pkgconf make gcc g++ libgomp1 valgrind python3 perl binutils gzip xz-utils
      openmpi-bin libopenmpi-dev python3-mpi4py"
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

[ "${1:-}" = "--build" ] && exit 0

echo "== profiling examples/cacheuse-example.c"
mkdir -p examples/build
gcc -g -O0 -o examples/build/cacheuse-example examples/cacheuse-example.c
out=examples/build/callgrind.out.example
VALGRIND_LIB=$PWD/vglib valgrind --tool=callgrind-bd --cache-sim=yes --cacheuse=yes \
    --callgrind-out-file=$out examples/build/cacheuse-example
echo
echo "== callgrind_annotate --inclusive=yes --sort=SpLoss1,AcCost1 (top functions)"
callgrind_annotate --inclusive=yes --sort=SpLoss1,AcCost1,Ir $out 2>&1 | sed -n '1,40p'
