#!/usr/bin/env bash
# The release tarball holds exactly what it should: every file git tracks
# (except the repository's own plumbing: the top .gitignore and CI's .ci/),
# the files autotools generate for a build without autotools (configure,
# Makefile.in, aclocal.m4, bd_config.h.in, build-aux/, m4/), and nothing
# else (no object, binary, profile or cache left by a build or a test run).
#
#   tests/dist-files.sh TARBALL   check that tarball (CI: the one `make
#                                 distcheck` made from the built tree)
#   tests/dist-files.sh           make one with `make dist` from a clean
#                                 copy of the tree's files and check it
#
# Needs a git checkout (it compares with `git ls-files`). Prints
# PASS/FAIL lines as the tool tests do.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
name=dist
fail() { echo "FAIL $name: $*"; exit 1; }

# (an unpacked tarball inside a checkout, as make distcheck's, is not one)
if [ "$(git -C "$top" rev-parse --show-toplevel 2>/dev/null)" != "$top" ]; then
   echo "SKIP $name: not a git checkout (nothing to compare the tarball with)"
   exit 0
fi
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

# the files that should be there: tracked, plus new ones not yet added
# (untracked and not ignored), as they are in the working tree
# (as they are in the working tree; a tracked link to a directory is in
# the tarball as a copy of that directory: `make dist` dereferences links)
(cd "$top" && git ls-files -co --exclude-standard) |
   while read -r f; do
      if [ -L "$top/$f" ] && [ -d "$top/$f" ]; then
         (cd "$top" && find -L "$f" -type f ! -path '*/__pycache__/*')
      elif [ -e "$top/$f" ]; then
         echo "$f"
      fi
   done |
   grep -v -e '^\.ci/' -e '^\.gitignore$' | sort > "$scratch/want"

tarball=${1:-}
if [ -z "$tarball" ]; then
   name=dist/clean-copy
   copy=$scratch/copy
   mkdir "$copy"
   (cd "$top" && tar -cf - -T "$scratch/want") | tar -C "$copy" -xf -
   (cd "$copy" && autoreconf -i && ./configure -q && make -s dist) \
      > "$scratch/log" 2>&1 || { tail -n 15 "$scratch/log"; fail "make dist failed in a clean copy"; }
   tarball=$(ls "$copy"/callgrind-bd-*.tar.gz | head -n 1)
fi
[ -f "$tarball" ] || fail "no tarball $tarball"

tar -tzf "$tarball" | sed -e 's|^[^/]*/||' -e '/\/$/d' -e '/^$/d' | sort > "$scratch/have"
missing=$(comm -23 "$scratch/want" "$scratch/have")
[ -z "$missing" ] || fail "tracked files missing from $(basename "$tarball"): $(echo $missing)"
echo "PASS $name/complete"

generated='^(configure|Makefile\.in|aclocal\.m4|bd_config\.h\.in|build-aux/[^/]+|m4/[^/]+)$'
extra=$(comm -13 "$scratch/want" "$scratch/have" | grep -v -E "$generated")
[ -z "$extra" ] || fail "files in $(basename "$tarball") that git does not track: $(echo $extra)"
echo "PASS $name/nothing-else"
