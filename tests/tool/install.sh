#!/usr/bin/env bash
# `make install DESTDIR=...` puts the tool into Valgrind's tool directory
# (as configure found it, or --with-tool-installdir), the man page under share/man/man1 and the
# manual with its pictures under share/doc/callgrind-bd; the man
# page formats without warnings; the Python tools (callgrind-bd_merge and
# callgrind-bd_bandwidth with the machine file in share/callgrind-bd/machines,
# callgrind-bd_paths, linked into bindir, and cg2dot.py) run from the installed location with
# the installed cgbd package on a small profile; `make uninstall` removes
# them again.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
top=${CGBD_BUILDDIR:-$top}               # the build directory
name=install
dest=$(mktemp -d)
trap 'rm -rf "$dest"' EXIT
fail() { echo "FAIL $name: $*"; exit 1; }

[ -f "$top/Makefile" ] || fail "no Makefile in $top (configure first)"
srcdir=$(cd "$(dirname "$0")/../.." && pwd)
tooldir=$(make -s --no-print-directory -C "$top" print-tool-installdir)
prefix=$(sed -n 's/^prefix = //p' "$top/Makefile")
[ -n "$tooldir" ] && [ -n "$prefix" ] || fail "VG_TOOLDIR/prefix not in Makefile"

make -C "$top" install DESTDIR="$dest" >"$dest.log" 2>&1 \
    || { tail -5 "$dest.log"; rm -f "$dest.log"; fail "make install failed"; }
rm -f "$dest.log"
tool=$dest$tooldir/callgrind-bd-amd64-linux
page=$dest$prefix/share/man/man1/callgrind-bd.1
[ -x "$tool" ] || fail "no executable $tool"
cmp -s "$tool" "$top/callgrind-bd-amd64-linux" || fail "$tool differs from the build"
[ -f "$page" ] || fail "no man page at $page"
manual=$dest$prefix/share/doc/callgrind-bd/manual.md
[ -f "$manual" ] || fail "no manual at $manual"
# every picture and page the manual links to is installed beside it
grep -o '([a-z0-9-]*\.\(png\|md\|svg\))' "$srcdir/docs/manual.md" | tr -d '()' | while read -r linked; do
    [ -f "$(dirname "$manual")/$linked" ] || { echo "FAIL $name: manual's $linked not installed"; exit 1; }
done || exit 1
header=$dest$prefix/include/valgrind/callgrind-bd.h
[ -f "$header" ] || fail "no client request header at $header"
# the installed header compiles beside Valgrind's own, in a C client
printf '#include <valgrind/callgrind.h>\n#include <valgrind/callgrind-bd.h>\nint main(void) { CALLGRIND_BD_SEGMENT_END; CALLGRIND_ZERO_STATS; return 0; }\n' \
    > "$dest/hdr.c"
gcc -I"$dest$prefix/include" -c -o "$dest/hdr.o" "$dest/hdr.c" 2>"$dest/hdr.err" \
    || fail "the installed callgrind-bd.h does not compile: $(head -3 "$dest/hdr.err")"
echo "PASS $name/files"

if command -v groff >/dev/null; then
    warn=$(groff -man -Tutf8 -ww -z "$page" 2>&1)
    [ -z "$warn" ] || fail "groff warns on the man page: $warn"
    groff -man -Tascii "$page" 2>/dev/null | sed "s/.\x08//g" | grep -q -- "--backdate-check" \
        || fail "formatted man page lacks --backdate-check"
    echo "PASS $name/man-page"
fi

name=install/python-tools
merge_link=$dest$prefix/bin/callgrind-bd_merge
libexec=$(dirname "$(find "$dest" -path '*libexec*' -name callgrind-bd_merge -type f | head -n 1)")
[ -L "$merge_link" ] || fail "no link $merge_link"
[ -f "$libexec/cgbd/cgfile.py" ] && [ -f "$libexec/cgbd/merge.py" ] && [ -x "$libexec/cg2dot.py" ] \
    || fail "cgbd package or cg2dot.py not installed beside callgrind-bd_merge ($libexec)"
[ -f "$dest$prefix/share/man/man1/callgrind-bd_merge.1" ] || fail "no callgrind-bd_merge man page"
# A profile of two functions, main calling work: merged with itself, every
# number doubles; the tools run from / with an empty PYTHONPATH, so
# nothing of the source tree can be imported.
prof=$dest/p.out
printf '%s\n' 'version: 1' 'cmd: ./app' 'part: 1' 'events: Ir Dr' \
    'fl=(1) app.c' 'fn=(1) main' '3 10 2' 'cfn=(2) work' 'calls=4 20' '5 100 40' \
    'fn=(2) work' '20 100 40' 'totals: 110 42' > "$prof"
