#!/usr/bin/env bash
# Byte-identical check of --bandwidth=yes between two builds: the profile
# and the .bandwidth file of every perf/multicore.sh workload (and a
# single-threaded streaming loop), under --bandwidth=yes, with the
# thesis' machine file, and with --bandwidth-unit=flop. The "pid:" lines
# are dropped; a threaded client varies from run to run, so each side
# runs up to R times (default 3): the builds agree when some run of one
# equals some run of the other (VARIES: every run of each side differed,
# e.g. xz -T2: no conclusion; exit status 1 only for DIFFERENT). Give two vglib directories at paths of the same length
# (the client sees VALGRIND_LIB; see perf/identical.py), e.g. made with
#   cp -as $PWD/vglib/. /tmp/BWold/  (then replace the tool's symlink by
#   a copy of the binary).
#
# usage: perf/bw-identical.sh OLD_VGLIB NEW_VGLIB     (after perf/multicore.sh
#        built perf/build/)
set -u
cd "$(dirname "$0")/.."
old=$1 new=$2
[ ${#old} = ${#new} ] || { echo "bw-identical.sh: the two paths differ in length" >&2; exit 2; }
b=perf/build
export OMP_NUM_THREADS=2 OMP_WAIT_POLICY=passive
geom="--I1=32768,8,64 --D1=32768,8,64 --LL=6291456,12,64"
workloads=("threads3|$b/threads3 2" "counters|$b/counters 500000"
           "jacobi|$b/jacobi_omp 1024 8" "jac-region|$b/jacobi_omp_region"
           "sweep2|$b/sweep2 seq" "stencil|$b/jacobi naive 2 700 12"
           "naive1|$b/jacobi naive 1 500 8"
           "xz -T2|xz -T2 -3 --block-size=65536 -c $b/xz-input"
           "xz -T1|xz -T1 -3 -c $b/xz-input")
opts=("--bandwidth=yes"
      "--bandwidth=yes --bandwidth-limits=tools/machines/ivybridge-thesis.machine"
      "--bandwidth=yes --bandwidth-unit=flop --bandwidth-window=64")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
R=${R:-3}
bad=0
# digest SIDE: one run's profile and .bandwidth file, without "pid:" lines
digest() {
   local lib=$old
   [ "$1" = B ] && lib=$new
   # shellcheck disable=SC2086
   VALGRIND_LIB=$lib valgrind --tool=callgrind-bd $geom $o \
      --callgrind-out-file=$tmp/p ${w#*|} >/dev/null 2>$tmp/err
   # (the vglib path itself appears where the profile names the preloaded
   # objects: the same text on both sides)
   cat $tmp/p $tmp/p.bandwidth | grep -v '^pid:' | sed "s|$lib|VGLIB|g" | md5sum | cut -c1-12
}
# Threaded clients vary from run to run (barriers, spinning): up to R runs
# a side; the builds agree when some run of A equals some run of B.
for w in "${workloads[@]}"; do
   for o in "${opts[@]}"; do
      a="" b="" r=DIFFERENT
      for _ in $(seq "$R"); do
         a="$a $(digest A)" b="$b $(digest B)"
         for x in $a; do case " $b " in *" $x "*) r=same;; esac; done
         [ $r = same ] && break
      done
      # no run of either side agreed with another of its own: inconclusive
      if [ $r != same ] && [ "$(echo $a | tr ' ' '\n' | sort -u | wc -l)" = "$R" ] \
         && [ "$(echo $b | tr ' ' '\n' | sort -u | wc -l)" = "$R" ]; then r=VARIES; fi
      [ $r = DIFFERENT ] && bad=1
      echo "${w%%|*} | $o: $r (A:$a B:$b)"
   done
done
exit $bad
