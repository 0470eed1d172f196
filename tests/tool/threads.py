#!/usr/bin/env python3
"""Multi-threaded client (threads.c: main + three workers).

Why not exact: the scheduler interleaves the threads differently from run
to run, which changes the work done in glibc's locking and joining paths
(pthread_join/futex: the reference itself varies by ~100 Ir between runs
of the same binary, e.g. in main's pthread_join arc). So the shared-table
profile is compared structurally (same functions and arcs; totals within
1%), and the workers' own code, which does not depend on scheduling, is
compared exactly (self Ir of spin and worker).

--separate-threads=yes: the same set of per-thread files (-01 .. -04,
each with its `thread:` line) must be written. The reference also creates
an empty file with the plain name; empty files are ignored here.
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "lib"))
import annotate_check  # noqa: E402
from cgbd import cgfile    # noqa: E402
import compare   # noqa: E402
import checks    # noqa: E402
import harness   # noqa: E402

TOLERANCE = 0.01
SCHEDULE_FREE_FNS = ["spin", "worker"]
# Lock and wait paths that a run may or may not take.
MAY_MISS = r"futex|lll_|clockjoin|sched_yield|__pthread_(disable|enable)_asynccancel"


def exact_worker_costs(ours_path, ref_path):
    """Self Ir of the schedule-independent client functions, exactly."""
    po = cgfile.parse(ours_path).merged()
    pr = cgfile.parse(ref_path).merged()
    problems = []
    for fn in SCHEDULE_FREE_FNS:
        a = po.fns.get(fn)
        b = pr.fns.get(fn)
        va = a.self_cost.get("Ir", 0) if a else None
        vb = b.self_cost.get("Ir", 0) if b else None
        if va != vb:
            problems.append("self Ir of %s: ours %s, ref %s" % (fn, va, vb))
    return problems


def structural(ours_path, ref_path):
    opts = compare.Options(events=["Ir"], allow_missing=MAY_MISS,
                           tolerance=TOLERANCE, structural=True)
    return (compare.compare_files(ours_path, ref_path, opts)
            + exact_worker_costs(ours_path, ref_path))


def shared_case():
    ours, ref = harness.run_both("threads", [], "threads-shared")
    problems = harness.run_problems(ours) + harness.run_problems(ref)
    if problems:
        return [("threads/shared", problems)]
    return [("threads/shared", structural(ours.out, ref.out)),
            checks.annotate_result("threads/shared/annotate", ours)]


def nonempty_suffixes(run):
    """{file name suffix after the base name: path} of non-empty files."""
    return {f[len(run.out):]: f for f in run.files()
            if os.path.getsize(f) > 0}


def thread_line(path):
    return [p.info.get("thread") for p in cgfile.parse(path).parts]


def separate_case():
    ours, ref = harness.run_both("threads", ["--separate-threads=yes"],
                                 "threads-separate")
    problems = harness.run_problems(ours) + harness.run_problems(ref)
    if problems:
        return [("threads/separate", problems)]
    fo, fr = nonempty_suffixes(ours), nonempty_suffixes(ref)
    if sorted(fo) != sorted(fr):
        return [("threads/separate",
                 ["per-thread files: ours %s, ref %s"
                  % (sorted(fo), sorted(fr))])]
    for suffix in sorted(fr):
        if thread_line(fo[suffix]) != thread_line(fr[suffix]):
            problems.append("%s: thread: ours %s, ref %s" % (
                suffix, thread_line(fo[suffix]), thread_line(fr[suffix])))
        problems += ["%s: %s" % (suffix, p)
                     for p in structural(fo[suffix], fr[suffix])]
    annotate = []
    for suffix, path in sorted(fo.items()):
        annotate += ["%s: %s" % (suffix, p)
                     for p in annotate_check.check_annotate(path)]
    return [("threads/separate", problems),
            ("threads/separate/annotate", annotate)]


def main():
    return harness.run_cases([("threads/shared", shared_case),
                              ("threads/separate", separate_case)])


if __name__ == "__main__":
    harness.main_guard(main)
