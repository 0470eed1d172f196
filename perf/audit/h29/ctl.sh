#!/bin/bash
TOP=${TOP:-$(cd "$(dirname "$0")/../../.." && pwd)}
# ctl.sh DIR ROUNDS OPTIONS...: t2 loop under the tool, driven by the controller
export VALGRIND_LIB=$TOP/vglib
d=/tmp/a29/out/$1; r=$2; shift 2
rm -rf $d; mkdir -p $d; cd $d
(/usr/bin/time -f "%e s wall %U+%S" timeout 60 valgrind --tool=callgrind-bd -q "$@" --callgrind-out-file=$d/cg.out /tmp/a29/t2 loop $r > stdout 2> stderr; echo rc=$? > rc) &
sleep 3
C=$TOP/control/callgrind-bd_control
for a in "-d first" "-b" "-z" "-d second" "-i off" "-i on" "-d third"; do
  S=$(date +%s.%N); timeout 30 $C $a t2 > ctl.log 2>&1; echo "$a rc=$? $(echo "$(date +%s.%N) - $S" | bc) s $(grep -c . ctl.log) lines"; sleep 0.3
done
wait
cat rc; tail -1 stderr; ls
