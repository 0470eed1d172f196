#!/usr/bin/env bash
# Cost of --sharing=yes: CPU time and peak memory of callgrind-bd with the
# option divided by the same run without, per threaded workload, median
# of N interleaved runs (default 3).  Timings are never asserted in tests.
#
# usage: perf/sharing.sh [N]          (after make; env BASE_OPTS to change
#                                      the base options, default
#                                      --cache-sim=yes; SCALE for threads3)
# Workloads:
#   threads3       perf/bench/threads3.c (three threads: streaming sum,
#                  random histogram, matrix multiply), SCALE (default 2)
#   sieve          the thesis' prime sieve, OpenMP schedule(static,1)
#                  (tests/clients/sieve_omp.c): heavy false sharing
#   false-sharing  examples/false-sharing.c (two pthreads, one line)
#   sweep2-seq     perf/bench/sweep2.c seq (main initialises two 1024x1024
#                  grids, two threads sweep their halves 8 times): lines
#                  touched by one thread per segment, a few hundred shared
#   sweep2-own     the same, each thread initialising its half
#   jacobi-omp     perf/bench/jacobi_omp.c 1024 8 (OpenMP, 2 threads)
#   jacobi-region  perf/bench/jacobi_omp_region.c (OpenMP, 2 threads)
# The cache geometry is fixed (GEOM), so that runs compare across hosts.
set -eu
cd "$(dirname "$0")/.."
N=${1:-3}
SCALE=${SCALE:-2}
GEOM="--I1=32768,8,64 --D1=32768,8,64 --LL=6291456,12,64"
BASE_OPTS=${BASE_OPTS:---cache-sim=yes}
mkdir -p perf/build/sharing-out
gcc -g -O2 -pthread -o perf/build/threads3 perf/bench/threads3.c
gcc -g -O1 -fopenmp -o perf/build/sieve_omp tests/clients/sieve_omp.c
gcc -g -O1 -pthread -o perf/build/false-sharing examples/false-sharing.c
gcc -g -O2 -pthread -o perf/build/sweep2 perf/bench/sweep2.c
gcc -g -O2 -fopenmp -o perf/build/jacobi_omp perf/bench/jacobi_omp.c
gcc -g -O2 -fopenmp -o perf/build/jacobi_omp_region perf/bench/jacobi_omp_region.c
export VALGRIND_LIB=${VALGRIND_LIB:-$PWD/vglib} OMP_WAIT_POLICY=passive OMP_NUM_THREADS=2

workloads=("threads3|perf/build/threads3 $SCALE"
           "sieve|perf/build/sieve_omp 1"
           "false-sharing|perf/build/false-sharing"
           "sweep2-seq|perf/build/sweep2 seq"
           "sweep2-own|perf/build/sweep2 own"
           "jacobi-omp|perf/build/jacobi_omp 1024 8"
           "jacobi-region|perf/build/jacobi_omp_region")
configs=("none|" "sharing|--sharing=yes")

. perf/lib.sh
declare -A cpu mem
# shellcheck disable=SC2086
cgbd_rounds "$N" perf/build/sharing-out/cg.out $BASE_OPTS $GEOM

echo "base options: $BASE_OPTS $GEOM; CPU time and peak RSS, median of $N runs; ratio = with / without"
printf "%-14s %9s %9s %10s %10s %9s\n" workload "none (s)" "time x" "none (MB)" "sharing" "memory x"
for w in "${workloads[@]}"; do
    name=${w%%|*}
    t0=$(echo "${cpu[$name/none]}" | median)
    t1=$(echo "${cpu[$name/sharing]}" | median)
    m0=$(echo "${mem[$name/none]}" | median)
    m1=$(echo "${mem[$name/sharing]}" | median)
    printf "%-14s %9.2f %9.3f %10.1f %10.1f %9.3f\n" "$name" "$t0" \
        "$(echo "$t1 / $t0" | bc -l)" "$(echo "$m0 / 1024" | bc -l)" \
        "$(echo "$m1 / 1024" | bc -l)" "$(echo "$m1 / $m0" | bc -l)"
done
