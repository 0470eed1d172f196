#!/usr/bin/env bash
# Cost of --objects=yes (data objects): CPU time with it over without,
# same tool and options (--cache-sim=yes --cacheuse=yes, and --cache-sim=yes
# alone), on three workloads: the cache-use example (few objects, mostly
# statics), a malloc-heavy linked list and a matrix product of malloc'ed
# rows (perf/objects-bench.c), and python3 building and serialising 20000
# dicts (perf/objects-python.py). Interleaved runs, median of N (default 3).
# Prints a table and the ratios; timings are never asserted in tests.
set -eu
cd "$(dirname "$0")/.."
N=${1:-3}
mkdir -p perf/build
gcc -g -O0 -o perf/build/cacheuse-example examples/cacheuse-example.c
gcc -g -O0 -o perf/build/objects-bench perf/objects-bench.c
export VALGRIND_LIB=$PWD/vglib
out=perf/build/objects-perf.out

# CPU seconds (user + system) of one run: on a shared machine less noisy
# than wall time, and the same thing for a single-threaded client; and its
# peak memory (MB).
run() { # opts... client args... -> "seconds MB"
    local f=perf/build/objects-time.$$
    /usr/bin/time -o $f -f "%U %S %M" valgrind --tool=callgrind-bd \
        --callgrind-out-file=$out "$@" >/dev/null 2>&1
    awk '{print $1 + $2, int($3 / 1024)}' $f
    rm -f $f
}
median() { tr ' ' '\n' | grep . | sort -n | awk '{a[NR]=$1} END{print a[int((NR+1)/2)]}'; }

# the interpreter itself, not a launcher script (pyenv's shims are)
python=$(python3 -c 'import sys; print(sys.executable)')
workloads=("cacheuse-example|perf/build/cacheuse-example"
           "list|perf/build/objects-bench list"
           "matrix|perf/build/objects-bench matrix"
           "python|$python perf/objects-python.py")
simopts=("--cache-sim=yes --cacheuse=yes" "--cache-sim=yes")
declare -A t m
for i in $(seq "$N"); do
    for w in "${workloads[@]}"; do
        for s in "${simopts[@]}"; do
            for o in "" "--objects=yes"; do
                k="$w|$s|$o"
                r=$(run $s $o ${w#*|})
                t[$k]="${t[$k]:-} ${r% *}"
                m[$k]=${r#* }
            done
        done
    done
done
printf "%-18s %-34s %9s %9s %7s %9s %9s\n" workload options without with ratio "MB w/o" "MB with"
for w in "${workloads[@]}"; do
    for s in "${simopts[@]}"; do
        a=$(echo "${t[$w|$s|]}" | median)
        b=$(echo "${t[$w|$s|--objects=yes]}" | median)
        printf "%-18s %-34s %8.2fs %8.2fs %7.3f %9s %9s\n" "${w%%|*}" "$s" "$a" "$b" \
               "$(echo "$b / $a" | bc -l)" "${m[$w|$s|]}" "${m[$w|$s|--objects=yes]}"
    done
done
rm -f $out $out.objects
