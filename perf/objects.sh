#!/usr/bin/env bash
# Cost of --objects=yes (data objects): wall time with it over without,
# same tool and options (--cache-sim=yes --cacheuse=yes, and --cache-sim=yes
# alone), on three workloads: the cache-use example (few objects, mostly
# statics), a malloc-heavy linked list and a matrix product of malloc'ed
# rows (perf/objects-bench.c). Interleaved runs, median of N (default 3).
# Prints a table and the ratios; timings are never asserted in tests.
set -eu
cd "$(dirname "$0")/.."
N=${1:-3}
mkdir -p perf/build
gcc -g -O0 -o perf/build/cacheuse-example examples/cacheuse-example.c
gcc -g -O0 -o perf/build/objects-bench perf/objects-bench.c
export VALGRIND_LIB=$PWD/vglib
out=perf/build/objects-perf.out

run() { # opts... -- client args... -> seconds
    local t0 t1
    t0=$(date +%s.%N)
    valgrind --tool=callgrind-bd --callgrind-out-file=$out "$@" >/dev/null 2>&1
    t1=$(date +%s.%N)
    echo "$t1 - $t0" | bc
}
median() { tr ' ' '\n' | grep . | sort -n | awk '{a[NR]=$1} END{print a[int((NR+1)/2)]}'; }

workloads=("cacheuse-example|perf/build/cacheuse-example"
           "list|perf/build/objects-bench list"
           "matrix|perf/build/objects-bench matrix")
simopts=("--cache-sim=yes --cacheuse=yes" "--cache-sim=yes")
declare -A t
for i in $(seq "$N"); do
    for w in "${workloads[@]}"; do
        for s in "${simopts[@]}"; do
            for o in "" "--objects=yes"; do
                k="$w|$s|$o"
                t[$k]="${t[$k]:-} $(run $s $o ${w#*|})"
            done
        done
    done
done
printf "%-18s %-34s %9s %9s %7s\n" workload options without with ratio
for w in "${workloads[@]}"; do
    for s in "${simopts[@]}"; do
        a=$(echo "${t[$w|$s|]}" | median)
        b=$(echo "${t[$w|$s|--objects=yes]}" | median)
        printf "%-18s %-34s %8.2fs %8.2fs %7.3f\n" "${w%%|*}" "$s" "$a" "$b" \
               "$(echo "$b / $a" | bc -l)"
    done
done
rm -f $out $out.objects
