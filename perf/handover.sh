#!/usr/bin/env bash
# The cost of a turn's hand-over (issue 37, session 24): two builds of the
# tool against each other on the threaded workloads that hand over most
# (xz -T2, two stencils), CPU time (user + system) and wall time, median of
# R interleaved rounds (default 5), of
#   base     --cache-sim=yes                        (the new build)
#   old      --cache-sim=yes --private-caches=yes   (OLD_VGLIB: the build before)
#   new      --cache-sim=yes --private-caches=yes   (NEW_VGLIB: this build)
# x = / base. Then, per workload, one run of each build under `perf stat`:
# system calls, gettid calls and context switches per hand-over (the
# "yields" of -v's interleave line), where perf can count them.
# Give the two vglib directories as paths of equal length (the client sees
# VALGRIND_LIB): e.g. copies in /tmp/vgA/vglib and /tmp/vgB/vglib.
# Timings are never asserted in tests.
#
# usage: OLD_VGLIB=DIR NEW_VGLIB=DIR perf/handover.sh [R]
set -eu
cd "$(dirname "$0")/.."
. perf/lib.sh
R=${1:-5}
: "${OLD_VGLIB:?give OLD_VGLIB, the vglib of the build before}" "${NEW_VGLIB:=$PWD/vglib}"
[ ${#OLD_VGLIB} = ${#NEW_VGLIB} ] || { echo "handover.sh: vglib paths of different lengths" >&2; exit 2; }
[ -x perf/build/jacobi ] || { echo "handover.sh: run perf/multicore.sh once first" >&2; exit 2; }
multicore_workloads perf/build
workloads=("${workloads[@]:2:1}" "${workloads[@]:5}")   # jacobi, stencil, xz -T2
export OMP_NUM_THREADS=2 OMP_WAIT_POLICY=passive
geom="--I1=32768,8,64 --D1=32768,8,64 --LL=6291456,12,64"
configs=("base|--cache-sim=yes"
         "old|--cache-sim=yes --private-caches=yes"
         "new|--cache-sim=yes --private-caches=yes")
declare -A config_lib=([base]=$NEW_VGLIB [old]=$OLD_VGLIB [new]=$NEW_VGLIB)
declare -A cpu mem wall
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
# shellcheck disable=SC2086
cgbd_rounds "$R" "$out/p.out" $geom
echo "median of $R runs; x = / base"
printf "%-10s | %5s %6s %6s | %6s %6s | %5s %6s %6s | %6s %6s\n" workload \
   cpu old new "old x" "new x" wall old new "old x" "new x"
ratio_table old new
command -v perf >/dev/null || exit 0
events=raw_syscalls:sys_enter,syscalls:sys_enter_gettid,context-switches
perf stat -e "$events" true >/dev/null 2>&1 || exit 0
echo "per hand-over (one perf stat run each): system calls, gettid, context switches"
for w in "${workloads[@]}"; do
   for c in "${configs[@]:1}"; do
      cn=${c%%|*} opts=${c#*|} lib=${config_lib[${c%%|*}]}
      # shellcheck disable=SC2086
      VALGRIND_LIB=$lib perf stat -x, -e "$events" valgrind --tool=callgrind-bd $geom $opts -v \
         --callgrind-out-file="$out/p.out" ${w#*|} 2>"$out/err" >/dev/null
      awk -F, -v name="${w%%|*}" -v build="$cn" '
         /interleave: [0-9]+ yields/ { split($0, a, "interleave: "); split(a[2], b, " "); turns = b[1] }
         $3 == "raw_syscalls:sys_enter" { sys = $1 }
         $3 == "syscalls:sys_enter_gettid" { gt = $1 }
         $3 == "context-switches" { cs = $1 }
         END { printf "%-8s %-4s %6d hand-overs: %5.2f calls, %5.2f gettid, %5.2f switches each\n",
                      name, build, turns, sys / turns, gt / turns, cs / turns }' "$out/err"
   done
done
