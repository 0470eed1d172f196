#!/usr/bin/env python3
"""segv.c crashes with SIGSEGV after some calls. Under Valgrind the
profile must still be written completely: it exists, parses, ends with a
totals: line, and (the run being single-threaded and deterministic)
equals the reference's. Valgrind must die of the same signal as with the
reference."""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "lib"))
import checks    # noqa: E402
import harness   # noqa: E402
import pathscheck  # noqa: E402
import profiles  # noqa: E402

harness.CLIENT_BUILD["segv_handler"] = (["segv_handler.c"], "gcc", ["-O1"])
harness.CLIENT_BUILD["segv_handler_dump"] = harness.CLIENT_BUILD["segv_handler"]
harness.CLIENT_ARGS["segv_handler_dump"] = ["dump"]
harness.CLIENT_BUILD["segv_handler_zero"] = harness.CLIENT_BUILD["segv_handler"]
harness.CLIENT_ARGS["segv_handler_zero"] = ["zero", "zero"]
# the calls running when the handler runs (main -> crash -> SIGSEGV)
RUNNING = [("(below main)", "main"), ("main", "crash")]


def segv_case():
    ours, ref = harness.run_both("segv", [], "segv")
    problems = []
    if ours.returncode != ref.returncode:
        problems.append("exit status: ours %d, ref %d"
                        % (ours.returncode, ref.returncode))
    if not os.path.exists(ours.out):
        return [("segv/profile", problems + ["no profile written"])]
    if not checks.ends_with_totals(ours.out):
        problems.append("profile does not end with totals:")
    problems += checks.parses(ours.out)
    results = [("segv/profile", problems)]
    if not problems:
        results.append(checks.compare_check("segv/compare", ours, ref,
                                            expect_rc=ref.returncode,
                                            events=["Ir"]))
        results.append(checks.annotate_result("segv/annotate", ours))
    return results


def arc_ir(part, arc):
    """The inclusive Ir of arc (caller, callee) in part; 0 if not written."""
    return part.arcs[arc].inclusive.get("Ir", 0) if arc in part.arcs else 0


def wrapped_numbers(path):
    """Lines of path holding a number of 2^63 or more (a negative cost
    written as unsigned)."""
    with open(path) as fh:
        return [n for n, line in enumerate(fh, 1)
                if any(t.isdigit() and int(t) >= 1 << 63 for t in line.split())]


def handler_case():
    ours, ref = harness.run_both("segv_handler", [], "segv-handler")
    results = [checks.compare_check("segv/handler/compare", ours, ref,
                                    expect_rc=ref.returncode, events=["Ir"])]
    if harness.run_problems(ours, ref.returncode):
        return results
    whole = profiles.parse(ours.out).parts[0]
    dumped = harness.run_tool(harness.OURS, "segv_handler_dump", [], "segv-handler-dump")
    problems = harness.run_problems(dumped, ref.returncode)
    files = [dumped.out + ".1", dumped.out]
    problems += ["%s: %s" % (f, "no file") for f in files if not os.path.exists(f)]
    if problems:
        return results + [("segv/handler/dump", problems)]
    for f in files:
        lines = wrapped_numbers(f)
        if lines:
            problems.append("%s: numbers of 2^63 or more on lines %s" % (f, lines[:5]))
    at_dump = profiles.parse(files[0]).parts[0]
    after = profiles.parse(files[1]).parts[0]
    for arc in RUNNING:
        want = whole.arcs[arc].inclusive.get("Ir", 0)
        got = arc_ir(at_dump, arc)
        if got != want:
            problems.append("%s -> %s: Ir %d in the handler's dump, %d in the "
                            "whole run without it" % (arc + (got, want)))
        late = arc_ir(after, arc)
        if late:
            problems.append("%s -> %s: Ir %d after the dump (it did not run)"
                            % (arc + (late,)))
    return results + [("segv/handler/dump", problems)]


def handler_zero_case():
    run = harness.run_tool(harness.OURS, "segv_handler_zero", [], "segv-handler-zero")
    problems = harness.run_problems(run, -11)
    if problems:
        return [("segv/handler/zero", problems)]
    part = profiles.parse(run.out).parts[0]
    for arc in RUNNING:
        cost = arc_ir(part, arc)
        if cost:
            problems.append("%s -> %s: Ir %d after the zero (it did not run)"
                            % (arc + (cost,)))
    return [("segv/handler/zero", problems)]


def handler_paths_case():
    run = harness.run_tool(harness.OURS, "segv_handler", ["--cacheuse=yes", "--paths=yes"],
                           "segv-handler-paths")
    problems = harness.run_problems(run, -11) or pathscheck.check(run.out)[0]
    return [("segv/handler/paths", problems)]


def main():
    return harness.run_cases([("segv", segv_case), ("segv/handler", handler_case),
                              ("segv/handler/zero", handler_zero_case),
                              ("segv/handler/paths", handler_paths_case)])


if __name__ == "__main__":
    harness.main_guard(main)
