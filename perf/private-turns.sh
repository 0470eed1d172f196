#!/usr/bin/env bash
# --private-caches=yes with --cacheuse=yes on both sides, two builds in one
# run (issue 37, the turns): per workload of perf/multicore.sh, CPU time
# (user + system), median of R interleaved rounds (default 3), of
#   base   --cache-sim=yes --cacheuse=yes                (the shared model)
#   priv   the same with --private-caches=yes            (default turns)
#   il0    priv with --interleave=0                      (Valgrind's schedule)
# under the OLD and the NEW build; x = / base of the same build. priv / il0
# is what the turns cost, il0 / base what the private caches cost.
# Timings are never asserted in tests.
#
# usage: perf/private-turns.sh OLD_VGLIB [R]   (after perf/multicore.sh
#        built perf/build/; the new build is this tree's vglib; give OLD
#        as a path as long as NEW's (the client's environment moves the
#        loader's addresses): e.g. `cp -as $PWD/vglib/. /tmp/PTold/` and a
#        copy of the tool binary in place of its link)
set -eu
cd "$(dirname "$0")/.."
. perf/lib.sh
old=$1 R=${2:-3} new=$PWD/vglib
[ -x perf/build/jacobi ] || { echo "private-turns.sh: run perf/multicore.sh once first" >&2; exit 2; }
multicore_workloads perf/build      # sets workloads
export OMP_NUM_THREADS=2 OMP_WAIT_POLICY=passive
geom="--I1=32768,8,64 --D1=32768,8,64 --LL=6291456,12,64"
variants=("base|--cache-sim=yes --cacheuse=yes"
          "priv|--cache-sim=yes --cacheuse=yes --private-caches=yes"
          "il0|--cache-sim=yes --cacheuse=yes --private-caches=yes --interleave=0")

declare -A cpu
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
# shellcheck disable=SC2154  # (workloads: multicore_workloads)
for _ in $(seq "$R"); do
   for w in "${workloads[@]}"; do
      for v in "${variants[@]}"; do
         for side in old new; do
            lib=$old; [ $side = new ] && lib=$new
            k="${w%%|*}/${v%%|*}/$side"
            # shellcheck disable=SC2086
            read -r t _ <<< "$(VALGRIND_LIB=$lib cgbd_cpu_rss "$out/p.out" $geom ${v#*|} -- ${w#*|})"
            cpu[$k]="${cpu[$k]:-} $t"
         done
      done
   done
done

echo "CPU s, median of $R runs; x = / base of the same build"
printf "%-10s |%6s %6s %6s %7s %7s |%6s %6s %6s %7s %7s\n" workload "old" priv il0 "priv x" "il0 x" \
    "new" priv il0 "priv x" "il0 x"
for w in "${workloads[@]}"; do
   n=${w%%|*}
   printf "%-10s" "$n"
   for side in old new; do
      tb=$(echo "${cpu[$n/base/$side]}" | median)
      tp=$(echo "${cpu[$n/priv/$side]}" | median)
      ti=$(echo "${cpu[$n/il0/$side]}" | median)
      printf " |%6.2f %6.2f %6.2f %7.3f %7.3f" "$tb" "$tp" "$ti" \
          "$(echo "$tp / $tb" | bc -l)" "$(echo "$ti / $tb" | bc -l)"
   done
   echo
done
