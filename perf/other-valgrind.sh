#!/usr/bin/env bash
# Build callgrind-bd against another Valgrind release than the installed
# one and run its test suite there.
#
#   perf/other-valgrind.sh SUITE [TEST-PATTERN]
#
# SUITE is a Debian suite whose `valgrind` package is wanted (trixie:
# 3.24; sid: the newest Debian has). The package is fetched with a
# private apt configuration (its own sources list, lists and cache under
# the work directory; the system's apt is untouched), using the mirror
# the system's own sources name, and unpacked with dpkg-deb -x; nothing is
# installed. Its valgrind.bin, tools, headers and static libraries run on
# Debian 12; its vgdb needs a newer glibc, so Debian 12's /usr/bin/vgdb is
# used instead.
#
# The tree's files (git-tracked and untracked-but-not-ignored) are copied
# to the work directory and built there against the unpacked release
# (a copy of its valgrind.pc pointing at the unpacked tree, which
# configure follows to the tool directory; its bin directory first on
# PATH; VALGRIND_LIB its tool directory); then tests/run [TEST-PATTERN]
# runs. The last line is
#   valgrind <version> (<suite>): N passed, N failed
# and the log is kept in the work directory.
#
# Environment: CGBD_OTHER_VG  work directory
#   (default ${XDG_CACHE_HOME:-~/.cache}/callgrind-bd/valgrind-SUITE);
#   the package is downloaded once and reused; the build is redone.
# About 1 minute to build and the suite's time (a few minutes) on 2 cores.
set -eu
suite=${1:?usage: perf/other-valgrind.sh SUITE [TEST-PATTERN]}
pattern=${2:-}
src=$(cd "$(dirname "$0")/.." && pwd)
work=${CGBD_OTHER_VG:-${XDG_CACHE_HOME:-$HOME/.cache}/callgrind-bd/valgrind-$suite}
mkdir -p "$work"
work=$(cd "$work" && pwd)
say() { echo "== $*"; }

# The system's Debian mirror: the first URI of a source that carries the
# main archive (not -security, not third-party repositories).
system_mirror() {
   local f
   for f in /etc/apt/sources.list.d/*.sources; do
      [ -f "$f" ] || continue
      awk '/^URIs:/ { for (i = 2; i <= NF; i++) print $i }' "$f"
   done
   cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null |
      awk '$1 == "deb" { for (i = 2; i <= NF; i++) if ($i ~ /:\/\//) { print $i; break } }'
}
mirror=$(system_mirror | grep -v -- '-security' | grep '/debian/\?$' | head -n 1)
[ -n "$mirror" ] || { echo "other-valgrind: no Debian mirror in the system's apt sources" >&2; exit 1; }

# -- fetch and unpack the release -----------------------------------------
apt_dir=$work/apt
root=$work/root
if ! ls "$work"/valgrind_*.deb >/dev/null 2>&1; then
   say "fetching valgrind from $suite"
   mkdir -p "$apt_dir/lists/partial" "$apt_dir/cache/archives/partial" "$apt_dir/parts"
   echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $mirror $suite main" \
      > "$apt_dir/sources.list"
   apt_opts=(-o "Dir::Etc::SourceList=$apt_dir/sources.list"
             -o "Dir::Etc::SourceParts=$apt_dir/parts"
             -o "Dir::State::Lists=$apt_dir/lists"
             -o "Dir::Cache=$apt_dir/cache"
             -o "APT::Get::List-Cleanup=0"
             -o "APT::Sandbox::User=root")
   apt-get -qq "${apt_opts[@]}" update
   (cd "$work" && apt-get -qq "${apt_opts[@]}" download valgrind)
fi
deb=$(ls "$work"/valgrind_*.deb | head -n 1)
version=$(dpkg-deb -f "$deb" Version)
if [ ! -x "$root/usr/bin/valgrind.bin" ]; then
   rm -rf "$root"
   dpkg-deb -x "$deb" "$root"
fi
say "valgrind $version from $suite, unpacked in $root"

# pkg-config file and PATH pointing at the unpacked tree
pcdir=$work/pkgconfig
mkdir -p "$pcdir"
sed "s|^prefix=.*|prefix=$root/usr|" \
   "$root/usr/lib/x86_64-linux-gnu/pkgconfig/valgrind.pc" > "$pcdir/valgrind.pc"
bindir=$work/bin
rm -rf "$bindir"
mkdir -p "$bindir"
for f in "$root"/usr/bin/*; do
   ln -s "$f" "$bindir/${f##*/}"
done
# Debian 12's vgdb: the release's own needs a newer glibc
ln -sf /usr/bin/vgdb "$bindir/vgdb"
tooldir=$root/usr/libexec/valgrind

# -- copy the tree and build it ---------------------------------------------
tree=$work/src
rm -rf "$tree"
mkdir -p "$tree"
if [ "$(git -C "$src" rev-parse --show-toplevel 2>/dev/null)" = "$src" ]; then
   (cd "$src" && git ls-files -co --exclude-standard -z |
      xargs -0 -I{} sh -c 'test -e "{}" && printf "%s\0" "{}"' |
      tar --null -T - -cf -) | tar -C "$tree" -xf -
else
   (cd "$src" && tar --exclude=./tests/build -cf - .) | tar -C "$tree" -xf -
   (cd "$tree" && { [ ! -f Makefile ] || make -s distclean; })
fi
say "building in $tree"
export PATH=$bindir:$PATH
export PKG_CONFIG_PATH=$pcdir
# valgrind.bin looks for its tools where the package put them
# (/usr/libexec/valgrind, the system's 3.19) unless told otherwise; the
# tests set their own VALGRIND_LIB (vglib/, links into $tooldir)
export VALGRIND_LIB=$tooldir
(cd "$tree" && autoreconf -i >/dev/null 2>&1 &&
   ./configure -q &&
   make -s -j"$(nproc)" >/dev/null) ||
   { echo "valgrind $version ($suite): build failed"; exit 1; }
upstream=${version#*:}
upstream=${upstream%%-*}
# configure found the release's headers, libraries and tool directory
grep -q "^VG_VERSION = $upstream\$" "$tree/Makefile" ||
   { echo "other-valgrind: configure did not take valgrind $version" >&2; exit 1; }
grep -q "^VG_TOOLDIR = $tooldir\$" "$tree/Makefile" ||
   { echo "other-valgrind: configure did not find the tool directory $tooldir" >&2; exit 1; }

# -- the suite ----------------------------------------------------------------
log=$work/tests.log
say "tests/run $pattern (log: $log)"
set +e
"$tree/tests/run" $pattern > "$log" 2>&1
set -e
grep -v '^PASS ' "$log" | tail -n 40
echo "valgrind $version ($suite): $(tail -n 1 "$log")"
