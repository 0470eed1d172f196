#!/usr/bin/env bash
# What --bandwidth=yes costs against the options it turns on ("bw-base":
# --cache-sim=yes --simulate-wb=yes --private-caches=yes), for two builds
# in one run (issue 37's before/after): CPU time (user + system) and peak
# RSS, median of R interleaved rounds (default 3), on the workloads of
# perf/multicore.sh and the single-threaded stencil (examples/jacobi.c
# naive 1 700 12). bw-base runs with the NEW build; "old x" and "new x"
# are each build's --bandwidth=yes divided by it. Timings are never
# asserted in tests.
#
# usage: perf/bw-cost.sh OLD_VGLIB [R]   (after perf/multicore.sh built
#        perf/build/; the new build is this tree's vglib, or NEWLIB: a
#        copy of it, so that the tree can be rebuilt meanwhile)
set -eu
cd "$(dirname "$0")/.."
old=$1 R=${2:-3} new=${NEWLIB:-$PWD/vglib}
b=perf/build
[ -x $b/jacobi ] || { echo "bw-cost.sh: run perf/multicore.sh once first (perf/build/)" >&2; exit 2; }
export OMP_NUM_THREADS=2 OMP_WAIT_POLICY=passive
geom="--I1=32768,8,64 --D1=32768,8,64 --LL=6291456,12,64"
workloads=("threads3|$b/threads3 2" "counters|$b/counters 500000"
           "jacobi|$b/jacobi_omp 1024 8" "jac-region|$b/jacobi_omp_region"
           "sweep2|$b/sweep2 seq" "stencil|$b/jacobi naive 2 700 12"
           "naive1|$b/jacobi naive 1 700 12")
command -v xz >/dev/null && workloads+=("xz -T2|xz -T2 -3 --block-size=65536 -c $b/xz-input")
# config name | vglib | options
configs=("base|$new|--cache-sim=yes --simulate-wb=yes --private-caches=yes"
         "old|$old|--bandwidth=yes" "new|$new|--bandwidth=yes")

. perf/lib.sh
declare -A cpu mem
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
for _ in $(seq "$R"); do
   for w in "${workloads[@]}"; do
      for c in "${configs[@]}"; do
         IFS='|' read -r k lib opts <<< "$c"
         # shellcheck disable=SC2086
         read -r t m <<< "$(VALGRIND_LIB=$lib cgbd_cpu_rss "$out/p.out" $geom $opts -- ${w#*|})"
         cpu[${w%%|*}/$k]="${cpu[${w%%|*}/$k]:-} $t"
         mem[${w%%|*}/$k]="${mem[${w%%|*}/$k]:-} $m"
      done
   done
done
ratio() { echo "$1 / $2" | bc -l; }
echo "CPU s, median of $R; x: --bandwidth=yes / bw-base; m: peak memory / bw-base's"
printf "%-10s %7s %7s %7s | %6s %6s | %6s %6s\n" workload bw-base old new "old x" "new x" "old m" "new m"
for w in "${workloads[@]}"; do
   n=${w%%|*}
   declare -A t m
   for k in base old new; do
      t[$k]=$(echo "${cpu[$n/$k]}" | median)
      m[$k]=$(echo "${mem[$n/$k]}" | median)
   done
   printf "%-10s %7.2f %7.2f %7.2f | %6.2f %6.2f | %6.2f %6.2f\n" "$n" "${t[base]}" "${t[old]}" \
      "${t[new]}" "$(ratio "${t[old]}" "${t[base]}")" "$(ratio "${t[new]}" "${t[base]}")" \
      "$(ratio "${m[old]}" "${m[base]}")" "$(ratio "${m[new]}" "${m[base]}")"
done
