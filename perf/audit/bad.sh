#!/bin/bash
# item 1: every bad value of the multi-core/paths options, one line each
. "$(dirname "$0")/cases.sh"
cd /tmp/a27
mkdir -p ro && chmod 555 ro
mkdir -p dirs && mkdir -p dirs/p.paths dirs/s.sharing dirs/t.sharing.txt dirs/b.bandwidth
printf 'garbage here\n' > garbled.machine
printf '' > empty.machine
run_cases '/ro/' <<CASES
--private-caches=
--private-caches=maybe
--private-caches=YES
--private-caches=1
--private-caches
--interleave=
--interleave=-1
--interleave=100001
--interleave=abc
--interleave=5x --private-caches=yes
--interleave=100 
--interleave=99999999999999999999 --private-caches=yes
--private-caches=yes --interleave=0x10
--pin-threads=
--pin-threads=maybe --private-caches=yes
--pin-threads=no
--private-caches=yes --interleave=0 --pin-threads=yes
--private-caches=yes --fair-sched=no
--sharing=
--sharing=on
--sharing
--sharing-penalty=10
--sharing=yes --sharing-penalty=
--sharing=yes --sharing-penalty=0
--sharing=yes --sharing-penalty=-5
--sharing=yes --sharing-penalty=1000001
--sharing=yes --sharing-penalty=1e3
--bandwidth=
--bandwidth=perhaps
--bandwidth
--bandwidth-unit=flop
--bandwidth=yes --bandwidth-unit=
--bandwidth=yes --bandwidth-unit=cycle
--bandwidth=yes --bandwidth-window=
--bandwidth=yes --bandwidth-window=0
--bandwidth=yes --bandwidth-window=-1
--bandwidth=yes --bandwidth-window=65537
--bandwidth=yes --bandwidth-window=2k
--bandwidth=yes --bandwidth-limits=
--bandwidth=yes --bandwidth-limits=/tmp/a27/nosuch.machine
--bandwidth=yes --bandwidth-limits=/tmp/a27/garbled.machine
--bandwidth=yes --bandwidth-limits=/tmp/a27/empty.machine
--bandwidth=yes --bandwidth-limits=/tmp/a27
--bandwidth-limits=$top/tools/machines/ivybridge-thesis.machine
--bandwidth=yes --simulate-wb=no
--bandwidth=yes --L2=262144,8,64
--bandwidth=yes --prefetch=stream
--bandwidth=yes --fair-sched=no
--paths=
--paths=y
--paths
--paths=yes --cacheuse=yes --backdate=no
--sharing=yes --callgrind-out-file=/tmp/a27/ro/x
--paths=yes --callgrind-out-file=/tmp/a27/ro/x
--bandwidth=yes --callgrind-out-file=/tmp/a27/ro/x
--private-caches=yes --callgrind-out-file=/tmp/a27/ro/x
--paths=yes --callgrind-out-file=/tmp/a27/dirs/p
--sharing=yes --callgrind-out-file=/tmp/a27/dirs/s
--sharing=yes --callgrind-out-file=/tmp/a27/dirs/t
--bandwidth=yes --callgrind-out-file=/tmp/a27/dirs/b
--paths=yes --callgrind-out-file=/tmp/a27/nodir/x
--sharing=yes --callgrind-out-file=
--paths=yes --separate-threads=yes --callgrind-out-file=/tmp/a27/ro/x
CASES
