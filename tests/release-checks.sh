#!/usr/bin/env bash
# Release checks (CI runs them after the suite):
#
#   dist/distcheck   make distcheck: the tarball configures, builds, passes
#                    a part of the suite (the whole with
#                    RELEASE_CHECK_PATTERN=""), installs and uninstalls
#                    out of tree
#   dist/...         tests/dist-files.sh on that tarball: every file git
#                    tracks is in it, nothing a build left is
#   deb/...          the Debian package built from the tarball with
#                    dpkg-buildpackage -us -uc -b: its name, its exact
#                    valgrind dependency, lintian without errors; installed,
#                    the bundled example profiled with the installed tool
#                    (no VALGRIND_LIB), the controller run; purged, and
#                    nothing of it left on the system
#   valgrind/SUITE   with OTHER_VALGRIND="trixie sid" (CI sets it): the
#                    suite's scripts that touch Valgrind's interfaces
#                    (OTHER_VALGRIND_PATTERN, "" for the whole suite;
#                    tests/README.md says how they were chosen) against
#                    those Valgrind releases (perf/other-valgrind.sh)
#
# RELEASE_DIST=dist makes the tarball without distcheck's build and suite.
# Needs a configured, built tree (./setup.sh --build) and root or sudo
# (installs debhelper and lintian if missing; dpkg -i / --purge).
# Prints PASS/FAIL lines and `N passed, N failed`.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO=sudo
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
results=$scratch/results
: > "$results"
say() { echo "== $*"; }
pass() { echo "PASS $1" | tee -a "$results"; }
fail() { echo "FAIL $1: $2" | tee -a "$results"; }
# check NAME COMMAND...: PASS if it succeeds, else FAIL with its output's end
check() {
   local name=$1; shift
   if "$@" > "$scratch/out" 2>&1; then
      pass "$name"
   else
      # the failed tests of a suite run inside it, then the end of its output
      grep '^FAIL ' "$scratch/out" | cut -c1-300 | sed 's/^/    /'
      tail -n 20 "$scratch/out" | sed 's/^/    /'
      fail "$name" "$* failed"
      return 1
   fi
}
finish() {
   local p f
   p=$(grep -c '^PASS ' "$results"); f=$(grep -c '^FAIL ' "$results")
   echo "$p passed, $f failed"
   [ "$f" -eq 0 ]
   exit
}

version=$(sed -n 's/^PACKAGE_VERSION = //p' Makefile 2>/dev/null)
[ -n "$version" ] || { fail release "no configured tree in $top (./setup.sh --build)"; finish; }

# -- the tarball ------------------------------------------------------------
# RELEASE_DIST=dist: only make the tarball (a quicker check of the rest)
dist_target=${RELEASE_DIST:-distcheck}
say "make $dist_target"
tarball=$top/callgrind-bd-$version.tar.gz
rm -f "$tarball"
# Inside distcheck a part of the suite (RELEASE_CHECK_PATTERN; "" for the
# whole): the whole suite ran on this tree just before, what distcheck adds
# is the out-of-tree build, install and uninstall of the tarball.
pattern=${RELEASE_CHECK_PATTERN-'unit/|install|layering|tool/dist|compare_default|backdate_oracle'}
if check "dist/$dist_target" nice make -s "$dist_target" CHECK_PATTERN="$pattern"; then
   bash tests/dist-files.sh "$tarball" | tee -a "$results"
fi
[ -f "$tarball" ] || finish

# -- the Debian package -------------------------------------------------------
need="debhelper dh-autoreconf lintian dpkg-dev"
missing=""
for p in $need; do dpkg -s "$p" >/dev/null 2>&1 || missing="$missing $p"; done
if [ -n "$missing" ]; then
   say "installing:$missing"
   $SUDO apt-get update -qq
   DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq $missing >/dev/null
fi
say "dpkg-buildpackage from the tarball"
tar -C "$scratch" -xzf "$tarball"
src=$scratch/callgrind-bd-$version
deb=$scratch/callgrind-bd_${version}_amd64.deb
# the suite ran just before (and inside distcheck): not a third time
(cd "$src" && DEB_BUILD_OPTIONS=nocheck nice dpkg-buildpackage -us -uc -b) \
   > "$scratch/build.log" 2>&1
if [ -f "$deb" ]; then
   pass deb/build
else
   tail -n 20 "$scratch/build.log" | sed 's/^/    /'
   fail deb/build "no $(basename "$deb")"
   finish
fi
vg_version=$(dpkg-query -W -f='${Version}' valgrind)
depends=$(dpkg-deb -f "$deb" Depends)
if grep -q "valgrind (= $vg_version)" <<<"$depends" &&
   dpkg-deb -f "$deb" Description | grep -q "valgrind $vg_version"; then
   pass deb/exact-valgrind
else
   fail deb/exact-valgrind "Depends '$depends' / Description do not name valgrind $vg_version"
