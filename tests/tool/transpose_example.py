#!/usr/bin/env python3
"""The manual's worked example (examples/transpose.c, docs/manual.md
"Worked example"), run with the manual's options. Checks what the manual
claims, derived from the profiles rather than copied from them:

  - reading inclusive SpLoss1 top-down from main, the largest callee at
    each step leads main -> process -> transpose -> transpose_naive, and
    that leaf carries most (>= 90 %) of all SpLoss1;
  - after the fix (blocked), inclusive SpLoss1 at transpose ->
    transpose_blocked is more than 20 times lower than at transpose ->
    transpose_naive, and AcCost1 more than 10 times lower;
  - both ways print the same checksum;
  - the reference Callgrind writes 0 inclusive SpLoss1 on that arc, so
    without back-dating the chain cannot be found this way.
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "lib"))
from cgbd import cgfile        # noqa: E402
import harness       # noqa: E402

# as in docs/manual.md: a fixed L1/LL geometry, so that the figures do not
# depend on the host's caches
OPTS = ["--cache-sim=yes", "--cacheuse=yes", "--I1=32768,8,64",
        "--D1=32768,8,64", "--LL=8388608,16,64"]
SPLOSS_RATIO = 20
ACCOST_RATIO = 10


def inclusive(merged, caller, callee, event):
    arc = merged.arcs.get((caller, callee))
    return arc.inclusive.get(event, 0) if arc else 0


def top_callee(merged, caller, event):
    """The callee of caller with the largest inclusive cost of event."""
    best = None
    for (c, callee), arc in merged.arcs.items():
        if c == caller and (best is None
                            or arc.inclusive.get(event, 0) > best[1]):
            best = (callee, arc.inclusive.get(event, 0))
    return best[0] if best else None


def top_down_problems(merged):
    chain, fn = [], "main"
    while len(chain) < 3:
        fn = top_callee(merged, fn, "SpLoss1")
        if fn is None:
            break
        chain.append(fn)
    want = ["process", "transpose", "transpose_naive"]
    problems = []
    if chain != want:
        problems.append("top-down by inclusive SpLoss1 from main: %s, "
                        "expected %s" % (chain, want))
    leaf = inclusive(merged, "transpose", "transpose_naive", "SpLoss1")
    total = merged.totals.get("SpLoss1", 0)
    if leaf * 10 < total * 9:
        problems.append("transpose_naive carries %d of %d SpLoss1 (< 90 %%)"
                        % (leaf, total))
    return problems


def fix_problems(naive, blocked):
    problems = []
    for ev, ratio in (("SpLoss1", SPLOSS_RATIO), ("AcCost1", ACCOST_RATIO)):
        n = inclusive(naive, "transpose", "transpose_naive", ev)
        b = inclusive(blocked, "transpose", "transpose_blocked", ev)
        if n == 0 or b * ratio > n:
            problems.append("inclusive %s naive %d, blocked %d: not %d "
                            "times lower" % (ev, n, b, ratio))
    return problems


def run():
    naive = harness.run_tool(harness.OURS, "transpose_naive", OPTS,
                             "transpose", "naive.out")
    blocked = harness.run_tool(harness.OURS, "transpose_blocked", OPTS,
                               "transpose", "blocked.out")
    ref = harness.run_tool(harness.REF, "transpose_naive", OPTS,
                           "transpose", "ref-naive.out")
    probs = (harness.run_problems(naive) + harness.run_problems(blocked)
             + harness.run_problems(ref))
    if probs:
        return [("example/transpose", probs)]
    n = cgfile.parse(naive.out).merged()
    b = cgfile.parse(blocked.out).merged()
    r = cgfile.parse(ref.out).merged()
    out_problems = []
    if naive.stdout != blocked.stdout or "checksum" not in naive.stdout:
        out_problems.append("outputs differ: %r vs %r"
                            % (naive.stdout, blocked.stdout))
    ref_incl = inclusive(r, "transpose", "transpose_naive", "SpLoss1")
    ref_problems = ([] if ref_incl == 0 else
                    ["reference inclusive SpLoss1 %d, expected 0" % ref_incl])
    return [("example/transpose/top-down", top_down_problems(n)),
            ("example/transpose/blocking-fix", fix_problems(n, b)),
            ("example/transpose/output", out_problems),
            ("example/transpose/reference-zero", ref_problems)]


if __name__ == "__main__":
    harness.main_guard(lambda: harness.run_cases([("example/transpose",
                                                   run)]))