(cd / && PYTHONPATH= "$merge_link" -o "$dest/m.out" "$prof" "$prof") \
    || fail "installed callgrind-bd_merge failed"
grep -qx 'totals: 220 84' "$dest/m.out" && grep -qx 'calls=8 20' "$dest/m.out" \
    || fail "installed merge: totals/calls not doubled: $(grep -E '^(totals|calls)' "$dest/m.out" | tr '\n' ' ')"
(cd / && PYTHONPATH= "$libexec/cg2dot.py" --event=Dr --threshold=0 "$prof") | grep -q '"main \[???\]" -> "work \[???\]" \[label="40\\n4x"' \
    || fail "installed cg2dot.py: no main -> work edge with 40, 4x"
echo "PASS $name"

# callgrind-bd_bandwidth, linked into bindir, with the installed machine
# file: a thread reading 8 bytes per instruction for 1000 instructions
# (window 4: sums ramp 8, 16, 24 up and down, 32 in between) against the
# Ivy Bridge's core<-L1 limit of 86.4e9 / (2.7e9 x 4) = 8 bytes per
# instruction: nothing is above it, 0 added
name=install/bandwidth
bw_link=$dest$prefix/bin/callgrind-bd_bandwidth
machine=$dest$prefix/share/callgrind-bd/machines/ivybridge-thesis.machine
[ -L "$bw_link" ] || fail "no link $bw_link"
[ -f "$libexec/cgbd/bandwidth.py" ] && [ -f "$libexec/cgbd/bandwidth_plot.py" ] \
    || fail "cgbd/bandwidth*.py not installed in $libexec"
[ -f "$machine" ] || fail "no machine file $machine"
[ -f "$dest$prefix/share/man/man1/callgrind-bd_bandwidth.1" ] || fail "no callgrind-bd_bandwidth man page"
printf '%s\n' 'version: 1' 'unit: instr' 'window: 4' 'thread: 1' 'units: 1000' \
    'path: core<-L1' 'total: 8000' 'hist: 0 1 8 2 16 2 24 2 32 997' > "$dest/p.bandwidth"
out=$(cd / && PYTHONPATH= "$bw_link" --limits "$machine" "$dest/p.bandwidth") \
    || fail "installed callgrind-bd_bandwidth failed"
grep -Eq '^1 +core<-L1 +8 +1000 +0 +0 ' <<<"$out" \
    || fail "installed callgrind-bd_bandwidth: no 'core<-L1 limit 8, 0 above, 0 added' line: $out"
echo "PASS $name"

# callgrind-bd_paths, linked into bindir, on a hand-written file: two
# paths of thread 1 through main (Ir 5 in main, 7 in main -> work, whose
# file lies below the working directory /): the folded stacks name
# file:function, relative, as callgrind_annotate run from / would
name=install/paths
paths_link=$dest$prefix/bin/callgrind-bd_paths
[ -L "$paths_link" ] || fail "no link $paths_link"
[ -f "$libexec/cgbd/paths.py" ] || fail "cgbd/paths.py not installed in $libexec"
[ -f "$dest$prefix/share/man/man1/callgrind-bd_paths.1" ] || fail "no callgrind-bd_paths man page"
printf 'version: 1\npart: 1\nevents: Ir\nfn: 1 /src/a.c\tmain\npath: 1 1 5\nfn: 2 /src/b.c\twork\npath: 1 1;2 7\ntotals: 12\n' \
    > "$dest/p.paths"
out=$(cd / && PYTHONPATH= "$paths_link" "$dest/p.paths") || fail "installed callgrind-bd_paths failed"
[ "$out" = "$(printf 'src/a.c:main 5\nsrc/a.c:main;src/b.c:work 7')" ] \
    || fail "installed callgrind-bd_paths: folded stacks: $out"
echo "PASS $name"

name=install/uninstall
make -C "$top" uninstall DESTDIR="$dest" >/dev/null 2>&1 || fail "make uninstall failed"
[ ! -e "$tool" ] && [ ! -e "$page" ] && [ ! -e "$manual" ] && [ ! -e "$header" ] \
    && [ ! -e "$merge_link" ] && [ ! -L "$merge_link" ] && [ ! -e "$libexec" ] \
    && [ ! -L "$bw_link" ] && [ ! -e "$machine" ] && [ ! -L "$paths_link" ] \
    || fail "files left after uninstall"
echo "PASS $name"
