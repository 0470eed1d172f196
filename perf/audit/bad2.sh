#!/bin/bash
top=$(cd "$(dirname "$0")/../.." && pwd)
export VALGRIND_LIB=${VALGRIND_LIB:-$top/vglib}
cd /tmp/a27
run() {
  rm -f ran
  timeout 60 $PRE valgrind --tool=callgrind-bd -q --I1=32768,8,64 --D1=32768,8,64 --LL=4194304,16,64 "$@" /usr/bin/touch /tmp/a27/ran > out.txt 2>&1
  rc=$?
  n=$(grep -vEc 'Use --help for more information|warning: (L3 cache found|specified LL cache|simulated LL cache)' out.txt)
  r=no; [ -e ran ] && r=YES
  printf '%s | rc=%s lines=%s clientran=%s | %s\n' "$*" "$rc" "$n" "$r" "$(grep -vE 'Use --help|warning: (L3 cache found|specified LL cache|simulated LL cache)' out.txt | tr '\n' '~' | cut -c1-220)"
}
while IFS= read -r line; do
  [ -z "$line" ] && continue
  PRE=; case "$line" in *"/rof/"*|*noperm*) PRE="setpriv --reuid=65534 --regid=65534 --clear-groups";; esac
  eval "run $line"
done <<'CASES'
--bandwidth=yes --bandwidth-limits=/tmp/a27/neg.machine
--bandwidth=yes --bandwidth-limits=/tmp/a27/zero.machine
--bandwidth=yes --bandwidth-limits=/tmp/a27/word.machine
--bandwidth=yes --bandwidth-limits=/tmp/a27/emptyval.machine
--bandwidth=yes --bandwidth-limits=/tmp/a27/dup.machine
--bandwidth=yes --bandwidth-limits=/tmp/a27/unknown.machine
--bandwidth=yes --bandwidth-limits=/tmp/a27/ipc0.machine
--bandwidth=yes --bandwidth-limits=/tmp/a27/inf.machine
--bandwidth=yes --bandwidth-limits=/tmp/a27/nan.machine
--bandwidth=yes --bandwidth-limits=/tmp/a27/trail.machine
--bandwidth=yes --bandwidth-limits=/tmp/a27/cut.machine
--bandwidth=yes --bandwidth-limits=/tmp/a27/bin.machine
--bandwidth=yes --bandwidth-limits=/tmp/a27/noperm.machine
--bandwidth=yes --bandwidth-unit=flop --bandwidth-limits=/tmp/a27/ok.machine
--bandwidth=yes --bandwidth-window=65536
--interleave=+5 --private-caches=yes
--interleave=' 5' --private-caches=yes
--sharing=no --sharing-penalty=10
--private-caches=no --interleave=100
--sharing=yes --callgrind-out-file=/tmp/a27/x.%q{NO_SUCH_VAR_A27}
--sharing=yes --callgrind-out-file=/tmp/a27/rof/x
--paths=yes --callgrind-out-file=/tmp/a27/rof/y
--sharing=yes --callgrind-out-file=/tmp/a27/rof/y
--sharing=yes --callgrind-out-file=/tmp/a27/rof/z
--bandwidth=yes --callgrind-out-file=/tmp/a27/rof/y
--paths=yes --separate-threads=yes --callgrind-out-file=/tmp/a27/rof/y
--paths=yes --callgrind-out-file=/dev/null
--sharing=yes --sharing=no --sharing-penalty=5
--bandwidth=yes --private-caches=no --interleave=50
CASES
