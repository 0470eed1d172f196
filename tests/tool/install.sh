#!/usr/bin/env bash
# `make install DESTDIR=...` puts the tool into Valgrind's tool directory
# (as configure found it), the man page under share/man/man1 and the
# manual with its pictures under share/doc/callgrind-bd; the man
# page formats without warnings; `make uninstall` removes them again.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
name=install
dest=$(mktemp -d)
trap 'rm -rf "$dest"' EXIT
fail() { echo "FAIL $name: $*"; exit 1; }

[ -f "$top/Makefile" ] || fail "no Makefile in $top (configure first)"
tooldir=$(sed -n 's/^VG_TOOLDIR = //p' "$top/Makefile")
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
grep -o '([a-z0-9-]*\.\(png\|md\))' "$top/docs/manual.md" | tr -d '()' | while read -r linked; do
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

name=install/uninstall
make -C "$top" uninstall DESTDIR="$dest" >/dev/null 2>&1 || fail "make uninstall failed"
[ ! -e "$tool" ] && [ ! -e "$page" ] && [ ! -e "$manual" ] && [ ! -e "$header" ] || fail "files left after uninstall"
echo "PASS $name"
