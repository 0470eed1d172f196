# Shell helpers shared by perf/*.sh (sourced, not run).

# cgbd_time OUT opts... -- cmd...: run cmd under callgrind-bd with the
# options, the profile to OUT; prints "cpu-seconds peak-kB wall-seconds"
# (CPU = user + system time: less noisy than wall time on a shared
# machine).
cgbd_time() {
   local out=$1 opts=() tf
   shift
   while [ "$1" != "--" ]; do opts+=("$1"); shift; done
   shift
   tf=$(mktemp)
   /usr/bin/time -f "%U %S %M %e" -o "$tf" valgrind --tool=callgrind-bd \
      "${opts[@]}" --callgrind-out-file="$out" "$@" >/dev/null 2>&1
   awk '{print $1 + $2, $3, $4}' "$tf"
   rm -f "$tf"
}

# cgbd_cpu_rss OUT opts... -- cmd...: cgbd_time's "cpu-seconds peak-kB".
cgbd_cpu_rss() {
   cgbd_time "$@" | awk '{print $1, $2}'
}

# cgbd_rounds N OUT opts...: N interleaved rounds of every workload
# ("name|cmd") of the array `workloads` under every configuration
# ("name|opts") of the array `configs`, the options first, the profile to
# OUT; each run's CPU seconds appended to cpu[name/config], its peak
# kB to mem[name/config] and, if the caller declares `wall` too, its wall
# seconds to wall[name/config] (associative arrays the caller declares).
# A configuration runs the build of config_lib[config] if the caller
# declares that array (two builds compared), else $VALGRIND_LIB's.
# shellcheck disable=SC2154
cgbd_rounds() {
   local n=$1 out=$2 w c key t m e keep_wall=no lib
   shift 2
   declare -p wall >/dev/null 2>&1 && keep_wall=yes
   for _ in $(seq "$n"); do
      for w in "${workloads[@]}"; do
         for c in "${configs[@]}"; do
            key="${w%%|*}/${c%%|*}"
            lib=${VALGRIND_LIB:-}
            if declare -p config_lib >/dev/null 2>&1; then lib=${config_lib[${c%%|*}]}; fi
            # shellcheck disable=SC2086
            read -r t m e <<< "$(VALGRIND_LIB=$lib cgbd_time "$out" "$@" ${c#*|} -- ${w#*|})"
            cpu[$key]="${cpu[$key]:-} $t"
            mem[$key]="${mem[$key]:-} $m"
            if [ $keep_wall = yes ]; then wall[$key]="${wall[$key]:-} $e"; fi
         done
      done
   done
}

# median: of the numbers on stdin (separated by spaces or newlines)
median() { tr ' ' '\n' | grep . | sort -n | awk '{a[NR]=$1} END{print a[int((NR+1)/2)]}'; }

# ratio_table CONFIG...: per workload of `workloads`, the median CPU and
# wall seconds (cgbd_rounds' cpu and wall) of the configuration "base"
# and of each CONFIG, then each CONFIG's divided by the base's, one line
# a workload: "name | base c1 c2 | x1 x2 | base c1 c2 | x1 x2".
# shellcheck disable=SC2154
ratio_table() {
   local w n m b v c
   for w in "${workloads[@]}"; do
      n=${w%%|*}
      printf "%-10s" "$n"
      for m in cpu wall; do
         local -n tab=$m
         b=$(echo "${tab[$n/base]}" | median)
         printf " | %5.2f" "$b"
         for c; do printf " %6.2f" "$(echo "${tab[$n/$c]}" | median)"; done
         printf " |"
         for c; do
            v=$(echo "${tab[$n/$c]}" | median)
            printf " %6.2f" "$(echo "$v / $b" | bc -l)"
         done
         unset -n tab
      done
      echo
   done
}

# multicore_workloads DIR: the threaded workloads of perf/multicore.sh
# (built into DIR by it) into the array `workloads` ("name|cmd"), xz -T2
# where xz is installed.
# shellcheck disable=SC2034
multicore_workloads() {
   local b=$1
   workloads=("threads3|$b/threads3 2" "counters|$b/counters 500000"
              "jacobi|$b/jacobi_omp 1024 8" "jac-region|$b/jacobi_omp_region"
              "sweep2|$b/sweep2 seq" "stencil|$b/jacobi naive 2 700 12")
   if command -v xz >/dev/null; then
      workloads+=("xz -T2|xz -T2 -3 --block-size=65536 -c $b/xz-input")
   fi
}
