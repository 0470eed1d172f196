#!/usr/bin/env python3
"""Soak checks (issue 23): the tool's memory must not grow with running
time alone, only with distinct code, call paths, live threads and data
objects.

    perf/soak.py                 # the issue's sizes (long: minutes each)
    perf/soak.py --scale 10      # every run length divided by 10
    perf/soak.py --only loop --ref

Each workload of perf/soak/soak.c runs twice under callgrind-bd
(--cache-sim=yes --cacheuse=yes, the back-dating tree on, run.py's
caches), at a short and a long run length (10x), and reports two peaks
of both runs: the process's peak memory (ru_maxrss of the valgrind
process), which must be equal within noise (NOISE_MIB or NOISE_FRACTION
of the short run's peak), and the peak of what the tool's own tables
hold (its -v line "Memory: tables hold ... (peak ...)", counted by
callgrind/memory.c), which is exact and must be equal within
TABLE_NOISE_MIB: Valgrind's start-up (debug info) sets a floor under
the process's peak that hides a few MiB of growth, the tables' peak does
not. A workload whose peaks grow is marked GROWS and the script exits 1.
With --ref the reference Callgrind runs the same (for comparison; it
keeps a shadow frame per round of a loop at a function's entry).

The table goes to stdout, to perf/build/SOAK.md, and into perf/RESULTS.md
between the soak markers (run.py keeps that block when it rewrites the
file). Timings and peaks are never asserted by the test suite.
"""

import argparse
import datetime
import os
import re
import shutil
import subprocess
import sys
import time

PERF = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(PERF)
BUILD = os.path.join(PERF, "build")
sys.path.insert(0, PERF)
import run as perfrun    # noqa: E402  (CACHES, loadavg, cpu_model)

NOISE_MIB = 3.0
NOISE_FRACTION = 0.03
TABLE_NOISE_MIB = 0.2
BEGIN, END = "<!-- soak:begin -->", "<!-- soak:end -->"
OPTS = ["--cache-sim=yes", "--cacheuse=yes"]

# name, what it shows, argv(n), extra tool options, (short, long) at scale 1
WORKLOADS = [
    ("loop-at-entry", "spin(N): `jne spin` N times",
     lambda n: ["loop", str(n)], [], (10**7, 10**8)),
    ("recursion", "a recursion 1000 deep entered and left N times",
     lambda n: ["recursion", str(n), "1000"], [], (10**4, 10**5)),
    ("threads", "N threads created and joined",
     lambda n: ["threads", str(n)], [], (10**3, 10**4)),
    ("dlopen", "dlopen, call, dlclose N times",
     lambda n: ["dlopen", str(n), "./soak_lib.so"], [], (10**2, 10**3)),
    ("dump-every-bb", "N rounds of 3 calls, --dump-every-bb=1000000",
     lambda n: ["calls", str(n)], ["--dump-every-bb=1000000"],
     (2 * 10**6, 2 * 10**7)),
]


def log(msg):
    print(msg, file=sys.stderr, flush=True)


def build():
    os.makedirs(BUILD, exist_ok=True)
    src = os.path.join(PERF, "soak")
    for cmd in (["gcc", "-g", "-O1", "-o", "soak", os.path.join(src, "soak.c"),
                 "-pthread", "-ldl"],
                ["gcc", "-g", "-O1", "-fPIC", "-shared", "-o", "soak_lib.so",
                 os.path.join(src, "soak_lib.c")]):
        subprocess.run(cmd, cwd=BUILD, check=True)
    r = subprocess.run(["make", "-s", "-j2"], cwd=ROOT)
    if r.returncode != 0:
        sys.exit("perf/soak.py: make failed")


def table_peak(stderr_path):
    """The tables' peak (MiB) from callgrind-bd's -v report, or None."""
    with open(stderr_path, errors="replace") as f:
        m = re.search(r"Memory: tables hold [\d.]+ MiB \(peak ([\d.]+) MiB\)",
                      f.read())
    return float(m.group(1)) if m else None


def run_once(tool, vglib, argv, extra, outdir):
    """(peak RSS MiB, wall s, number of profile files, tables' peak MiB or
    None) of one run."""
    shutil.rmtree(outdir, ignore_errors=True)
    os.makedirs(outdir)
    cmd = (["valgrind", "--tool=" + tool, "-v",
            "--callgrind-out-file=%s/cg.out" % outdir] + OPTS + perfrun.CACHES
           + extra + ["./soak"] + argv)
    env = dict(os.environ, VALGRIND_LIB=vglib)
    t0 = time.perf_counter()
    with open(os.path.join(outdir, "stderr"), "wb") as err:
        p = subprocess.Popen(cmd, cwd=BUILD, env=env, stdout=subprocess.DEVNULL,
                             stderr=err, stdin=subprocess.DEVNULL)
        _, status, ru = os.wait4(p.pid, 0)
    wall = time.perf_counter() - t0
    rc = os.waitstatus_to_exitcode(status)
    files = len([f for f in os.listdir(outdir) if f.startswith("cg.out")])
    if rc != 0:
        with open(os.path.join(outdir, "stderr"), errors="replace") as f:
            tail = f.read().strip().splitlines()[-3:]
        log("exit %d: %s\n    %s" % (rc, " ".join(cmd), "\n    ".join(tail)))
        return None, wall, files, None
    tables = table_peak(os.path.join(outdir, "stderr"))
    shutil.rmtree(outdir, ignore_errors=True)
    return ru.ru_maxrss / 1024.0, wall, files, tables


