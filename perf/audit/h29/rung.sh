#!/bin/bash
TOP=${TOP:-$(cd "$(dirname "$0")/../../.." && pwd)}
export VALGRIND_LIB=$TOP/vglib
out=$1; shift
rm -rf /tmp/a29/out/$out; mkdir -p /tmp/a29/out/$out; cd /tmp/a29/out/$out
/usr/bin/time -f "%U+%S s" timeout 60 valgrind --tool=callgrind-bd --I1=32768,8,64 --D1=32768,8,64 --LL=4194304,16,64 \
  --callgrind-out-file=/tmp/a29/out/$out/cg.out "$@" /tmp/a29/grow2 > stdout 2> stderr
echo "$out rc=$? $(tail -1 stderr)"
