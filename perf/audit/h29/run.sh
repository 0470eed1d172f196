#!/bin/bash
TOP=${TOP:-$(cd "$(dirname "$0")/../../.." && pwd)}
# run.sh OUTNAME MODE OPTIONS... : one run of t2 under the tool, timeout 60
export VALGRIND_LIB=$TOP/vglib
out=$1; mode=$2; shift 2
rm -rf /tmp/a29/out/$out; mkdir -p /tmp/a29/out/$out
cd /tmp/a29/out/$out
/usr/bin/time -f "%U+%S s" timeout 60 valgrind --tool=callgrind-bd -q --I1=32768,8,64 --D1=32768,8,64 --LL=4194304,16,64 \
  --callgrind-out-file=/tmp/a29/out/$out/cg.out "$@" /tmp/a29/t2 $mode > stdout 2> stderr
echo "$out rc=$? $(tail -1 stderr)"
