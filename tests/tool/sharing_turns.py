#!/usr/bin/env python3
"""--sharing=yes takes the turns of --interleave (callgrind/interleave.c),
so the same command gives the same estimate.

clients/sharing_reuse.c: two threads malloc, write and free a 256 KiB
buffer six times each; which thread's buffer lands where the other's was
follows the order of their calls. Under Valgrind's own schedule
(`--interleave=0`) that order is the kernel's timing: 100 exchanges in
21 lines in one run, 361,044 in 4,132 in another (not asserted: it may
happen to agree). With the default turns, RUNS runs give the same
report, byte for byte but for the command and pid lines; and the turns
are on (-v reports them) without --private-caches.
"""

import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "lib"))
import harness       # noqa: E402

RUNS = 4
harness.CLIENT_BUILD["sharing_reuse"] = (["sharing_reuse.c"], "gcc", ["-O1", "-pthread"])


def report(run):
    with open(run.out + ".sharing.txt") as fh:
        return [l for l in fh if not re.match(r"^(cmd|pid|Command|Profiled|==)", l)]


def exchanges(lines):
    m = re.search(r"exchanges \(theta\): (\d+), in (\d+) shared", "".join(lines))
    return m.groups() if m else None


def repeat_case():
    def check():
        name = "sharing/turns/same-report"
        runs = [harness.run_tool(harness.OURS, "sharing_reuse", ["--sharing=yes", "-v"],
                                 "%s/%d" % (name, i)) for i in range(RUNS)]
        problems = sum((harness.run_problems(r) for r in runs), [])
        if problems:
            return [(name, problems)]
        reports = [report(r) for r in runs]
        seen = [exchanges(r) for r in reports]
        if None in seen:
            problems.append("no exchanges line: %s" % seen)
        elif any(r != reports[0] for r in reports):
            problems.append("reports differ between runs: (exchanges, lines) %s" % seen)
        if not all(re.search(r"interleave: \d+ yields", r.stderr) for r in runs):
            problems.append("-v reports no turns")
        return [(name, problems, "exchanges, lines %s" % (seen[0],))]
    return check


def main():
    return harness.run_cases([("sharing/turns/same-report", repeat_case())])


if __name__ == "__main__":
    harness.main_guard(main)
