#!/usr/bin/env python3
"""The bandwidth worked example, examples/jacobi.c (docs/manual.md,
"Worked example: the 2D Jacobi solver"):

- native: the blocked solver (wavefront with trapezoids and edge
  triangles) computes exactly the naive one's grid: the same checksum
  (printed with 17 digits) for 1, 2 and 3 threads; bad arguments are
  refused with exit 2;
- under the tool with --bandwidth=yes, the thesis' machine file and its
  caches (1 thread, N = 700: both matrices, 7.8 MB, exceed the 3 MB LL):
  the claims of the manual, from callgrind-bd_bandwidth's tables: in the
  naive solver LL<-mem dominates most of the estimated time; in the
  blocked one LL<-mem dominates less than a tenth of the naive share, and
  LL<-mem moves at least 4 x fewer bytes (12 steps in one block of 12:
  each matrix is read from memory about once instead of 12 times).
"""

import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "lib"))
import harness   # noqa: E402

NAME = "jacobi_example"
SOURCE = os.path.join(harness.TOP, "examples", "jacobi.c")
MACHINE = os.path.join(harness.TOP, "tools", "machines",
                       "ivybridge-thesis.machine")
SCRIPT = os.path.join(harness.BUILDDIR, "tools", "callgrind-bd_bandwidth")
EXE = os.path.join(harness.BUILD, "jacobi")


def build():
    os.makedirs(harness.BUILD, exist_ok=True)
    r = subprocess.run(["gcc", "-O3", "-g", "-pthread", "-o", EXE, SOURCE],
                       capture_output=True, text=True)
    if r.returncode:
        raise RuntimeError("gcc: " + r.stderr[:300])


def checksum(args):
    r = subprocess.run([EXE] + args, capture_output=True, text=True,
                       timeout=120)
    m = re.search(r"checksum (\S+)", r.stdout)
    return m.group(1) if r.returncode == 0 and m else None


def case_native():
    problems = []
    for threads in ("1", "2", "3"):
        sums = {v: checksum([v, threads, "100", "24", "6"])
                for v in ("naive", "blocked")}
        if None in sums.values() or sums["naive"] != sums["blocked"]:
            problems.append("%s thread(s): checksums %r" % (threads, sums))
    for bad in (["fast"], ["blocked", "1", "100", "25", "6"],
                ["blocked", "4", "40", "24", "12"], ["naive", "0"]):
        r = subprocess.run([EXE] + bad, capture_output=True, text=True)
        if r.returncode != 2 or "jacobi: " not in r.stderr:
            problems.append("%s: exit %d, %r" % (bad, r.returncode, r.stderr))
    return [(NAME + "/native", problems)]


def shares(bandwidth_file):
    r = subprocess.run([SCRIPT, "--summary", "--limits", MACHINE,
                        bandwidth_file], capture_output=True, text=True,
                       timeout=300)
    if r.returncode:
        raise RuntimeError("callgrind-bd_bandwidth: " + r.stderr.strip())
    rows, header = {}, None
    for line in r.stdout.splitlines():
        if line.startswith("#"):
            header = None
            continue
        cells = re.split(r"\s{2,}", line.strip())
        if cells[0] == "thread":
            header = cells
        elif header:
            row = dict(zip(header, cells))
            kind = "dom" if "time spent" in row else \
                "added" if "added s" in row else "summary"
            rows[(kind, row["thread"], row.get("path") or
                  row.get("time spent"))] = row
    return rows


def run_under_tool(variant, out):
    cmd = ["valgrind", "-q", "--tool=callgrind-bd", "--bandwidth=yes",
           "--bandwidth-limits=" + MACHINE, "--I1=32768,8,64",
           "--D1=32768,8,64", "--LL=3145728,12,64",
           "--callgrind-out-file=" + out, EXE, variant, "1", "700", "12",
           "12"]
    env = dict(os.environ, VALGRIND_LIB=harness.vglib())
    return subprocess.run(cmd, capture_output=True, text=True, env=env,
                          timeout=harness.RUN_TIMEOUT)


def case_tool():
    out = os.path.join(harness.OUT, "jacobi")
    os.makedirs(out, exist_ok=True)
    rows = {}
    for variant in ("naive", "blocked"):
        profile = os.path.join(out, "callgrind.out." + variant)
        r = run_under_tool(variant, profile)
        if r.returncode and "--bandwidth" in r.stderr and \
                not os.path.exists(profile + ".bandwidth"):
            return [(NAME + "/tool", [], "skipped: this build has no"
                     " --bandwidth (the model is issue 17's other half)")]
        if r.returncode:
            return [(NAME + "/tool", ["%s: exit %d: %s" % (
                variant, r.returncode, r.stderr.strip()[-300:])])]
        rows[variant] = shares(profile + ".bandwidth")
    problems = []
    share = {v: float(rows[v].get(("dom", "1", "LL<-mem"),
                                  {}).get("share %", 0))
             for v in rows}
    volume = {v: int(rows[v][("summary", "1", "LL<-mem")]["bytes"])
              for v in rows}
    if not share["naive"] > 50:
        problems.append("naive: LL<-mem dominates %.1f %% of the time, not"
                        " most" % share["naive"])
    if not share["blocked"] < share["naive"] / 10:
        problems.append("blocked: LL<-mem dominates %.1f %% (naive %.1f %%)"
                        % (share["blocked"], share["naive"]))
    if not volume["blocked"] * 4 <= volume["naive"]:
        problems.append("LL<-mem bytes: blocked %d, naive %d"
                        % (volume["blocked"], volume["naive"]))
    return [(NAME + "/tool", problems, "LL<-mem dominates %.1f %% naive,"
             " %.1f %% blocked" % (share["naive"], share["blocked"]))]


def main():
    build()
    return harness.run_cases([(NAME + "/native", case_native),
                              (NAME + "/tool", case_tool)])


if __name__ == "__main__":
    harness.main_guard(main)
