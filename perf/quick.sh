#!/usr/bin/env bash
# First benchmark: wall time of the reference Callgrind vs callgrind-bd on
# the bundled cache-use example, interleaved, median of N runs (default 3).
# Prints ratios ours/reference at --cache-sim=yes and at --cacheuse=yes,
# and tree on/off (--backdate=no). Timings are never asserted in tests.
set -eu
cd "$(dirname "$0")/.."
N=${1:-3}
mkdir -p perf/build
gcc -g -O0 -o perf/build/cacheuse-example examples/cacheuse-example.c
export VALGRIND_LIB=$PWD/vglib
run() { # tool opts... -> seconds
    local t0 t1
    t0=$(date +%s.%N)
    valgrind --tool="$1" "${@:2}" --callgrind-out-file=/dev/null perf/build/cacheuse-example >/dev/null 2>&1
    t1=$(date +%s.%N)
    echo "$t1 - $t0" | bc
}
declare -A times
configs=("callgrind|--cache-sim=yes" "callgrind-bd|--cache-sim=yes"
         "callgrind|--cache-sim=yes --cacheuse=yes" "callgrind-bd|--cache-sim=yes --cacheuse=yes"
         "callgrind-bd|--cache-sim=yes --cacheuse=yes --backdate=no")
for i in $(seq "$N"); do
    for c in "${configs[@]}"; do
        tool=${c%%|*}; opts=${c#*|}
        times[$c]="${times[$c]:-} $(run "$tool" $opts)"
    done
done
median() { tr ' ' '\n' | grep . | sort -n | awk '{a[NR]=$1} END{print a[int((NR+1)/2)]}'; }
for c in "${configs[@]}"; do
    m=$(echo "${times[$c]}" | median); printf "%-14s %-48s median %6.2f s\n" "${c%%|*}" "${c#*|}" "$m"
    eval "M_$(echo "$c" | md5sum | cut -c1-8)=$m"
done
med() { echo "${times[$1]}" | median; }
printf "ours/ref --cache-sim=yes:               %.3f\n" "$(echo "$(med "${configs[1]}") / $(med "${configs[0]}")" | bc -l)"
printf "ours/ref --cache-sim=yes --cacheuse=yes: %.3f\n" "$(echo "$(med "${configs[3]}") / $(med "${configs[2]}")" | bc -l)"
printf "tree on/off (--backdate=yes/no):         %.3f\n" "$(echo "$(med "${configs[3]}") / $(med "${configs[4]}")" | bc -l)"
