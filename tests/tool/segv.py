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


def main():
    return harness.run_cases([("segv", segv_case)])


if __name__ == "__main__":
    harness.main_guard(main)
