#!/usr/bin/env python3
"""The paper's motivating case (tests/clients/cacheuse.c, as the README's
example): a streamed array and a small reused array read from two call
chains. Inclusive SpLoss1/AcCost1 must put the streaming chain on top and
the reuse chain near zero; the reference writes 0 inclusive for both."""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "lib"))
from cgbd import cgfile        # noqa: E402
import harness       # noqa: E402

OPTS = ["--cache-sim=yes", "--cacheuse=yes"]


def inclusive(path, caller, callee, event):
    arc = cgfile.parse(path).merged().arcs.get((caller, callee))
    return arc.inclusive.get(event, 0) if arc else 0


def run():
    ours, ref = harness.run_both("cacheuse", OPTS, "example")
    probs = harness.run_problems(ours) + harness.run_problems(ref)
    if probs:
        return [("example/cacheuse", probs)]
    results = []
    total = cgfile.parse(ours.out).merged().totals
    for ev in ("SpLoss1", "AcCost1"):
        s = inclusive(ours.out, "main", "stream_outer", ev)
        r = inclusive(ours.out, "main", "reuse_outer", ev)
        p = []
        if s * 2 < total.get(ev, 0):
            p.append("stream chain %s %d is not the top (total %d)"
                     % (ev, s, total.get(ev, 0)))
        if r * 20 > s:
            p.append("reuse chain %s %d not near zero (stream %d)" % (ev, r, s))
        rs = inclusive(ref.out, "main", "stream_outer", ev)
        if rs != 0:
            p.append("reference inclusive %s is %d, expected 0" % (ev, rs))
        results.append(("example/cacheuse/" + ev, p))
    return results


if __name__ == "__main__":
    harness.main_guard(lambda: harness.run_cases([("example/cacheuse", run)]))
