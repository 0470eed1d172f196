#!/usr/bin/env bash
# Cost and effect of --interleave (threads take turns every N blocks under
# --private-caches=yes): wall and CPU time of the same analysis with the
# default interleaving against Valgrind's own schedule (--interleave=0),
# median of R interleaved runs (default 3), and what each run counted
# (D1Fs, D1Ts of the whole program). Timings are never asserted in tests.
#
# usage: perf/interleave.sh [R [N...]]      (after make; N: extra values of
#                                           --interleave to show, e.g. 1000)
# Workloads:
#   counters   perf/bench/counters.c: 2 threads bumping adjacent volatile
#              counters 2,000,000 times each (the textbook false sharing)
#   padded     the same with a line per counter (no sharing)
#   threads3   perf/bench/threads3.c: three threads streaming, hashing,
#              multiplying (little sharing)
#   jacobi     perf/bench/jacobi_omp.c: OpenMP Jacobi, 1024x1024, 8 sweeps,
#              2 threads, sequential initialisation
#   handover   tests/clients/sharing.c (a mutex + condvar hand-over on
#              every iteration: the program orders itself)
#   xz -T2     xz compressing 256 KiB with two threads (Debian's xz)
set -eu
cd "$(dirname "$0")/.."
R=${1:-3}
shift || true
extra=("$@")
mkdir -p perf/build
gcc -g -O2 -pthread -o perf/build/threads3 perf/bench/threads3.c
gcc -g -O1 -pthread -o perf/build/counters perf/bench/counters.c
gcc -g -O1 -pthread -DPAD -o perf/build/counters-pad perf/bench/counters.c
gcc -g -O2 -fopenmp -o perf/build/jacobi_omp perf/bench/jacobi_omp.c -lm
gcc -g -O2 -DPATTERN=0 -pthread -Wl,-z,now -o perf/build/handover tests/clients/sharing.c
head -c 196608 /dev/urandom | base64 > perf/build/xz-input
export VALGRIND_LIB=$PWD/vglib OMP_NUM_THREADS=2

workloads=("counters|perf/build/counters 2000000"
           "padded|perf/build/counters-pad 2000000"
           "threads3|perf/build/threads3 2"
           "jacobi|perf/build/jacobi_omp 1024 8"
           "handover|perf/build/handover")
if command -v xz >/dev/null; then
    workloads+=("xz -T2|xz -T2 -3 --block-size=65536 -c perf/build/xz-input")
fi
configs=("0|--interleave=0" "default|")
for n in "${extra[@]}"; do configs+=("$n|--interleave=$n"); done
base="--cache-sim=yes --private-caches=yes"
out=$(mktemp)
trap 'rm -f "$out"*' EXIT
. perf/lib.sh                   # cgbd_time, median

declare -A wall cpu d1fs d1ts
for _ in $(seq "$R"); do
    for w in "${workloads[@]}"; do
        for c in "${configs[@]}"; do
            k="${w%%|*}/${c%%|*}"
            # shellcheck disable=SC2086
            read -r t _ e <<< "$(cgbd_time "$out" $base ${c#*|} -- ${w#*|})"
            wall[$k]="${wall[$k]:-} $e"
            cpu[$k]="${cpu[$k]:-} $t"
            # D1Ts and D1Fs by name (summary: leaves trailing zero events out)
            read -r ts fs <<< "$(awk '/^events:/ { for (i = 2; i <= NF; i++) at[$i] = i }
                /^summary:/ { print ($(at["D1Ts"]) + 0), ($(at["D1Fs"]) + 0) }' "$out")"
            d1ts[$k]="${d1ts[$k]:-} $ts"
            d1fs[$k]="${d1fs[$k]:-} $fs"
        done
    done
done

spread() { tr ' ' '\n' | grep . | sort -n | awk 'NR==1{lo=$1} {hi=$1} END{print (lo==hi ? lo : lo ".." hi)}'; }
echo "--cache-sim=yes --private-caches=yes, median of $R runs; ratio = with interleaving / --interleave=0"
printf "%-9s %-8s %8s %8s %7s %7s %16s %16s\n" workload N "wall s" "CPU s" "wall x" "CPU x" D1Fs D1Ts
for w in "${workloads[@]}"; do
    for c in "${configs[@]}"; do
        k="${w%%|*}/${c%%|*}"; k0="${w%%|*}/0"
        we=$(echo "${wall[$k]}" | median); ce=$(echo "${cpu[$k]}" | median)
        w0=$(echo "${wall[$k0]}" | median); c0=$(echo "${cpu[$k0]}" | median)
        printf "%-9s %-8s %8.2f %8.2f %7.3f %7.3f %16s %16s\n" "${w%%|*}" "${c%%|*}" "$we" "$ce" \
            "$(echo "$we / $w0" | bc -l)" "$(echo "$ce / $c0" | bc -l)" \
            "$(echo "${d1fs[$k]}" | spread)" "$(echo "${d1ts[$k]}" | spread)"
    done
done
