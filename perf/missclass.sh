#!/usr/bin/env bash
# Cost of --miss-class=yes and --reuse-dist=yes: run time of callgrind-bd
# with each option (and both) divided by the same run without, per
# workload, median of N interleaved runs (default 3).  Timings are never
# asserted in tests.
#
# usage: perf/missclass.sh [N]        (after make; env BASE_OPTS to change
#                                      the base options, default
#                                      --cache-sim=yes)
# Workloads: the cacheuse example (examples/), and perf/missclass-work.c:
#   stream  sequential sweeps of 16 MiB (one miss per line at each level)
#   random  random reads/writes in 4 MiB (a D1 miss on nearly every access:
#           the worst case, each miss updates the shadows)
#   calls   recursion, little data (call/return heavy)
# Then perf/missclass-bench.c: the same `random` access pattern fed
# natively to the cache model and the classifiers (no Valgrind: far less
# noise on a shared machine), CPU seconds, median of N.
set -eu
cd "$(dirname "$0")/.."
N=${1:-3}
BASE_OPTS=${BASE_OPTS:---cache-sim=yes}
mkdir -p perf/build
gcc -g -O0 -o perf/build/cacheuse-example examples/cacheuse-example.c
gcc -g -O1 -o perf/build/missclass-work perf/missclass-work.c
gcc -g -O2 -Icachesim -o perf/build/missclass-bench perf/missclass-bench.c \
    tests/unit/port_native.c cachesim/cachesim.c cachesim/missclass.c \
    cachesim/reusedist.c cachesim/lrustack.c cachesim/lineset.c
export VALGRIND_LIB=$PWD/vglib

workloads=("cacheuse-example|perf/build/cacheuse-example"
           "stream|perf/build/missclass-work stream 8"
           "random|perf/build/missclass-work random 2"
           "calls|perf/build/missclass-work calls 20")
variants=("none|" "miss-class|--miss-class=yes" "reuse-dist|--reuse-dist=yes"
          "both|--miss-class=yes --reuse-dist=yes")

# CPU time (user + system) rather than wall time: on a shared machine it
# is far less disturbed by other processes (CLOCK=wall for wall time).
CLOCK=${CLOCK:-cpu}
run() { # opts... -- cmd... -> seconds
    local opts=() t0 t1 tf
    while [ "$1" != "--" ]; do opts+=("$1"); shift; done
    shift
    tf=$(mktemp)
    t0=$(date +%s.%N)
    /usr/bin/time -f "%U %S" -o "$tf" valgrind --tool=callgrind-bd $BASE_OPTS \
        "${opts[@]}" --callgrind-out-file=/dev/null "$@" >/dev/null 2>&1
    t1=$(date +%s.%N)
    if [ "$CLOCK" = wall ]; then echo "$t1 - $t0" | bc
    else awk '{print $1 + $2}' "$tf"; fi
    rm -f "$tf"
}
median() { tr ' ' '\n' | grep . | sort -n | awk '{a[NR]=$1} END{print a[int((NR+1)/2)]}'; }

declare -A times
for i in $(seq "$N"); do
    for w in "${workloads[@]}"; do
        for v in "${variants[@]}"; do
            key="${w%%|*}/${v%%|*}"
            # shellcheck disable=SC2086
            times[$key]="${times[$key]:-} $(run ${v#*|} -- ${w#*|})"
        done
    done
done

echo "base options: $BASE_OPTS; $CLOCK time, median of $N runs; ratio = with / without"
printf "%-18s %9s %12s %12s %12s\n" workload "none (s)" miss-class reuse-dist both
for w in "${workloads[@]}"; do
    name=${w%%|*}
    base=$(echo "${times[$name/none]}" | median)
    line=$(printf "%-18s %9.2f" "$name" "$base")
    for v in miss-class reuse-dist both; do
        m=$(echo "${times[$name/$v]}" | median)
        line="$line $(printf "%12.3f" "$(echo "$m / $base" | bc -l)")"
    done
    echo "$line"
done

echo
echo "native (perf/missclass-bench, random pattern, 4M iterations): CPU s, median of $N"
line=""
for m in none mcl1 mc rd both; do
    t=$(for i in $(seq "$N"); do perf/build/missclass-bench $m 4 | awk '{print $2}'; done | median)
    line="$line $m=$t"
done
echo "$line"
echo "(mcl1: --miss-class's I1/D1 shadows only, no LL observer)"
