#!/bin/bash
TOP=${TOP:-$(cd "$(dirname "$0")/../../.." && pwd)}
# chk.sh DIR: annotate every profile, pathscheck every .paths, bandwidth reader, conservation (summary)
L=$TOP/tests/lib
cd /tmp/a29/out/$1
for f in $(ls | grep -v '\.paths$\|\.bandwidth$\|\.txt$\|^std'); do
  [ -s $f ] || { echo "  empty $f"; continue; }
  python3 $L/annotate_check.py $f >/tmp/a29/ann.log 2>&1 || { echo "  ANNOTATE FAIL $f"; tail -3 /tmp/a29/ann.log; }
  python3 $L/conservation.py --max-diffs 1000 $f 2>&1 | grep -v "^OK\|clone\|_Exit\|more" | sed "s/^/  cons $f: /"
  [ -f $f.paths ] && { python3 $L/pathscheck.py $f $f.paths > /tmp/a29/pc.log 2>&1 || { echo "  PATHS FAIL $f"; tail -5 /tmp/a29/pc.log; }; }
done
for b in $(ls | grep '\.bandwidth$'); do $TOP/tools/callgrind-bd_bandwidth --summary $b >/dev/null 2>/tmp/a29/bw.log || { echo "  BW FAIL $b"; cat /tmp/a29/bw.log; }; done
echo "checked $1: $(ls | tr '\n' ' ')"
