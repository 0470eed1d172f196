#!/bin/bash
# item 2: the same command twice gives the same files (but pid:/cmd:)
top=$(cd "$(dirname "$0")/../.." && pwd)
export VALGRIND_LIB=${VALGRIND_LIB:-$top/vglib}
cd /tmp/a27 && rm -rf tw && mkdir tw && cd tw
for t in 1 2 3; do
  for o in private-caches sharing bandwidth paths; do
    for r in 1 2; do
      OMP_NUM_THREADS=$t valgrind --tool=callgrind-bd -q --I1=32768,8,64 --D1=32768,8,64 --LL=4194304,16,64 \
        --$o=yes --callgrind-out-file=$o.t$t.r$r ../heat > /dev/null 2> $o.t$t.r$r.err
    done
    for f in $o.t$t.r1*; do
      g=${f/.r1/.r2}
      case $f in *.err) continue;; esac
      if diff <(grep -vE '^(pid|cmd):' $f) <(grep -vE '^(pid|cmd):' $g) > /dev/null; then echo "same  $f"; else echo "DIFF  $f ($(diff <(grep -vE '^(pid|cmd):' $f) <(grep -vE '^(pid|cmd):' $g) | grep -c '^[<>]') lines)"; fi
    done
  done
done
