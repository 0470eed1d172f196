#!/usr/bin/env bash
# This machine's bandwidth per data path, as a machine file for
# --bandwidth-limits and callgrind-bd_bandwidth --limits (see
# perf/bandwidth-bench.c for what is measured and how):
#   perf/bandwidth-bench.sh [--quick] [--threads=N] [--mem-mb=M] [--ll-kb=K] > this.machine
# then set instr-per-cycle and flop-per-cycle in it to the core's peak.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$top/perf/build"
gcc -O3 -pthread -o "$top/perf/build/bandwidth-bench" "$top/perf/bandwidth-bench.c"
exec "$top/perf/build/bandwidth-bench" "$@"
