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
#
# Before/after a change in the same run: OLD_VGLIB=/tmp/A/vglib
# NEW_VGLIB=/tmp/B/vglib perf/paths.sh N (the two at paths of the same
# length: the client's environment moves the loader's addresses; make
# them with `cp -as $PWD/vglib/. DIR/` and a copy of the tool binary in
# place of its symlink). Each build's ratio is its own with/without.
set -eu
cd "$(dirname "$0")/.."
N=${1:-3}
. perf/lib.sh
mkdir -p perf/build
gcc -g -O0 -o perf/build/cacheuse-example examples/cacheuse-example.c
gcc -g -O2 -o perf/build/calltree perf/bench/calltree.c
builds=("new|${NEW_VGLIB:-$PWD/vglib}")
[ -n "${OLD_VGLIB:-}" ] && builds=("old|$OLD_VGLIB" "${builds[@]}")
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
# interleaved: every round runs every build, workload and configuration
for _ in $(seq "$N"); do
   for w in "${workloads[@]}"; do
      for b in "${builds[@]}"; do
         export VALGRIND_LIB=${b#*|}
         for c in "${configs[@]}"; do
            key="${b%%|*}/${w%%|*}/${c%%|*}"
            # shellcheck disable=SC2086
            read -r t m <<< "$(cgbd_cpu_rss "$out" ${c#*|} -- ${w#*|})"
            cpu[$key]="${cpu[$key]:-} $t"
            mem[$key]="${mem[$key]:-} $m"
         done
      done
   done
done
printf "%-17s %-6s %-5s %9s %9s %7s %9s %9s %7s\n" workload sim build "s w/o" "s with" ratio \
       "MB w/o" "MB with" ratio
for w in "${workloads[@]}"; do
   for s in use nosim; do
      for b in "${builds[@]}"; do
         k="${b%%|*}/${w%%|*}/$s"
         a=$(echo "${cpu[$k]}" | median)
         bb=$(echo "${cpu[$k+paths]}" | median)
         ma=$(echo "${mem[$k]}" | median)
         mb=$(echo "${mem[$k+paths]}" | median)
         printf "%-17s %-6s %-5s %8.2fs %8.2fs %7.3f %9d %9d %7.3f\n" "${w%%|*}" "$s" "${b%%|*}" \
                "$a" "$bb" "$(echo "$bb / $a" | bc -l)" $((ma / 1024)) $((mb / 1024)) \
                "$(echo "$mb / $ma" | bc -l)"
      done
   done
done
ls -l "$out.paths" | awk '{print "the last run'"'"'s .paths:", $5, "bytes"}'
rm -f "$out" "$out.paths"