def verdict(short, long_):
    """Process peaks of the short and long run: (peak MiB, ..., tables'
    peak MiB or None)."""
    if short[0] is None or long_[0] is None:
        return "FAILED"
    if abs(long_[0] - short[0]) > max(NOISE_MIB, NOISE_FRACTION * short[0]):
        return "GROWS"
    if short[3] is not None and long_[3] is not None \
       and abs(long_[3] - short[3]) > TABLE_NOISE_MIB:
        return "GROWS (tables)"
    return "equal"


def fmt(x):
    return "-" if x is None else "%.1f" % x


def table(rows, tools):
    head = "| workload | run lengths N | "
    sep = "|---|---|"
    for t in tools:
        head += ("%s peak MiB (short / long) | %s tables' peak MiB | %s | "
                 "%s wall s (short / long) | " % (t, t, t, t))
        sep += "---|---|---|---|"
    lines = [head.rstrip(), sep]
    for r in rows:
        line = "| %s (%s) | %d / %d | " % (r["name"], r["what"], r["sizes"][0],
                                           r["sizes"][1])
        for t in tools:
            short, long_ = r[t]
            line += "%s / %s | %s / %s | %s | %.1f / %.1f | " % (
                fmt(short[0]), fmt(long_[0]), fmt(short[3]), fmt(long_[3]),
                verdict(short, long_), short[1], long_[1])
        lines.append(line.rstrip())
    return "\n".join(lines)


def shown_args():
    """The command line as written in the report, the note left out (it
    is printed below)."""
    args, skip = [], False
    for a in sys.argv[1:]:
        if skip:
            args.append("...")
            skip = False
        elif a == "--note":
            args.append(a); skip = True
        elif a.startswith("--note="):
            args.append("--note=...")
        else:
            args.append(a)
    return args


def write_results(text):
    path = os.path.join(PERF, "RESULTS.md")
    block = BEGIN + "\n" + text + END + "\n"
    old = open(path).read() if os.path.exists(path) else ""
    if BEGIN in old and END in old:
        new = re.sub(re.escape(BEGIN) + ".*?" + re.escape(END) + "\n?",
                     lambda _: block, old, flags=re.S)
    else:
        new = old.rstrip("\n") + "\n\n" + block
    with open(path, "w") as f:
        f.write(new)
    with open(os.path.join(BUILD, "SOAK.md"), "w") as f:
        f.write(text)


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--scale", type=int, default=1,
                    help="divide every run length by this (default 1: the issue's sizes)")
    ap.add_argument("--only", default="", help="regex on workload names")
    ap.add_argument("--ref", action="store_true",
                    help="also run the reference Callgrind")
    ap.add_argument("--vglib", default=os.path.join(ROOT, "vglib"))
    ap.add_argument("--note", default="", help="a line written above the table")
    ap.add_argument("--no-results", action="store_true",
                    help="do not update perf/RESULTS.md")
    args = ap.parse_args()

    build()
    tools = ["callgrind-bd"] + (["callgrind"] if args.ref else [])
    rows = []
    start = time.time()
    load0 = perfrun.loadavg()
    for name, what, argv, extra, sizes in WORKLOADS:
        if not re.search(args.only, name):
            continue
        sizes = tuple(max(1, s // args.scale) for s in sizes)
        row = {"name": name, "what": what, "sizes": sizes}
        for t in tools:
            row[t] = []
            for n in sizes:
                res = run_once(t, args.vglib, argv(n), extra,
                               os.path.join(BUILD, "soak-out"))
                log("%-14s %-12s N=%-10d peak %s MiB (tables %s), %.1f s, "
                    "%d file(s)" % (name, t, n, fmt(res[0]), fmt(res[3]),
                                    res[1], res[2]))
                row[t].append(res)
        rows.append(row)

    text = ("## Soak: peak memory at two run lengths (perf/soak.py)\n\n"
            "- date: %s UTC; CPU: %s; load average at start %s, at end %s\n"
            "- command: `perf/soak.py %s`; options `%s`; noise allowed: "
            "%.0f MiB or %.0f%%\n"
            % (datetime.datetime.utcnow().strftime("%Y-%m-%d %H:%M"),
               perfrun.cpu_model(), load0, perfrun.loadavg(),
               " ".join(shown_args()), " ".join(OPTS + perfrun.CACHES),
               NOISE_MIB, 100 * NOISE_FRACTION))
    if args.note:
        text += "\n" + args.note + "\n"
    text += "\n" + table(rows, tools) + "\n\n"
    text += "(%d s)\n" % (time.time() - start)
    print(text)
    if not args.no_results:
        write_results(text)
    bad = [r["name"] for r in rows
           if verdict(*r["callgrind-bd"]) != "equal"]
    if bad:
        log("perf/soak.py: peak memory not equal in: %s" % ", ".join(bad))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
