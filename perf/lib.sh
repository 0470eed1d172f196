# Shell helpers shared by perf/*.sh (sourced, not run).

# cgbd_cpu_rss OUT opts... -- cmd...: run cmd under callgrind-bd with the
# options, the profile to OUT; prints "cpu-seconds peak-kB" (user +
# system time: less noisy than wall time on a shared machine).
cgbd_cpu_rss() {
   local out=$1 opts=() tf
   shift
   while [ "$1" != "--" ]; do opts+=("$1"); shift; done
   shift
   tf=$(mktemp)
   /usr/bin/time -f "%U %S %M" -o "$tf" valgrind --tool=callgrind-bd \
      "${opts[@]}" --callgrind-out-file="$out" "$@" >/dev/null 2>&1
   awk '{print $1 + $2, $3}' "$tf"
   rm -f "$tf"
}

# median: of the numbers on stdin (separated by spaces or newlines)
median() { tr ' ' '\n' | grep . | sort -n | awk '{a[NR]=$1} END{print a[int((NR+1)/2)]}'; }
