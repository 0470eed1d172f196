#!/usr/bin/env bash
# The manual's worked example of the bandwidth analysis ("Reading
# bandwidth results"): examples/jacobi.c, naive and blocked, 1 and 2
# threads, each run under callgrind-bd with --bandwidth=yes and the
# limits of the thesis' Ivy Bridge (tools/machines/ivybridge-thesis.machine,
# and its caches: L1 32 kB 8-way, LL 3 MB 12-way, 64-byte lines), then
# callgrind-bd_bandwidth on each run and on all four together.
#
#   examples/jacobi-bandwidth.sh [N [STEPS [K]]]     (default 700 24 12)
#
# Writes into examples/build/jacobi/:
#   <variant>-<threads>.out(.bandwidth)  profile and bandwidth file per run
#   <variant>-<threads>.txt              callgrind-bd_bandwidth --summary --limits
#   <variant>-<threads>.png              its curves and bars (--plot)
#   compare.png                          the four runs: curves per path and
#                                        one bar per run (thesis fig 4.18/4.19)
# Uses the build tree's tool (vglib/) when there is one, else the
# installed one; the Python tool from tools/ (built) or PATH. Extra
# valgrind options in VG_OPTS. --plot needs matplotlib.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
n=${1:-700} steps=${2:-24} block=${3:-12}
out=$top/examples/build/jacobi
machine=$top/tools/machines/ivybridge-thesis.machine
mkdir -p "$out"

if [ -x "$top/vglib/callgrind-bd-amd64-linux" ]; then
   export VALGRIND_LIB=$top/vglib
fi
bandwidth=$top/tools/callgrind-bd_bandwidth
[ -x "$bandwidth" ] || bandwidth=callgrind-bd_bandwidth

# -O3 as the thesis (its compiler vectorized the loop); no -march=native:
# Valgrind does not run AVX-512
gcc -O3 -g -pthread -o "$out/jacobi" "$top/examples/jacobi.c"

runs=()
for variant in naive blocked; do
   for threads in 1 2; do
      run=$out/$variant-$threads
      echo "== $variant, $threads thread(s)"
      # shellcheck disable=SC2086  # VG_OPTS: several options
      valgrind -q --tool=callgrind-bd --bandwidth=yes \
         --bandwidth-limits="$machine" \
         --I1=32768,8,64 --D1=32768,8,64 --LL=3145728,12,64 \
         --callgrind-out-file="$run.out" ${VG_OPTS:-} \
         "$out/jacobi" "$variant" "$threads" "$n" "$steps" "$block"
      "$bandwidth" --summary --limits "$machine" --plot "$run.png" \
         "$run.out.bandwidth" > "$run.txt"
      cat "$run.txt"
      runs+=("$run.out.bandwidth")
   done
done
"$bandwidth" --limits "$machine" --plot "$out/compare.png" "${runs[@]}" \
   | grep -E '^# .*estimated time' || true
echo "== pictures in $out: compare.png, naive-1.png ... blocked-2.png"
