#!/usr/bin/env bash
# What the multi-core analyses cost (issue 37's measure): CPU time (user +
# system) and peak RSS of each analysis divided by the same run without
# it, median of R interleaved runs (default 3), on every threaded
# benchmark, in one run:
#   private    --cache-sim=yes --private-caches=yes  against --cache-sim=yes
#   sharing    --cache-sim=yes --sharing=yes         against --cache-sim=yes
#   bandwidth  --bandwidth=yes                       against --cache-sim=yes
#                                  --simulate-wb=yes --private-caches=yes
# (the options --bandwidth turns on). Fixed caches: I1/D1 32 KiB 8-way,
# LL 6 MiB 12-way. Timings are never asserted in tests.
#
# usage: perf/multicore.sh [R]        (after make)
# Workloads (2 threads unless said):
#   threads3   perf/bench/threads3.c: three threads streaming, hashing,
#              multiplying
#   counters   perf/bench/counters.c: adjacent counters bumped 500,000
#              times each (false sharing)
#   jacobi     perf/bench/jacobi_omp.c 1024 8: OpenMP, omp-for per sweep
#   jac-region perf/bench/jacobi_omp_region.c: OpenMP, one region
#   sweep2     perf/bench/sweep2.c seq: sequential initialisation, two
#              threads sweeping their halves
#   stencil    examples/jacobi.c naive 2 700 12 (pthreads, barriers)
#   xz -T2     xz compressing 256 KiB with two threads (Debian's xz)
set -eu
cd "$(dirname "$0")/.."
R=${1:-3}
b=perf/build
mkdir -p $b
gcc -g -O2 -pthread -o $b/threads3 perf/bench/threads3.c
gcc -g -O1 -pthread -o $b/counters perf/bench/counters.c
gcc -g -O2 -fopenmp -o $b/jacobi_omp perf/bench/jacobi_omp.c -lm
gcc -g -O2 -fopenmp -o $b/jacobi_omp_region perf/bench/jacobi_omp_region.c -lm
gcc -g -O2 -pthread -o $b/sweep2 perf/bench/sweep2.c
gcc -g -O3 -pthread -o $b/jacobi examples/jacobi.c
head -c 196608 /dev/urandom | base64 > $b/xz-input
export VALGRIND_LIB=$PWD/vglib OMP_NUM_THREADS=2 OMP_WAIT_POLICY=passive

workloads=("threads3|$b/threads3 2"
           "counters|$b/counters 500000"
           "jacobi|$b/jacobi_omp 1024 8"
           "jac-region|$b/jacobi_omp_region"
           "sweep2|$b/sweep2 seq"
           "stencil|$b/jacobi naive 2 700 12")
if command -v xz >/dev/null; then
    workloads+=("xz -T2|xz -T2 -3 --block-size=65536 -c $b/xz-input")
fi
geom="--I1=32768,8,64 --D1=32768,8,64 --LL=6291456,12,64"
configs=("base|--cache-sim=yes"
         "private|--cache-sim=yes --private-caches=yes"
         "sharing|--cache-sim=yes --sharing=yes"
         "bw-base|--cache-sim=yes --simulate-wb=yes --private-caches=yes"
         "bandwidth|--bandwidth=yes")

. perf/lib.sh
declare -A cpu mem
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
# shellcheck disable=SC2086
cgbd_rounds "$R" "$out/p.out" $geom

ratio() { echo "$1 / $2" | bc -l; }
echo "CPU s and peak MB, median of $R runs; x = the analysis / its base"
printf "%-10s %7s %7s %7s %7s %7s | %6s %6s %6s | %6s %6s %6s\n" workload base private \
    sharing bw-base bandw "priv x" "shar x" "bw x" "priv m" "shar m" "bw m"
for w in "${workloads[@]}"; do
    n=${w%%|*}
    declare -A t m
    for c in "${configs[@]}"; do
        k=${c%%|*}
        t[$k]=$(echo "${cpu[$n/$k]}" | median)
        m[$k]=$(echo "${mem[$n/$k]}" | median)
    done
    printf "%-10s %7.2f %7.2f %7.2f %7.2f %7.2f | %6.2f %6.2f %6.2f | %6.2f %6.2f %6.2f\n" "$n" \
        "${t[base]}" "${t[private]}" "${t[sharing]}" "${t[bw-base]}" "${t[bandwidth]}" \
        "$(ratio "${t[private]}" "${t[base]}")" "$(ratio "${t[sharing]}" "${t[base]}")" \
        "$(ratio "${t[bandwidth]}" "${t[bw-base]}")" \
        "$(ratio "${m[private]}" "${m[base]}")" "$(ratio "${m[sharing]}" "${m[base]}")" \
        "$(ratio "${m[bandwidth]}" "${m[bw-base]}")"
done
printf "%-10s" "peak MB"
for w in "${workloads[@]}"; do
    n=${w%%|*}
    printf " %s %.0f/%.0f" "$n" "$(echo "$(echo "${mem[$n/base]}" | median) / 1024" | bc -l)" \
        "$(echo "$(echo "${mem[$n/sharing]}" | median) / 1024" | bc -l)"
done
echo "  (base/sharing)"
