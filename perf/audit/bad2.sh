#!/bin/bash
. "$(dirname "$0")/cases.sh"
cd /tmp/a27
run_cases '/rof/|noperm' <<'CASES'
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
