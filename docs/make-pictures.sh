#!/usr/bin/env bash
# Regenerates the manual's pictures from the worked example:
#   docs/kcachegrind-splos1.png  KCachegrind (under Xvfb) showing the naive
#                                transpose's profile, event SpLoss1,
#                                function `process`, call graph below
#   docs/callgraph-accost1.png   tools/cg2dot.py's call graph, inclusive AcCost1
#   docs/kcachegrind-objects.png KCachegrind showing tests/clients/objects.c's
#                                objects profile (--objects=yes), SpLoss1
#   docs/kcachegrind-sharing.png KCachegrind showing examples/false-sharing.c's
#                                --sharing=yes report, the counters' line
#                                selected, its caller below
#   docs/bandwidth-naive.png     callgrind-bd_bandwidth --plot of the naive
#   docs/bandwidth-blocked.png   and the blocked Jacobi solver (1 thread)
#   docs/bandwidth-jacobi.png    and of the four runs together
#                                (examples/jacobi-bandwidth.sh; needs only
#                                matplotlib, no KCachegrind)
#   docs/paths-example.svg       callgrind-bd_paths --svg: SpLoss1 per call
#   docs/paths-python.svg        path of the example, and D1mr of python3
#                                running perf/bench/work.py 1500 (--paths=yes;
#                                needs nothing else)
# Needs (Debian): kcachegrind xvfb xdotool imagemagick graphviz dbus
# (./setup.sh --pictures installs them).  Not part of CI.
#   docs/make-pictures.sh           all four
#   docs/make-pictures.sh objects   only docs/kcachegrind-objects.png
#   docs/make-pictures.sh bandwidth only the three bandwidth pictures
#   docs/make-pictures.sh paths     only the two flame graphs
# The KCachegrind clicks are screen positions for a 1400x900 screen and
# KCachegrind 22.12's default layout; check the result by eye.
set -eu
only=${1:-all}
case "$only" in all|objects|bandwidth|paths) ;; *) echo "usage: $0 [objects|bandwidth|paths]" >&2; exit 2 ;; esac
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"

if [ "$only" = all ] || [ "$only" = paths ]; then
   mkdir -p examples/build
   gcc -g -O0 -o examples/build/cacheuse-example examples/cacheuse-example.c
   (cd examples/build && VALGRIND_LIB=$top/vglib valgrind --tool=callgrind-bd \
       --cacheuse=yes --paths=yes --callgrind-out-file=paths.out ./cacheuse-example \
       >/dev/null 2>&1)
   # from the top: frames name examples/cacheuse-example.c, as
   # callgrind_annotate run here would
   tools/callgrind-bd_paths --event=SpLoss1 --svg docs/paths-example.svg \
       --title "SpLoss1 per call path: examples/cacheuse-example.c" examples/build/paths.out
   python=$(python3 -c 'import sys; print(sys.executable)')
   (cd examples/build && VALGRIND_LIB=$top/vglib valgrind --tool=callgrind-bd \
       --cacheuse=yes --paths=yes --callgrind-out-file=paths-python.out \
       "$python" "$top/perf/bench/work.py" 1500 >/dev/null 2>&1 &&
    "$top/tools/callgrind-bd_paths" --event=D1mr --functions-only \
       --svg "$top/docs/paths-python.svg" \
       --title "D1mr per call path: python3 perf/bench/work.py 1500" paths-python.out)
   echo "wrote docs/paths-example.svg docs/paths-python.svg"
   [ "$only" = all ] || exit 0
fi

if [ "$only" = all ] || [ "$only" = bandwidth ]; then
   examples/jacobi-bandwidth.sh >/dev/null
   cp examples/build/jacobi/naive-1.png docs/bandwidth-naive.png
   cp examples/build/jacobi/blocked-1.png docs/bandwidth-blocked.png
   cp examples/build/jacobi/compare.png docs/bandwidth-jacobi.png
   echo "wrote docs/bandwidth-naive.png docs/bandwidth-blocked.png docs/bandwidth-jacobi.png"
   [ "$only" = all ] || exit 0
fi
build=examples/build
mkdir -p $build
work=$(mktemp -d)
mkdir -m 700 "$work/run"
# no tip of the day; a private configuration, the user's is not touched
printf '[TipOfDay]\nRunOnStart=false\n' > "$work/kcachegrindrc"
export DISPLAY=:${XDISPLAY:-77}
Xvfb "$DISPLAY" -screen 0 1400x900x24 >/dev/null 2>&1 &
xvfb=$!
# stopping KCachegrind itself lets dbus-run-session stop its bus
trap 'kill $app 2>/dev/null; sleep 1; kill $kc $xvfb 2>/dev/null; rm -rf "$work"' EXIT
kc= app=
sleep 2

