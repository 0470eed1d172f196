#!/usr/bin/env bash
# Line coverage of callgrind/, cachesim/ and backdate/ by the test suite.
#
#   tests/coverage/coverage.sh [WORK-DIR] [TEST-PATTERN]
#
# Copies the tree (git-tracked and untracked-but-not-ignored files) to
# WORK-DIR/src (default /tmp/cgbd-coverage), builds it there with gcov's
# counters: the tool with -fprofile-info-section and gcov_dump.c (a
# Valgrind tool has no libc for gcc's usual runtime; see that file), the
# unit tests with plain --coverage. Runs tests/run [TEST-PATTERN] in the
# copy, each tool run leaving its counters in WORK-DIR/runs/<pid>/; sums
# them (gcov-tool merge) into the build's .gcda files, adds the unit
# tests' own, and prints per folder the lines run at least once by any
# test over the lines gcov counts (a line built both into the tool and
# into a unit test counts once), e.g.
#   callgrind  9876/10234  96.5%
# then the suite's last line. Takes the suite's time and a half.
set -eu
src=$(cd "$(dirname "$0")/../.." && pwd)
work=${1:-/tmp/cgbd-coverage}
pattern=${2:-}
mkdir -p "$work"
work=$(cd "$work" && pwd)
tree=$work/src
say() { echo "== $*" >&2; }

rm -rf "$tree" "$work/runs"
mkdir -p "$tree" "$work/runs"
if [ "$(git -C "$src" rev-parse --show-toplevel 2>/dev/null)" = "$src" ]; then
   (cd "$src" && git ls-files -co --exclude-standard -z |
      xargs -0 -I{} sh -c 'test -e "{}" && printf "%s\0" "{}"' |
      tar --null -T - -cf -) | tar -C "$tree" -xf -
else                                    # an unpacked tarball or archive
   (cd "$src" && tar --exclude=./tests/build -cf - .) | tar -C "$tree" -xf -
fi

say "building with coverage counters in $tree"
cd "$tree"
autoreconf -i >/dev/null 2>&1
./configure -q
vg_cflags=$(sed -n 's/^VALGRIND_CFLAGS = //p' Makefile)
gcc -O2 -g -m64 -fno-builtin -fno-stack-protector $vg_cflags \
   -DVGA_amd64=1 -DVGO_linux=1 -DVGP_amd64_linux=1 -DVGPV_amd64_linux_vanilla=1 \
   -c -o tests/coverage/gcov_dump.o tests/coverage/gcov_dump.c
libgcov=$(gcc -print-file-name=libgcov.a)
make -s -j2 callgrind-bd-amd64-linux \
   CFLAGS="-O2 -g --coverage -fprofile-info-section=gcov_info" \
   LIBS="tests/coverage/gcov_dump.o $libgcov -Wl,--wrap=vgPlain_basic_tool_funcs" \
   >/dev/null
make -s -j2 CFLAGS="-O2 -g --coverage" LDFLAGS="--coverage" >/dev/null

say "tests/run $pattern"
set +e
CGBD_GCOV_DIR=$work/runs tests/run $pattern > "$work/tests.log" 2>&1
set -e
say "$(tail -n 1 "$work/tests.log") (log: $work/tests.log)"

say "summing $(ls "$work/runs" | sed 's/@.*//' | sort -u | wc -l) runs' counters"
python3 "$src/tests/coverage/lines.py" "$tree" "$work/runs"
tail -n 1 "$work/tests.log"
