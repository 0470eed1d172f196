#!/usr/bin/env bash
# Where --sharing=yes's time goes (issue 37): the turns, the model's
# per-access short path, the rest. Needs a build with
# perf/sharing-cut.patch applied (git apply; CB_CUT_SHARE=1 in the
# environment makes the block's accesses skip the sharing model: an
# inexact cut, for measuring only) and perf/multicore.sh run once (its
# perf/build binaries). Columns (CPU s, median of R interleaved rounds):
#   base    --cache-sim=yes
#   priv    --cache-sim=yes --private-caches=yes
#   sh0cut  --sharing=yes --interleave=0, accesses not modelled
#   sh0     --sharing=yes --interleave=0
#   shcut   --sharing=yes (the turns), accesses not modelled
#   sh      --sharing=yes
# usage: CUT_VGLIB=DIR/vglib perf/sharing-cut.sh [R]
cd "$(dirname "$0")/.."
. perf/lib.sh
b=$PWD/perf/build
export OMP_NUM_THREADS=2 OMP_WAIT_POLICY=passive VALGRIND_LIB=${CUT_VGLIB:?a build with perf/sharing-cut.patch applied: CUT_VGLIB=DIR/vglib}
geom="--I1=32768,8,64 --D1=32768,8,64 --LL=6291456,12,64"
R=${1:-5}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
ws=("stencil|$b/jacobi naive 2 700 12" "jacobi|$b/jacobi_omp 1024 8" "sweep2|$b/sweep2 seq" "threads3|$b/threads3 2" "xz|xz -T2 -3 --block-size=65536 -c $b/xz-input")
cs=("base|0|--cache-sim=yes" "priv|0|--cache-sim=yes --private-caches=yes" "sh0cut|1|--cache-sim=yes --sharing=yes --interleave=0" "sh0|0|--cache-sim=yes --sharing=yes --interleave=0" "shcut|1|--cache-sim=yes --sharing=yes" "sh|0|--cache-sim=yes --sharing=yes")
declare -A cpu
for r in $(seq $R); do
 for w in "${ws[@]}"; do
  for c in "${cs[@]}"; do
    n=${c%%|*}; rest=${c#*|}; cut=${rest%%|*}; o=${rest#*|}
    if [ $cut = 1 ]; then export CB_CUT_SHARE=1; else unset CB_CUT_SHARE; fi
    t=$(cgbd_time $out/p.out $o $geom -- ${w#*|} | awk '{print $1}')
    cpu[${w%%|*}/$n]="${cpu[${w%%|*}/$n]} $t"
  done
 done
done
printf "%-9s" workload; for c in "${cs[@]}"; do printf " %7s" ${c%%|*}; done; echo "   (median CPU s; x over base below)"
for w in "${ws[@]}"; do
  k=${w%%|*}; bm=$(echo ${cpu[$k/base]} | median)
  printf "%-9s" $k; for c in "${cs[@]}"; do printf " %7s" $(echo ${cpu[$k/${c%%|*}]} | median); done; echo
  printf "%-9s" x; for c in "${cs[@]}"; do m=$(echo ${cpu[$k/${c%%|*}]} | median); printf " %7.2f" $(echo "$m / $bm" | bc -l); done; echo
done
