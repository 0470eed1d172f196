#!/bin/bash
# perf/decompose.sh -- where the simulation's time goes, by subtraction.
#
#   perf/decompose.sh [--use] [--reps N] -- COMMAND [ARGS...]
#   e.g. perf/decompose.sh --reps 3 -- /usr/bin/gzip -6 -c perf/build/bin/text-medium.txt
#
# Builds the tool six times from a copy of the sources (perf/build/
# decompose/), with CPPFLAGS=-DCB_SIM_CUT=1..5 and without (see CB_SIM_CUT
# in callgrind/sim_int.h: each cut stops the deferred simulation one stage
# earlier, so those builds write wrong profiles), then runs COMMAND under
# each, interleaved, N times (default 3), with --cache-sim=yes (--use: and
# --cacheuse=yes) and the perf/ cache geometry. Also runs --tool=none, the
# tool without cache simulation and the reference Callgrind, for scale.
# Prints the minimum CPU time (user + system) of each, and what each stage
# adds to the one before.
set -e
use=no; reps=3
while [ $# -gt 0 ]; do
   case "$1" in
      --use) use=yes; shift ;;
      --reps) reps=$2; shift 2 ;;
      --) shift; break ;;
      *) echo "decompose.sh: unknown option '$1' (usage: see the file's head)" >&2; exit 2 ;;
   esac
done
[ $# -gt 0 ] || { echo "decompose.sh: no command (usage: see the file's head)" >&2; exit 2; }
case "$reps" in ''|*[!0-9]*|0) echo "decompose.sh: --reps wants a positive number, not '$reps'" >&2; exit 2 ;; esac

root=$(cd "$(dirname "$0")/.." && pwd)
work=$root/perf/build/decompose
caches="--I1=32768,8,64 --D1=32768,8,64 --LL=8388608,16,64"
sim="--cache-sim=yes"; [ $use = yes ] && sim="$sim --cacheuse=yes"

# One build tree, rebuilt per cut; each cut's tool copied with its links.
# build WHAT CMD...: CMD in the tree, its output in build.log.
build() {
   local what=$1
   shift
   (cd "$work/src" && "$@") >>"$work/build.log" 2>&1 \
      || { echo "decompose.sh: $what failed, see $work/build.log" >&2; exit 1; }
}
build_cuts() {
   rm -rf "$work"; mkdir -p "$work/src"
   (cd "$root" && git ls-files -z | xargs -0 cp -P --parents -t "$work/src")
   build autoreconf autoreconf -i
   build configure ./configure -q
   for k in 0 1 2 3 4 5; do
      touch "$work/src/callgrind/sim_int.h"   # (sim.c, sim_replay.c, sim_ir.c)
      build "the build with CB_SIM_CUT=$k" make -s -j"$(nproc)" CPPFLAGS="-DCB_SIM_CUT=$k"
      mkdir -p "$work/cut$k"
      cp -P -r "$work/src/vglib" "$work/cut$k/"
      rm -f "$work/cut$k/vglib/callgrind-bd-amd64-linux"
      cp "$work/src/callgrind-bd-amd64-linux" "$work/cut$k/vglib/"
   done
}

# cpu LABEL LIB TOOL OPTS...: one run's user+system seconds into best[LABEL]
declare -A best
cpu() {
   local label=$1 lib=$2 tool=$3 t out=()
   shift 3
   [ "$tool" = none ] || out=(--callgrind-out-file="$work/out")
   env ${lib:+VALGRIND_LIB="$lib"} /usr/bin/time -f "%U %S" -o "$work/time" \
      valgrind --tool="$tool" "$@" "${out[@]}" "${cmd[@]}" >/dev/null 2>"$work/err" \
      || { echo "decompose.sh: $label failed, see $work/err" >&2; exit 1; }
   t=$(awk '{print $1 + $2}' "$work/time")
   if [ -z "${best[$label]}" ] || awk "BEGIN{exit !($t < ${best[$label]})}"; then best[$label]=$t; fi
}

cmd=("$@")
echo "== building the cuts in $work" >&2
build_cuts
labels=(none nosim cut1 cut2 cut3 cut4 cut5 full ref-nosim ref)
for r in $(seq "$reps"); do
   echo "== round $r of $reps" >&2
   cpu none "" none
   cpu nosim "$work/cut0/vglib" callgrind-bd
   for k in 1 2 3 4 5; do
      # shellcheck disable=SC2086
      cpu cut$k "$work/cut$k/vglib" callgrind-bd $sim $caches
   done
   # shellcheck disable=SC2086
   cpu full "$work/cut0/vglib" callgrind-bd $sim $caches
   cpu ref-nosim "" callgrind
   # shellcheck disable=SC2086
   cpu ref "" callgrind $sim $caches
done

describe() {
   case $1 in
      none) echo "valgrind --tool=none" ;;
      nosim) echo "callgrind-bd, no cache simulation: call tracking, Ir" ;;
      cut1) echo "$sim, nothing replayed: the stored addresses" ;;
      cut2) echo "+ the replay loop and the histogram" ;;
      cut3) echo "+ the I1 tests (and I1's slow path)" ;;
      cut4) echo "+ the D1 MRU tests" ;;
      cut5) echo "+ the call for each D1 access that is no MRU hit" ;;
      full) echo "+ D1's slow path: other ways, misses, LL, evictions" ;;
      ref-nosim) echo "reference Callgrind, no cache simulation" ;;
      ref) echo "reference Callgrind, $sim" ;;
   esac
}
echo "| stage | CPU s | added |"
echo "|---|---|---|"
prev=""
for l in "${labels[@]}"; do
   add="-"
   case $l in nosim|cut*|full) [ -n "$prev" ] && add=$(awk "BEGIN{printf \"%+.2f\", ${best[$l]} - $prev}") ;; esac
   echo "| $(describe "$l") | ${best[$l]} | $add |"
   prev=${best[$l]}
done
