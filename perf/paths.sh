#!/usr/bin/env bash
# Cost of --paths=yes (costs per full call path, issue 40): CPU time and
# peak memory with it over without, same tool and options, in one run
# (interleaved rounds, median of N, default 3): --cache-sim=yes
# --cacheuse=yes (the back-dated events reach the paths through the
# trees) and no simulation (the cheapest run, where the per-call work
# weighs most). Workloads: the cache-use example; perf/bench/calltree,
# a recursion through a table of eight functions whose paths to depth 14
# are many and distinct (the worst case: every call moves the path and
# most paths are new); python3 running perf/bench/work.py (a real
# program, calls everywhere). Prints a table; the aim is a ratio of at
# most 1.1. Timings are never asserted in tests.
set -eu
cd "$(dirname "$0")/.."
N=${1:-3}
. perf/lib.sh
mkdir -p perf/build
gcc -g -O0 -o perf/build/cacheuse-example examples/cacheuse-example.c
gcc -g -O2 -o perf/build/calltree perf/bench/calltree.c
export VALGRIND_LIB=$PWD/vglib
out=perf/build/paths-perf.out
python=$(python3 -c 'import sys; print(sys.executable)')
workloads=("cacheuse-example|perf/build/cacheuse-example"
           "calltree|perf/build/calltree 14 36"
           "python3|$python perf/bench/work.py 1000")
configs=("use|--cache-sim=yes --cacheuse=yes"
         "use+paths|--cache-sim=yes --cacheuse=yes --paths=yes"
         "nosim|--cache-sim=no"
         "nosim+paths|--cache-sim=no --paths=yes")
declare -A cpu mem
cgbd_rounds "$N" "$out"
printf "%-17s %-6s %9s %9s %7s %9s %9s %7s\n" workload sim "s w/o" "s with" ratio \
       "MB w/o" "MB with" ratio
for w in "${workloads[@]}"; do
   for s in use nosim; do
      a=$(echo "${cpu[${w%%|*}/$s]}" | median)
      b=$(echo "${cpu[${w%%|*}/$s+paths]}" | median)
      ma=$(echo "${mem[${w%%|*}/$s]}" | median)
      mb=$(echo "${mem[${w%%|*}/$s+paths]}" | median)
      printf "%-17s %-6s %8.2fs %8.2fs %7.3f %9d %9d %7.3f\n" "${w%%|*}" "$s" "$a" "$b" \
             "$(echo "$b / $a" | bc -l)" $((ma / 1024)) $((mb / 1024)) "$(echo "$mb / $ma" | bc -l)"
   done
done
wc -l "$out.paths" | awk '{print "paths written by the last run:", $1 - 9, "lines"}'
rm -f "$out" "$out.paths"
