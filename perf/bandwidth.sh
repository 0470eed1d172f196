#!/usr/bin/env bash
# Cost of --bandwidth=yes: CPU time and peak memory of callgrind-bd with
# the option divided by the same run with --cache-sim=yes (issue 17's
# target: at most 1.3), and by --cache-sim=yes --private-caches=yes
# --simulate-wb=yes (what --bandwidth=yes turns on: the model's own
# cost), with and without a machine file (dominance); median of N
# interleaved runs (default 3).  Timings are never asserted in tests.
#
# usage: perf/bandwidth.sh [N]       (after make)
# Workloads:
#   matmul     perf/bench/matmul.c ijk 150: a load or store almost every
#              instruction (the model's worst case: every unit changes a
#              window)
#   chase      perf/bench/chase.c 100000 1000000: pointer chasing, few accesses per
#              instruction, many misses
#   threads3   perf/bench/threads3.c 2: three threads (the all-cores
#              alignment)
#   xz -T2     xz compressing 256 KiB with two threads (Debian's xz; a long
#              run, where Valgrind's start weighs little)
set -eu
cd "$(dirname "$0")/.."
N=${1:-3}
mkdir -p perf/build
gcc -g -O2 -o perf/build/matmul perf/bench/matmul.c
gcc -g -O2 -o perf/build/chase perf/bench/chase.c
gcc -g -O2 -pthread -o perf/build/threads3 perf/bench/threads3.c
cat > perf/build/bandwidth.machine <<'M'
# the thesis' Table 4.3 (Ivy Bridge, 2.7 GHz)
clock: 2.7e9
instr-per-cycle: 4
flop-per-cycle: 4
core<-L1: 86.4e9
core->L1: 43.2e9
L1<-LL: 34.8e9
L1->LL: 18.9e9
L1<-L1: 14.9e9
LL<-mem: 14.9e9
LL->mem: 10.0e9
LL<-mem all: 23.0e9
LL->mem all: 10.3e9
M
head -c 196608 /dev/urandom | base64 > perf/build/xz-input
export VALGRIND_LIB=$PWD/vglib

workloads=("matmul|perf/build/matmul ijk 150"
           "chase|perf/build/chase 100000 1000000"
           "threads3|perf/build/threads3 2")
if command -v xz >/dev/null; then
    workloads+=("xz|xz -T2 -3 --block-size=65536 -c perf/build/xz-input")
fi
configs=("sim|--cache-sim=yes"
         "implied|--cache-sim=yes --private-caches=yes --simulate-wb=yes"
         "bw|--bandwidth=yes"
         "bw-limits|--bandwidth=yes --bandwidth-limits=perf/build/bandwidth.machine")

. perf/lib.sh
declare -A cpu mem
cgbd_rounds "$N" perf/build/bandwidth.out

echo "CPU time (user + system) and peak RSS, median of $N runs"
printf "%-10s %-10s %8s %9s %9s %8s %9s\n" workload config "s" "/sim" "/implied" "MB" "MB/sim"
for w in "${workloads[@]}"; do
    n="${w%%|*}"
    ts=$(echo "${cpu[$n/sim]}" | median); ti=$(echo "${cpu[$n/implied]}" | median)
    ms=$(echo "${mem[$n/sim]}" | median)
    for c in "${configs[@]}"; do
        k="$n/${c%%|*}"
        t=$(echo "${cpu[$k]}" | median); m=$(echo "${mem[$k]}" | median)
        printf "%-10s %-10s %8.2f %9.2f %9.2f %8.1f %9.2f\n" "$n" "${c%%|*}" "$t" \
            "$(echo "$t / $ts" | bc -l)" "$(echo "$t / $ti" | bc -l)" \
            "$(echo "$m / 1024" | bc -l)" "$(echo "$m / $ms" | bc -l)"
    done
done
