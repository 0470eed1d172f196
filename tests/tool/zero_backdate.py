#!/usr/bin/env python3
"""Zeroing and back-dated costs (CALLGRIND_ZERO_STATS; the zero monitor
command takes the same path and is tested in control.py).

A zero discards the costs counted so far and the metrics still to come
from lines loaded before it (docs/manual.md, "Controlling a running
program"). With --backdate-check=yes the oracle must then hold exactly on
every arc of a profile written after the zero. zero_threads.c zeroes from
main while a worker waits between two walks:

  - one table for all threads: the zero acts on both; the profile after it
    is exact, and it holds the second walk of each thread only (walk()
    called twice in all, not four times);
  - --separate-threads=yes: only main is zeroed; main's file is exact and
    holds one walk, the worker's file is exact and holds both: its lines
    resident at the zero must not be forgotten.
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "lib"))
from cgbd import cgfile    # noqa: E402
import harness   # noqa: E402

GEOM = ["--I1=32768,8,64", "--D1=32768,8,64", "--LL=262144,8,64"]
OPTS = ["--cacheuse=yes", "--backdate-check=yes"] + GEOM
PAIRS = (("L1ld", "L1ldB"), ("LLld", "LLldB"))


def oracle(path):
    part = cgfile.parse(path).merged()
    problems = []
    for (caller, callee), arc in sorted(part.arcs.items()):
        for imm, bd in PAIRS:
            a, b = arc.inclusive.get(imm, 0), arc.inclusive.get(bd, 0)
            if a != b:
                problems.append("%s: arc %s -> %s: %s %d != %s %d"
                                % (os.path.basename(path), caller, callee,
                                   imm, a, bd, b))
    tot = part.totals or {}
    for imm, bd in PAIRS:
        if tot.get(imm, 0) != tot.get(bd, 0) or not tot.get(imm):
            problems.append("%s: totals %s %d, %s %d"
                            % (os.path.basename(path), imm, tot.get(imm, 0),
                               bd, tot.get(bd, 0)))
    return problems[:10]


def walk_calls(path):
    part = cgfile.parse(path).merged()
    return sum(a.calls for (_, callee), a in part.arcs.items()
               if callee == "walk")


def shared_case():
    run = harness.run_tool(harness.OURS, "zero_threads", OPTS, "zero-shared")
    problems = harness.run_problems(run)
    if not problems:
        problems = oracle(run.out)
        if walk_calls(run.out) != 2:
            problems.append("walk() called %d times after the zero, expected 2"
                            % walk_calls(run.out))
    return [("zero/shared", problems)]


def separate_case():
    run = harness.run_tool(harness.OURS, "zero_threads",
                           OPTS + ["--separate-threads=yes"], "zero-separate")
    problems = harness.run_problems(run)
    if problems and "wrote no" in problems[0]:
        problems = []           # the plain name is not written per thread
    files = {f[-2:]: f for f in run.files() if f.endswith(("-01", "-02"))}
    if sorted(files) != ["01", "02"]:
        return [("zero/separate", problems + ["files %s" % run.files()])]
    for tid, want in (("01", 1), ("02", 2)):
        problems += oracle(files[tid])
        got = walk_calls(files[tid])
        if got != want:
            problems.append("thread %s: walk() called %d times, expected %d"
                            % (tid, got, want))
    return [("zero/separate", problems)]


def main():
    return harness.run_cases([("zero/shared", shared_case),
                              ("zero/separate", separate_case)])


if __name__ == "__main__":
    harness.main_guard(main)