fi
lintian "$scratch"/callgrind-bd_"${version}"_amd64.changes > "$scratch/lintian" 2>&1
if grep -q '^E: ' "$scratch/lintian"; then
   grep '^E: ' "$scratch/lintian" | sed 's/^/    /'
   fail deb/lintian "lintian reports errors"
else
   pass deb/lintian
fi

say "installing the package"
dpkg -s callgrind-bd >/dev/null 2>&1 && $SUDO dpkg --purge callgrind-bd >/dev/null
dpkg-deb -c "$deb" | awk '$1 !~ /^d/ { sub(/^\./, "", $6); print $6 }' > "$scratch/files"
check deb/install $SUDO dpkg -i "$deb"
tool=$(grep -- '-amd64-linux$' "$scratch/files")
example=$scratch/example
gcc -g -O0 -o "$example" examples/cacheuse-example.c
profile=$scratch/callgrind.out.example
(cd "$scratch" && env -u VALGRIND_LIB valgrind --tool=callgrind-bd --cache-sim=yes \
   --cacheuse=yes --callgrind-out-file="$profile" "$example") > "$scratch/run.log" 2>&1
annotated=$(callgrind_annotate --inclusive=yes --sort=SpLoss1 "$profile" 2>/dev/null)
# the example's claim (README): sorted by inclusive SpLoss1, the example's
# first function after main is on the streaming chain (the reference
# Callgrind, with 0 inclusive SpLoss1 on call arcs, puts init_arrays there)
first=$(sed -n '/file:function/,/^-- /p' <<<"$annotated" |
   grep -o 'cacheuse-example\.c:[A-Za-z_0-9]*' | grep -v ':main$' | head -n 1)
if grep -q "^creator: callgrind-bd" "$profile" 2>/dev/null && grep -q ':stream_' <<<"$first"; then
   pass deb/example
else
   sed 's/^/    /' "$scratch/run.log" | tail -n 10
   fail deb/example "the installed tool's profile of the example: first function '$first'"
fi
check deb/controller /usr/bin/callgrind-bd_control --version
check deb/bandwidth-machine grep -q '^clock: 2.7e9' /usr/share/callgrind-bd/machines/ivybridge-thesis.machine
check deb/bandwidth /usr/bin/callgrind-bd_bandwidth --version
check deb/paths /usr/bin/callgrind-bd_paths --version

say "removing the package"
check deb/purge $SUDO dpkg --purge callgrind-bd
left=""
while read -r f; do [ -e "$f" ] && left="$left $f"; done < "$scratch/files"
[ -d /usr/share/doc/callgrind-bd ] && left="$left /usr/share/doc/callgrind-bd"
if [ -z "$left" ] && ! dpkg -s callgrind-bd >/dev/null 2>&1 && [ -n "$tool" ]; then
   pass deb/nothing-left
else
   fail deb/nothing-left "left after purge:$left"
fi

# -- other Valgrind releases -----------------------------------------------------
# What can change with the release: the core's side of the tool interface
# (VEX IR, options, client requests, the gdbserver monitor, thread,
# signal, fork and exec events, malloc replacement, guest registers, the
# tool directory) and the reference Callgrind the output is compared
# with. Not: the native unit tests, our cache models on more geometries
# and modes, the Python tools. The list and why each script is in or out:
# tests/README.md, "Against other Valgrind releases".
vg_scripts="compare_default cache_compare options_compare options_errors
   cmd_line users_view clreq collect_off zero_backdate control threads segv
   faults thread_faults exec loop_entry backdate_oracle defer_sim real_programs objects
   objects_dumps sharing separate_par memory_limit bandwidth missclass
   mpi_rank_env install"
vg_pattern="tool/($(echo $vg_scripts | tr ' ' '|'))\.(py|sh)\$"
vg_pattern=${OTHER_VALGRIND_PATTERN-$vg_pattern}
# of cache_compare.py's option sets, those where the release's IR (data
# accesses, branches) meets its reference's models
export CACHE_COMPARE_SETS=${CACHE_COMPARE_SETS-"cache branch"}
for suite in ${OTHER_VALGRIND:-}; do
   say "the suite's Valgrind-facing scripts against valgrind from $suite"
   CGBD_OTHER_VG=$scratch/valgrind-$suite nice perf/other-valgrind.sh "$suite" \
      "$vg_pattern" > "$scratch/other.log" 2>&1
   grep '^FAIL ' "$scratch/other.log"
   last=$(tail -n 1 "$scratch/other.log")
   if grep -q -E '^valgrind .*: [1-9][0-9]* passed, 0 failed$' <<<"$last"; then
      pass "valgrind/$suite ($last)"
   else
      tail -n 15 "$scratch/other.log" | sed 's/^/    /'
      fail "valgrind/$suite" "$last"
   fi
done
finish
