#!/usr/bin/env bash
# What --pin-threads saves (issue 37, the turns' cost): per workload of
# perf/multicore.sh, CPU time (user + system) and wall time, median of R
# interleaved rounds (default 3), of
#   base    --cache-sim=yes                              (the shared model)
#   pinned  --cache-sim=yes --private-caches=yes         (default: turns, pinned)
#   unpin   the same with --pin-threads=no
#   il0     the same with --interleave=0                 (no turns)
# x = / base. pinned / il0 is what the turns cost now, unpin / il0 what
# they cost before. Wall time matters here: a cross-CPU hand-over also
# waits for the woken CPU. Timings are never asserted in tests.
#
# usage: perf/pinning.sh [R]      (after perf/multicore.sh built perf/build/)
set -eu
cd "$(dirname "$0")/.."
. perf/lib.sh
R=${1:-3}
[ -x perf/build/jacobi ] || { echo "pinning.sh: run perf/multicore.sh once first" >&2; exit 2; }
multicore_workloads perf/build      # sets workloads
export VALGRIND_LIB=$PWD/vglib OMP_NUM_THREADS=2 OMP_WAIT_POLICY=passive
geom="--I1=32768,8,64 --D1=32768,8,64 --LL=6291456,12,64"
configs=("base|--cache-sim=yes"
         "pinned|--cache-sim=yes --private-caches=yes"
         "unpin|--cache-sim=yes --private-caches=yes --pin-threads=no"
         "il0|--cache-sim=yes --private-caches=yes --interleave=0")

declare -A cpu mem wall
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
# shellcheck disable=SC2086
cgbd_rounds "$R" "$out/p.out" $geom

echo "median of $R runs; x = / base"
printf "%-10s | %5s %6s %6s %6s | %6s %6s %6s | %5s %6s %6s %6s | %6s %6s %6s\n" workload \
   "cpu" pinned unpin il0 "pin x" "unp x" "il0 x" "wall" pinned unpin il0 "pin x" "unp x" "il0 x"
ratio_table pinned unpin il0
