#!/usr/bin/env python3
"""Byte-for-byte comparison of profiles: two builds (or two settings of one
build) on every perf/ benchmark.

    perf/identical.py --old-vglib DIR          # an older build against this one
    perf/identical.py --a-opts=--defer-sim=no  # this build, two settings

Each benchmark runs under side A (the --old-vglib build, or this build
with --a-opts) and side B (this build with --b-opts), with --cache-sim=yes
and with --cache-sim=yes --cacheuse=yes (--configs), --runs times each.
Profiles are compared line by line after dropping the "pid:" line.

What legitimately varies between two runs of the same build, checked
first: the client's own start (ld.so) differs from run to run by a few
instructions and, with --cacheuse, by a few AcCost units (it reads random
bytes from the kernel), and that reaches every inclusive cost above it.
So a line counts as VARYING when its runs on one side disagree, and as a
MISMATCH only when it is stable on both sides and the sides disagree, or
when it appears on one side only.  A program whose profiles differ in
length between runs of one side is reported as not deterministic
(threads3: its threads' interleaving); perl and python3 run with fixed
hash seeds. Both sides get output files of the same
name length, and VALGRIND_LIB (the client sees it) must be as long on
both sides: give --old-vglib and --vglib paths of the same length (a
directory of links like vglib/, e.g. /tmp/vgA/vglib and /tmp/vgB/vglib);
the script refuses paths of different lengths. Its bytes count too: with
/tmp/vg-old and /tmp/vg-new the loader's strcspn moved one AcCost1 unit
between two of its instructions, the same in every run, with the very
same tool binary on both sides; names that differ in one letter did not.

The back-dating tree's statistics (the `desc: Backdate:` lines: nodes
built, pruned, live) count the tool's work, not costs: a change in when
nodes are built (e.g. none for an access that hits) changes them and
nothing else. They are counted apart ("tree stats": lines that differ)
and are no mismatch.

Exit status 1 when any benchmark has a mismatch.  Uses the benchmark
programs and data of perf/run.py (built on the first use).
"""
import argparse
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import run as perf  # noqa: E402  (perf/run.py: benchmarks, caches, builds)

CONFIGS = {"sim": ["--cache-sim=yes"], "use": ["--cache-sim=yes", "--cacheuse=yes"]}


def profile_lines(path):
    with open(path, errors="replace") as f:
        return [l for l in f.read().split("\n") if not l.startswith("pid:")]


def run_side(side, vglib, opts, argv, out, timeout):
    env = dict(os.environ)
    env["VALGRIND_LIB"] = os.path.abspath(vglib)
    # perl and python3 randomise their hashes per run unless told not to
    env["PERL_HASH_SEED"] = "0"
    env["PYTHONHASHSEED"] = "0"
    cmd = ["valgrind", "--tool=callgrind-bd"] + opts + perf.CACHES + \
          ["--callgrind-out-file=" + out] + argv
    r = subprocess.run(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                       text=True, timeout=timeout)
    if r.returncode != 0:
        sys.exit("identical: side %s failed (%d): %s\n%s" % (side, r.returncode, " ".join(cmd),
                                                           r.stderr[-2000:]))
    return profile_lines(out)


TREE_STATS = "desc: Backdate:"


def compare(a_runs, b_runs):
    """(lines, varying, tree stats, mismatches, first mismatch) of two
    sides' runs; mismatches None when the runs of one side differ in
    length (the program itself is not deterministic: threads3's
    scheduling)."""
    if len({len(r) for r in a_runs}) != 1 or len({len(r) for r in b_runs}) != 1:
        return max(len(r) for r in a_runs + b_runs), 0, 0, None, "runs of one side differ in length"
    if len({len(r) for r in a_runs + b_runs}) != 1:
        n = max(len(r) for r in a_runs + b_runs)
        return n, 0, 0, n, "line counts differ: %s" % [len(r) for r in a_runs + b_runs]
    varying = tree_stats = mismatches = 0
    first = None
    for i in range(len(a_runs[0])):
        a = {r[i] for r in a_runs}
        b = {r[i] for r in b_runs}
        if len(a) > 1 or len(b) > 1:
            varying += 1
        elif a != b and a_runs[0][i].startswith(TREE_STATS) \
                and b_runs[0][i].startswith(TREE_STATS):
            tree_stats += 1
        elif a != b:
            mismatches += 1
            if first is None:
                first = "line %d: A %r, B %r" % (i + 1, a.pop(), b.pop())
    return len(a_runs[0]), varying, tree_stats, mismatches, first


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--old-vglib", metavar="DIR", help="side A: an older build (VALGRIND_LIB)")
    ap.add_argument("--vglib", default=os.path.join(perf.ROOT, "vglib"), help="side B's build")
    ap.add_argument("--a-opts", default="", help="extra options of side A (space-separated)")
    ap.add_argument("--b-opts", default="", help="extra options of side B (space-separated)")
    ap.add_argument("--size", default="quick", choices=["full", "medium", "quick"])
    ap.add_argument("--runs", type=int, default=2, help="runs per side (default 2)")
    ap.add_argument("--only", help="regular expression: only matching benchmarks")
    ap.add_argument("--configs", default="sim,use", help="of: " + ",".join(CONFIGS))
    ap.add_argument("--timeout", type=int, default=900)
    args = ap.parse_args()
    import re
    perf.build_benchmarks()
    perf.make_data()
    a_vglib = args.old_vglib or args.vglib
    if len(os.path.abspath(a_vglib)) != len(os.path.abspath(args.vglib)):
        sys.exit("identical: --old-vglib and --vglib must be paths of the same length "
                 "(the client's environment holds VALGRIND_LIB)")
    out = os.path.join(perf.BUILD, "identical")
    for side in "AB":
        os.makedirs(os.path.join(out, side), exist_ok=True)
    bad = 0
    print("| benchmark | config | lines | varying | tree stats | mismatches |")
    print("|---|---|---|---|---|---|")
    for name, sizes in perf.BENCHMARKS:
        if args.only and not re.search(args.only, name):
            continue
        argv = perf.bench_argv(sizes[args.size])
        for cfg in args.configs.split(","):
            runs = {"A": [], "B": []}
            for k in range(args.runs):
                for side, vglib, extra in (("A", a_vglib, args.a_opts), ("B", args.vglib, args.b_opts)):
                    path = os.path.join(out, side, "%s.%s.cg" % (name, cfg))
                    runs[side].append(run_side(side, vglib, CONFIGS[cfg] + extra.split(),
                                               argv, path, args.timeout))
            lines, varying, tree_stats, mism, first = compare(runs["A"], runs["B"])
            print("| %s | %s | %d | %d | %d | %s |" % (name, cfg, lines, varying, tree_stats,
                                                       "not deterministic" if mism is None else mism),
                  flush=True)
            if mism:
                bad += 1
                print("    first mismatch: %s" % first, flush=True)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