if [ "$only" = all ]; then
gcc -g -O1 -o $build/transpose examples/transpose.c
(cd $build && VALGRIND_LIB=$top/vglib valgrind -q --tool=callgrind-bd \
    --cache-sim=yes --cacheuse=yes \
    --I1=32768,8,64 --D1=32768,8,64 --LL=8388608,16,64 \
    --callgrind-out-file=callgrind.out.naive ./transpose naive)

python3 tools/cg2dot.py --event=AcCost1 --threshold=0.5 \
    $build/callgrind.out.naive | dot -Tpng -Gdpi=72 > docs/callgraph-accost1.png

XDG_CONFIG_HOME=$work XDG_RUNTIME_DIR=$work/run \
    dbus-run-session -- kcachegrind $build/callgrind.out.naive >/dev/null 2>&1 &
kc=$!
sleep 10
win=$(xdotool search --class kcachegrind | head -1)
app=$(xdotool getwindowpid "$win")
xdotool windowsize "$win" 1400 900; sleep 2
xdotool mousemove 877 38 click 1; sleep 1      # event type box
xdotool mousemove 763 289 click 1; sleep 2     # SpLoss1
xdotool mousemove 521 856 click 1; sleep 2     # bottom tab: Call Graph
xdotool mousemove 256 214 click 1; sleep 1     # function: process
xdotool mousemove 375 99 click 1; sleep 1      # top tab: Types
xdotool mousemove 870 477 mousedown 1 mousemove 870 400 \
    mousemove 870 372 mouseup 1; sleep 2       # more room for the graph
import -window root docs/kcachegrind-splos1.png
kill $app 2>/dev/null; sleep 2
fi

# The data-objects picture: tests/clients/objects.c's objects profile,
# event SpLoss1, the streamed heap array selected, call graph below.
gcc -g -O0 -o $build/objects tests/clients/objects.c
(cd $build && VALGRIND_LIB=$top/vglib valgrind -q --tool=callgrind-bd \
    --cacheuse=yes --objects=yes \
    --I1=32768,8,64 --D1=32768,8,64 --LL=8388608,16,64 \
    --callgrind-out-file=callgrind.out.objects ./objects >/dev/null)
XDG_CONFIG_HOME=$work XDG_RUNTIME_DIR=$work/run \
    dbus-run-session -- kcachegrind $build/callgrind.out.objects.objects >/dev/null 2>&1 &
kc=$!
sleep 10
win=$(xdotool search --class kcachegrind | head -1)
app=$(xdotool getwindowpid "$win")
xdotool windowsize "$win" 1400 900; sleep 2
xdotool mousemove 128 90 click 1; sleep 1      # search box
xdotool type "objects.c:76"; sleep 1           # the streamed array's site
xdotool mousemove 150 139 click 1; sleep 1     # select it
xdotool mousemove 877 38 click 1; sleep 1      # event type box
xdotool mousemove 763 214 click 1; sleep 1     # SpLoss1
xdotool mousemove 211 89 click 1; sleep 1      # clear the search
xdotool mousemove 521 856 click 1; sleep 2     # bottom tab: Call Graph
import -window root docs/kcachegrind-objects.png
echo "wrote docs/kcachegrind-objects.png"
[ "$only" = all ] || exit 0

# The false sharing picture: examples/false-sharing.c's --sharing=yes
# report (event FSe), the top line (the counters) selected, call graph.
gcc -g -O1 -pthread -o $build/false-sharing examples/false-sharing.c
(cd $build && VALGRIND_LIB=$top/vglib valgrind -q --tool=callgrind-bd \
    --sharing=yes --callgrind-out-file=callgrind.out.fs ./false-sharing >/dev/null 2>&1)
kill $app 2>/dev/null; sleep 2
(cd $build && XDG_CONFIG_HOME=$work XDG_RUNTIME_DIR=$work/run \
    dbus-run-session -- kcachegrind callgrind.out.fs.sharing >/dev/null 2>&1) &
kc=$!
sleep 15
win=$(xdotool search --class kcachegrind | head -1)
app=$(xdotool getwindowpid "$win")
xdotool windowsize "$win" 1400 900; sleep 3
xdotool mousemove 150 138 click 1; sleep 2      # the top line: the counters
xdotool mousemove 521 856 click 1; sleep 3      # bottom tab: Call Graph
import -window root docs/kcachegrind-sharing.png
echo "wrote docs/kcachegrind-splos1.png docs/callgraph-accost1.png docs/kcachegrind-sharing.png"
