#!/usr/bin/env bash
# What differs, for this tool, between the installed Valgrind and another
# release unpacked by perf/other-valgrind.sh:
#
#   perf/valgrind-api-diff.sh SUITE        (after perf/other-valgrind.sh SUITE)
#   perf/valgrind-api-diff.sh --root DIR   (DIR: an unpacked valgrind package)
#
# Compares, in the two releases' headers and pkg-config files: the tool API
# functions and variables (VG_(...)) the tool's sources use, the VEX IR
# statement, expression and jump kinds (Ist_/Iex_/Ijk_) and the IR
# operations (Iop_) the sources name, the callgrind.h client request
# codes, the static libraries the tool links, the load address and the
# link flags. Prints one line per difference found and a summary line.
set -eu
src=$(cd "$(dirname "$0")/.." && pwd)
if [ "${1:-}" = "--root" ]; then
   root=${2:?usage: perf/valgrind-api-diff.sh SUITE | --root DIR}
else
   suite=${1:?usage: perf/valgrind-api-diff.sh SUITE | --root DIR}
   root=${CGBD_OTHER_VG:-${XDG_CACHE_HOME:-$HOME/.cache}/callgrind-bd/valgrind-$suite}/root
fi
old=/usr/include/valgrind
new=$root/usr/include/valgrind
oldpc=/usr/lib/x86_64-linux-gnu/pkgconfig/valgrind.pc
newpc=$root/usr/lib/x86_64-linux-gnu/pkgconfig/valgrind.pc
[ -d "$new" ] && [ -f "$newpc" ] || { echo "no unpacked Valgrind under $root" >&2; exit 1; }
version() { sed -n 's/^Version: *//p' "$1"; }
echo "== installed $(version "$oldpc") vs $(version "$newpc") ($root)"
diffs=0
report() { echo "$*"; diffs=$((diffs + 1)); }

sources=$(ls "$src"/callgrind/*.[ch])
# tool API: every VG_(name) the sources use must be declared by both
for name in $(grep -ho 'VG_([A-Za-z_0-9]*)' $sources | sort -u); do
   for dir in "$old" "$new"; do
      grep -q -F "$name" "$dir"/pub_tool_*.h ||
         report "tool API: $name, used by callgrind/, not declared in $dir"
   done
done
# VEX IR kinds: the set of statement/expression/jump kinds, both ways
# (enumerators: at the start of a line, not in comments)
kinds() { grep -o '^ *\(Ist\|Iex\|Ijk\)_[A-Za-z0-9_]*' "$1/libvex_ir.h" | tr -d ' ' | sort -u; }
while read -r k; do
   report "IR kind only in $(version "$newpc"): $k"
done < <(comm -13 <(kinds "$old") <(kinds "$new"))
while read -r k; do
   report "IR kind only in $(version "$oldpc"): $k"
done < <(comm -23 <(kinds "$old") <(kinds "$new"))
# IR operations the sources name must exist in both
for op in $(grep -ho '\bIop_[A-Za-z0-9_]*' $sources | sort -u); do
   grep -q "\b$op\b" "$new/libvex_ir.h" || report "IR operation $op, used by callgrind/, gone in the new release"
done
# client requests
requests() { sed -n '/typedef/,/Vg_CallgrindClientRequest/p' "$1/callgrind.h" | tr -s ' \t' ' '; }
[ "$(requests "$old")" = "$(requests "$new")" ] || report "callgrind.h: the client request enum differs"
# static libraries, load address, link flags
for lib in coregrind vex gcc-sup; do
   [ -f "$root/usr/lib/x86_64-linux-gnu/valgrind/lib$lib-amd64-linux.a" ] ||
      report "static library lib$lib-amd64-linux.a missing"
done
for key in valt_load_address Libs Cflags; do
   a=$(grep "^$key[:=]" "$oldpc"); b=$(grep "^$key[:=]" "$newpc")
   [ "$a" = "$b" ] || report "valgrind.pc: '$a' became '$b'"
done
echo "$diffs difference(s) that concern this tool's sources and link"
