#!/usr/bin/env python3
"""Merge time and memory of callgrind-bd_merge against the number of files.

    perf/merge.py                 # 10, 30, 100, 300, 1000 files
    perf/merge.py --quick         # 10 and 100 files
    perf/merge.py --files 10,1000 --functions 50 --stats sum --mpi 2

Synthetic profiles of one program stand for the ranks of an MPI run: the
same FUNCTIONS functions (in 4 objects and 20 source files), each with 20
cost lines and 3 call sites, events Ir Dr Dw AcCost1 SpLoss1, costs drawn
per file from a seeded generator (so every file differs, and one rank in
ten carries twice the work). 200 functions (the default) make a file of
about 6 700 lines (~140 KB), 50 functions about 1 700 lines (34 KB).

For each number of files N: CPU time (user + system) and wall time of the
serial merge (--stat=sum and --stat=imbalance) and, with --mpi K, of
`mpirun -np K callgrind-bd_merge` (the reduction tree), and the merge's
peak resident memory (the largest ru_maxrss of its processes). Prints a
markdown table; timings are never asserted by the tests. Files go to
perf/build/merge/ (reused between runs of the same shape)."""

import argparse
import os
import random
import resource
import subprocess
import sys
import time

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MERGE = os.path.join(TOP, "tools", "callgrind-bd_merge")
EVENTS = ["Ir", "Dr", "Dw", "AcCost1", "SpLoss1"]


def write_profile(path, rank, functions, seed):
    rng = random.Random(seed * 100003 + rank)
    heavy = 2 if rank % 10 == 9 else 1
    lines = ["# callgrind format", "version: 1", "creator: perf/merge.py",
             "pid: %d" % (1000 + rank), "cmd: ./app", "part: 1", "",
             "desc: MPI rank: %d (OMPI_COMM_WORLD_RANK)" % rank, "",
             "positions: line", "events: " + " ".join(EVENTS)]
    body, total = [], [0] * len(EVENTS)
    for f in range(functions):
        body.append("ob=(%d)%s" % (f % 4 + 1, " /lib/obj%d.so" % (f % 4)
                                    if f < 4 else ""))
        body.append("fl=(%d)%s" % (f % 20 + 1, " src%d.c" % (f % 20)
                                    if f < 20 else ""))
        body.append("fn=(%d) function_%d" % (f + 1, f))
        for line in range(20):
            cost = [rng.randrange(1, 1000) * heavy for _ in EVENTS]
            total = [a + b for a, b in zip(total, cost)]
            body.append("%d %s" % (100 + 3 * line, " ".join(map(str, cost))))
        for call in range(3):
            callee = (f + call + 1) % functions
            body.append("cfn=(%d)" % (callee + 1) if callee < f
                        else "cfn=(%d) function_%d" % (callee + 1, callee))
            body.append("calls=%d %d" % (rng.randrange(1, 50), 100))
            body.append("%d %s" % (101 + 3 * call, " ".join(
                str(rng.randrange(1, 5000)) for _ in EVENTS)))
        body.append("")
    lines.append("summary: " + " ".join(map(str, total)))
    lines += [""] + body + ["totals: " + " ".join(map(str, total))]
    with open(path, "w") as fh:
        fh.write("\n".join(lines) + "\n")


def make_files(n, functions):
    d = os.path.join(TOP, "perf", "build", "merge", "f%d" % functions)
    os.makedirs(d, exist_ok=True)
    paths = [os.path.join(d, "cg.%d" % r) for r in range(n)]
    for r, p in enumerate(paths):
        if not os.path.exists(p):
            write_profile(p, r, functions, 1)
    return paths


def measure(cmd):
    """(cpu seconds, wall seconds, peak MB) of cmd and its children."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    # a fresh Python per measurement, so that ru_maxrss is this merge's
    probe = ("import resource, subprocess, sys; "
             "r = subprocess.run(sys.argv[1:]).returncode; "
             "u = resource.getrusage(resource.RUSAGE_CHILDREN); "
             "print(u.ru_maxrss); sys.exit(r)")
    p = subprocess.run([sys.executable, "-c", probe] + cmd,
                       capture_output=True, text=True)
    wall = time.perf_counter() - t0
    if p.returncode != 0:
        sys.exit("failed: %s\n%s" % (" ".join(cmd[:6]), p.stderr))
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return cpu, wall, int(p.stdout.split()[-1]) / 1024.0


def mpirun(k):
    cmd = ["mpirun", "--oversubscribe", "-np", str(k)]
    if os.geteuid() == 0:
        cmd.insert(1, "--allow-run-as-root")
    return cmd


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--files", default="10,30,100,300,1000")
    ap.add_argument("--functions", type=int, default=200)
    ap.add_argument("--stats", default="sum,imbalance",
                    help="statistics to time (comma-separated)")
    ap.add_argument("--mpi", type=int, default=0,
                    help="also merge under mpirun -np K")
    a = ap.parse_args()
    counts = [10, 100] if a.quick else [int(x) for x in a.files.split(",")]
    out = os.path.join(TOP, "perf", "build", "merge", "out")
    size = None
    rows = []
    for n in counts:
        files = make_files(n, a.functions)
        size = size or os.path.getsize(files[0]) / 1024.0
        row = [n]
        for stat in a.stats.split(","):
            cpu, wall, mb = measure([MERGE, "--mpi=no", "--stat=" + stat,
                                     "-o", out] + files)
            row += [cpu, wall, mb]
        if a.mpi:
            cpu, wall, mb = measure(mpirun(a.mpi) + [MERGE, "-o", out]
                                    + files)
            row += [cpu, wall, mb]
        rows.append(row)
        print("  %d files: %s" % (n, " ".join("%.1f" % v for v in row[1:])),
              file=sys.stderr, flush=True)
    head = ["files"]
    for stat in a.stats.split(","):
        head += ["%s CPU s" % stat, "wall s", "peak MB"]
    if a.mpi:
        head += ["mpirun -np %d CPU s" % a.mpi, "wall s", "peak MB/process"]
    print("%d functions per file, %.0f KB per file, %d lines per file\n"
          % (a.functions, size, sum(1 for _ in open(files[0]))))
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    for row in rows:
        print("| %d | " % row[0] + " | ".join(
            "%.1f" % v for v in row[1:]) + " |")
    per_file = [(r[1] / r[0]) * 1000 for r in rows]
    print("\n%s: CPU per file %s ms" % (a.stats.split(",")[0], ", ".join(
        "%.0f" % v for v in per_file)))


if __name__ == "__main__":
    main()
