#!/usr/bin/env python3
"""--max-memory (issue 23): a run whose tables pass the limit writes the
profile of what ran so far, marked incomplete, names the table that grew,
and stops with exit status 1.

clients/callpaths.c has 2^12 distinct call chains; with
--separate-callers=64 each is its own context with its own cost centres
and arcs, so the tables grow with the chains walked. Checks:

  limit      --max-memory=LIMIT: exit 1; one stderr line "Memory limit
             reached (--max-memory=LIMIT): <table> grew by ..."; the
             profile exists, parses, its trigger says the limit was
             reached and that it is incomplete; it holds part of the run
             (0 < Ir < the full run's Ir, fewer walk() calls); with
             --cacheuse and --backdate-check the oracle holds and
             conservation too (the profile was closed as at the end of a
             run);
  companions the limit with --sharing, --paths and --objects: every file
             beside the profile says what the profile says (the `.paths`,
             `.objects` and `.sharing` triggers equal the profile's, the
             `.sharing.txt` says it holds the run so far: before, the
             false sharing reports said "Program termination"), the
             `.paths` passes lib/pathscheck.py;
  full       the same run with the default limit completes (exit 0,
             "Program termination") and -v reports what the tables hold;
  bad values one error line naming --max-memory, exit 1, client not run.
"""

import os
import re
import sys
import shutil
import tempfile
import threading

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "lib"))
sys.path.insert(0, HERE)
import cgfile            # noqa: E402
import checks            # noqa: E402
import harness           # noqa: E402
import options_errors    # noqa: E402
import pathscheck        # noqa: E402

LIMIT = "8M"
OPTS = (["--separate-callers=64", "--cacheuse=yes", "--backdate-check=yes"]
        + ["--I1=32768,8,64", "--D1=32768,8,64", "--LL=262144,8,64"])
TABLES = ("basic blocks", "cost centres", "call arcs", "contexts",
          "call stacks", "functions and files", "back-dating trees",
          "data objects", "cache model", "other")
BAD_VALUES = ["", "abc", "0", "-1", "12Q", "1.5G", "512k", "G", "4GG",
              "99999999999999999999999"]

_full = {}
_full_lock = threading.Lock()


def walk_calls(part):
    return sum(a.calls for (_, callee), a in part.arcs.items()
               if callee.split("'")[0] == "walk")


def full_run():
    """The run without a limit (shared by the cases that need it)."""
    with _full_lock:
        if "run" not in _full:
            _full["run"] = harness.run_tool(harness.OURS, "callpaths",
                                            OPTS + ["-v"], "memory-full")
        return _full["run"]


def full_case():
    run = full_run()
    problems = harness.run_problems(run)
    if not problems:
        part = cgfile.parse(run.out).parts[-1]
        if not any("Trigger: Program termination" in d for d in part.descs):
            problems.append("no 'Program termination' trigger: %s"
                            % sorted(part.descs))
        if not re.search(r"Memory: tables hold \d+\.\d MiB", run.stderr):
            problems.append("-v does not report the tables' memory")
    return [("memory/full", problems)]


def limit_case():
    name = "memory/limit"
    run = harness.run_tool(harness.OURS, "callpaths",
                           OPTS + ["--max-memory=" + LIMIT], "memory-limit")
    problems = harness.run_problems(run, expect_rc=1)
    if problems:
        return [(name, problems)]
    said = [l for l in run.stderr.splitlines()
            if "Memory limit reached (--max-memory=%s)" % LIMIT in l]
    if len(said) != 1:
        problems.append("stderr has %d 'Memory limit reached' lines: %s"
                        % (len(said), run.stderr[-400:]))
    elif not any(" %s grew by " % t in said[0] for t in TABLES):
        problems.append("the message names no table: %s" % said[0])
    part = cgfile.parse(run.out).merged()
    trig = [d for d in part.descs if d.startswith("desc: Trigger:")
            or "Trigger:" in d]
    if not any("Memory limit reached" in d and "incomplete" in d for d in trig):
        problems.append("trigger does not say limit/incomplete: %s" % trig)
    full = full_run()
    if not harness.run_problems(full):
        whole = cgfile.parse(full.out).merged()
        ir, whole_ir = (part.totals or {}).get("Ir", 0), (whole.totals or {}).get("Ir", 0)
        if not 0 < ir < whole_ir:
            problems.append("Ir %d, full run %d: not a part of the run"
                            % (ir, whole_ir))
        if not walk_calls(part) < walk_calls(whole):
            problems.append("walk() called %d times, full run %d"
                            % (walk_calls(part), walk_calls(whole)))
    return [(name, problems),
            (name + "/oracle", checks.backdate_arc_problems(run.out)),
            checks.conservation_result(
                name + "/conservation", run,
                ["Ir", "AcCost1", "SpLoss1", "L1ldB", "LLldB"],
                where_ir_holds=True)]


def companions_case():
    name = "memory/limit/companions"
    run = harness.run_tool(harness.OURS, "callpaths",
                           ["--separate-callers=64", "--sharing=yes", "--paths=yes",
                            "--objects=yes", "--max-memory=" + LIMIT] + OPTS[-3:],
                           "memory-limit-companions")
    problems = harness.run_problems(run, expect_rc=1)
    if problems:
        return [(name, problems)]
    want = checks.trigger(run.out)
    if not want or "Memory limit reached" not in want:
        problems.append("the profile's trigger: %r" % want)
    for suffix in (".paths", ".objects", ".sharing"):
        got = checks.trigger(run.out + suffix)
        if got != want:
            problems.append("%s: %r, the profile's %r" % (suffix, got, want))
    text = run.out + ".sharing.txt"
    with open(text, errors="replace") as f:
        head = f.read(2000)
    if "The run so far, written at: Memory limit reached" not in head:
        problems.append(".sharing.txt does not say it holds the run so far: %r"
                        % head[:300])
    return [(name, problems),
            (name + "/paths", pathscheck.check(run.out, run.out + ".paths")[0])]


def main():
    tmp = tempfile.mkdtemp(prefix="cgbd-memory-")
    try:
        cases = [("memory/full", full_case), ("memory/limit", limit_case),
                 ("memory/limit/companions", companions_case)]
        for i, v in enumerate(BAD_VALUES):
            arg = "--max-memory=" + v
            check = options_errors.fixed_case([arg], "--max-memory", tmp, i)
            cases.append(("options/bad/" + arg, check))
        return harness.run_cases(cases)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    harness.main_guard(main)
