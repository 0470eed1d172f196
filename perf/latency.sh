#!/usr/bin/env bash
# --latency=yes: its cost, and its time estimate against native time.
#
# usage: perf/latency.sh [N] [--estimate [MACHINE]]   (after make)
#
# Cost: CPU time (user + system) of callgrind-bd --cache-sim=yes
# --latency=yes divided by --cache-sim=yes alone, per workload, median of
# N interleaved runs (default 3), both in the same run of this script:
#   cacheuse-example  the bundled example (examples/)
#   random, calls     perf/missclass-work.c: a D1 miss on nearly every
#                     access (each one updates the tags); call/return heavy
#   chase, stream, hash  perf/latency-work.c at 16 MB
# Timings are never asserted in tests.
#
# --estimate: perf/latency-work.c's three kernels at 64 MB natively (best
# of 3, the kernel's own clock) and under --latency=yes with D1 and LL
# set to this machine's L1d and L2 (ESTIMATE_GEOM), then
# callgrind-bd_bandwidth --latency MACHINE on each profile: the kernel
# function's three times and bound against the measured time. MACHINE
# defaults to perf/bandwidth-bench.sh --ll-kb=<L2 size> run now.
set -eu
cd "$(dirname "$0")/.."
N=3
ESTIMATE=no
MACHINE=
while [ $# -gt 0 ]; do
    case "$1" in
        --estimate) ESTIMATE=yes
                    if [ $# -gt 1 ] && [ -f "$2" ]; then MACHINE=$2; shift; fi ;;
        *) N=$1 ;;
    esac
    shift
done
mkdir -p perf/build
gcc -g -O0 -o perf/build/cacheuse-example examples/cacheuse-example.c
gcc -g -O1 -o perf/build/missclass-work perf/missclass-work.c
gcc -g -O2 -o perf/build/latency-work perf/latency-work.c
export VALGRIND_LIB=$PWD/vglib

cpu() { # cmd... -> user+system seconds
    local tf
    tf=$(mktemp)
    /usr/bin/time -f "%U %S" -o "$tf" "$@" >/dev/null 2>&1
    awk '{print $1 + $2}' "$tf"
    rm -f "$tf"
}
median() { tr ' ' '\n' | grep . | sort -n | awk '{a[NR]=$1} END{print a[int((NR+1)/2)]}'; }

workloads=("cacheuse-example|perf/build/cacheuse-example"
           "random|perf/build/missclass-work random 2"
           "calls|perf/build/missclass-work calls 20"
           "chase|perf/build/latency-work chase 16 1000000"
           "stream|perf/build/latency-work stream 16 4"
           "hash|perf/build/latency-work hash 16 500000")
declare -A base lat
for i in $(seq "$N"); do
    for w in "${workloads[@]}"; do
        name=${w%%|*}
        # shellcheck disable=SC2086
        base[$name]="${base[$name]:-} $(cpu valgrind --tool=callgrind-bd --cache-sim=yes \
            --callgrind-out-file=/dev/null ${w#*|})"
        # shellcheck disable=SC2086
        lat[$name]="${lat[$name]:-} $(cpu valgrind --tool=callgrind-bd --cache-sim=yes \
            --latency=yes --callgrind-out-file=/dev/null ${w#*|})"
    done
done
echo "cost: CPU s, median of $N; ratio = --latency=yes / --cache-sim=yes alone"
printf "%-18s %10s %10s %7s\n" workload "cache-sim" "+latency" ratio
for w in "${workloads[@]}"; do
    name=${w%%|*}
    b=$(echo "${base[$name]}" | median)
    l=$(echo "${lat[$name]}" | median)
    printf "%-18s %10.2f %10.2f %7.3f\n" "$name" "$b" "$l" "$(echo "$l / $b" | bc -l)"
done

[ "$ESTIMATE" = yes ] || exit 0

l1d=$(getconf LEVEL1_DCACHE_SIZE); l1a=$(getconf LEVEL1_DCACHE_ASSOC)
l2=$(getconf LEVEL2_CACHE_SIZE); l2a=$(getconf LEVEL2_CACHE_ASSOC)
ESTIMATE_GEOM=${ESTIMATE_GEOM:---D1=$l1d,$l1a,64 --LL=$l2,$l2a,64}
if [ -z "$MACHINE" ]; then
    MACHINE=perf/build/latency-host.machine
    perf/bandwidth-bench.sh --ll-kb=$((l2 / 1024)) > "$MACHINE"
fi
echo
echo "estimate: machine $MACHINE, geometry $ESTIMATE_GEOM; native: best of 3"
printf "%-8s %10s %10s %10s %10s  %-9s %10s %6s\n" kernel "instr s" "bandw. s" \
    "latency s" "estimate" bound "native s" ratio
for k in "chase 64 2000000" "stream 64 4" "hash 64 1000000"; do
    set -- $k
    native=$(for i in 1 2 3; do perf/build/latency-work $k | awk '{print $3}'; done | sort -n | head -1)
    out=perf/build/latency.$1.out
    # shellcheck disable=SC2086
    valgrind --tool=callgrind-bd --latency=yes $ESTIMATE_GEOM --callgrind-out-file=$out \
        perf/build/latency-work $k >/dev/null 2>&1
    tools/callgrind-bd_bandwidth --latency "$MACHINE" "$out" \
        | awk -v k="$1" -v n="$native" '$1 == k "_kernel" {
              e = $9; if ($10 > e) e = $10; if ($11 > e) e = $11
              printf "%-8s %10.4g %10.4g %10.4g %10.4g  %-9s %10.4g %6.2f\n",
                     k, $9, $10, $11, e, $12, n, e / n }'
done
