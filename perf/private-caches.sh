#!/usr/bin/env bash
# Cost of --private-caches=yes: CPU time and peak memory of callgrind-bd
# with the option divided by the same run without (the shared model),
# per threaded workload and base option set, median of N interleaved runs
# (default 3).  Timings are never asserted in tests.
#
# usage: perf/private-caches.sh [N]       (after make)
# Workloads:
#   threads3   perf/bench/threads3.c: three threads streaming, hashing,
#              multiplying (little sharing, many private misses)
#   pingpong   perf/bench/pingpong.c: 2 threads that never block bumping
#              adjacent fields of one line (false sharing once per slice,
#              every store a coherence check of an owned line)
#   handover   tests/clients/sharing.c (false sharing, mutex + condvar
#              hand-over on every iteration)
#   xz -T2     xz compressing 256 KiB with two threads (blocks of 64 KiB) (Debian's xz)
set -eu
cd "$(dirname "$0")/.."
N=${1:-3}
mkdir -p perf/build
gcc -g -O2 -pthread -o perf/build/threads3 perf/bench/threads3.c
gcc -g -O2 -pthread -o perf/build/pingpong perf/bench/pingpong.c
gcc -g -O2 -DPATTERN=0 -pthread -Wl,-z,now -o perf/build/handover tests/clients/sharing.c
head -c 196608 /dev/urandom | base64 > perf/build/xz-input
export VALGRIND_LIB=$PWD/vglib

workloads=("threads3|perf/build/threads3 2"
           "pingpong|perf/build/pingpong 2 400000"
           "handover|perf/build/handover")
if command -v xz >/dev/null; then
    workloads+=("xz -T2|xz -T2 -3 --block-size=65536 -c perf/build/xz-input")
fi
bases=("cache-sim|--cache-sim=yes" "cacheuse|--cache-sim=yes --cacheuse=yes")
variants=("shared|" "private|--private-caches=yes")

configs=()                      # base/variant, both options
for b in "${bases[@]}"; do
    for v in "${variants[@]}"; do
        configs+=("${b%%|*}/${v%%|*}|${b#*|} ${v#*|}")
    done
done

. perf/lib.sh
declare -A cpu mem
cgbd_rounds "$N" /dev/null

echo "CPU time (user + system) and peak RSS, median of $N runs; ratio = private / shared"
printf "%-10s %-10s %10s %10s %8s %10s %10s %8s\n" workload base "shared s" "private s" ratio \
    "shared MB" "private MB" ratio
for w in "${workloads[@]}"; do
    for b in "${bases[@]}"; do
        k="${w%%|*}/${b%%|*}"
        ts=$(echo "${cpu[$k/shared]}" | median); tp=$(echo "${cpu[$k/private]}" | median)
        ms=$(echo "${mem[$k/shared]}" | median); mp=$(echo "${mem[$k/private]}" | median)
        printf "%-10s %-10s %10.2f %10.2f %8.3f %10.1f %10.1f %8.3f\n" "${w%%|*}" "${b%%|*}" \
            "$ts" "$tp" "$(echo "$tp / $ts" | bc -l)" "$(echo "$ms / 1024" | bc -l)" \
            "$(echo "$mp / 1024" | bc -l)" "$(echo "$mp / $ms" | bc -l)"
    done
done
