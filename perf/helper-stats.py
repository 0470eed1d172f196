#!/usr/bin/env python3
"""Simulation helper calls per 1000 guest instructions, before and after
the deferred simulation, and L1 MRU hit shares, per perf/ benchmark
(issue 21's measurements).

The counters exist only in a statistics build of the tool, so that they
cost nothing otherwise:

    make clean && make CPPFLAGS=-DCB_SIM_STATS=1    # or a copy of the tree
    perf/helper-stats.py --vglib DIR_OF_THAT_BUILD [--size medium]
    make clean && make                                # the normal build again

Each benchmark runs with -v under --cache-sim=yes --cacheuse=yes, with
--defer-sim=no and =yes; the tool's "Sim helpers:" line gives the guest
instructions, the helper calls made from the generated code (=no: the
simulation helpers; =yes: only replay_part, for blocks with more data
accesses than the replay buffer holds), the replays from C (block runs,
or parts of them) with the simulation calls they made, and of the I1
lookups and D1 accesses simulated how many were MRU hits.  The calls
replayed with =yes should equal the calls made with =no (the same
simulation), up to the few by which the loader's start varies between
runs; the last column gives the difference.  Prints a
markdown table.
"""
import argparse
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import run as perf  # noqa: E402

LINE = re.compile(r"Sim helpers: +instrs (\d+), calls (\d+) .*replays (\d+) \(.*, (\d+) calls\); "
                  r".*I1 lookups (\d+) \(MRU hits (\d+)\), D1 accesses (\d+) \(MRU hits (\d+)\)")


def stats(vglib, opts, argv):
    env = dict(os.environ, VALGRIND_LIB=os.path.abspath(vglib), PERL_HASH_SEED="0", PYTHONHASHSEED="0")
    out = os.path.join(perf.BUILD, "helper-stats.cg")
    r = subprocess.run(["valgrind", "-v", "--tool=callgrind-bd"] + opts + perf.CACHES +
                       ["--callgrind-out-file=" + out] + argv,
                       env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    m = LINE.search(r.stderr)
    if not m:
        sys.exit("helper-stats: no 'Sim helpers:' line (not a CB_SIM_STATS build?): " + " ".join(argv))
    return [int(x) for x in m.groups()]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--vglib", required=True, help="VALGRIND_LIB of a CB_SIM_STATS build")
    ap.add_argument("--size", default="medium", choices=["full", "medium", "quick"])
    ap.add_argument("--only", help="regular expression: only matching benchmarks")
    ap.add_argument("--opts", default="--cache-sim=yes --cacheuse=yes")
    args = ap.parse_args()
    perf.build_benchmarks()
    perf.make_data()
    print("| benchmark | instrs | I1 lookups MRU hit | D1 accesses MRU hit "
          "| sim calls/1000 instrs (--defer-sim=no) | helper calls/1000 instrs (--defer-sim=yes) "
          "| replays/1000 instrs (--defer-sim=yes) | calls replayed - calls made |")
    print("|---|---|---|---|---|---|---|---|")
    for name, sizes in perf.BENCHMARKS:
        if args.only and not re.search(args.only, name):
            continue
        argv = perf.bench_argv(sizes[args.size])
        n, calls, _, _, i1, i1_mru, d1, d1_mru = stats(args.vglib, args.opts.split() + ["--defer-sim=no"], argv)
        n2, calls2, replays2, replayed2 = stats(args.vglib, args.opts.split() + ["--defer-sim=yes"], argv)[:4]
        print("| %s | %d | %.1f%% | %.1f%% | %.1f | %.2f | %.1f | %d |" % (
            name, n, 100.0 * i1_mru / max(i1, 1), 100.0 * d1_mru / max(d1, 1),
            1000.0 * calls / max(n, 1), 1000.0 * calls2 / max(n2, 1),
            1000.0 * replays2 / max(n2, 1), replayed2 - calls), flush=True)


if __name__ == "__main__":
    main()
