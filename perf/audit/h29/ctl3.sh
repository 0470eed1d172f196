#!/bin/bash
TOP=${TOP:-$(cd "$(dirname "$0")/../../.." && pwd)}
export VALGRIND_LIB=$TOP/vglib
d=/tmp/a29/out/$1; shift
rm -rf $d; mkdir -p $d; cd $d
(/usr/bin/time -f "%e s wall %U+%S" timeout 60 valgrind --tool=callgrind-bd -q "$@" --callgrind-out-file=$d/cg.out /tmp/a29/sleeper > stdout 2> stderr; echo rc=$? > rc) &
sleep 1.5
C=$TOP/control/callgrind-bd_control
for a in "-b" "-d blocked" "-z" "-e -b" "-i off" "-i on"; do
  S=$(date +%s.%N); timeout 30 $C $a sleeper > ctl.log 2>&1; echo "$a rc=$? $(echo "$(date +%s.%N) - $S" | bc) s $(grep -c . ctl.log) lines"
done
cat ctl.log | head -12
wait
cat rc; tail -1 stderr; ls
