#!/usr/bin/env python3
"""The back-dating oracle (DESIGN.md section 5) on real clients.

With --backdate-check=yes the tool counts the lines loaded into each cache
level twice: at load time through the running counter (L1ld, LLld) and at
eviction through the back-dating tree (L1ldB, LLldB). Every call arc must
carry exactly the same inclusive cost for both; the totals must agree; the
back-dated events must obey conservation wherever Ir does; and the tree
must stay below (lines in the largest cache + deepest call stack).
"""

import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "lib"))
import checks        # noqa: E402
import harness       # noqa: E402

CLIENTS = ["recursion", "fnptr", "tailcall", "longjmp", "exception",
           "threads", "signal", "siglongjmp", "dlopen", "cacheuse"]
# a small LL, so that evictions happen in LL too (not only at the flush)
GEOM = ["--I1=32768,8,64", "--D1=32768,8,64", "--LL=262144,8,64"]


def tree_size_problems(run, max_depth_hint):
    """desc: Backdate: ... max N: N < lines of the largest cache + depth."""
    text = open(run.out).read()
    m = re.search(r"desc: Backdate: trees \d+, nodes now \d+, max (\d+)", text)
    if not m:
        return ["no Backdate statistics in the profile"]
    lines_largest = 262144 // 64
    if int(m.group(1)) >= lines_largest + max_depth_hint:
        return ["tree max nodes %s >= %d lines + depth %d"
                % (m.group(1), lines_largest, max_depth_hint)]
    return []


def case(client, opts, label):
    def run():
        tag = "oracle-%s-%s" % (label, client)
        ours = harness.run_tool(harness.OURS, client, opts, tag)
        probs = harness.run_problems(ours)
        name = "oracle/%s/%s" % (label, client)
        if probs:
            return [(name, probs)]
        return [(name, checks.backdate_arc_problems(ours.out)),
                (name + "/conservation",
                 checks.conservation_result(name, ours,
                                            ["AcCost1", "SpLoss1", "AcCost2",
                                             "SpLoss2", "L1ldB", "LLldB"],
                                            where_ir_holds=True)[1]),
                (name + "/tree-size", tree_size_problems(ours, 2000))]
    return run


def main():
    base = ["--cacheuse=yes", "--backdate-check=yes"] + GEOM
    cases = [("oracle/plain/" + c, case(c, base, "plain")) for c in CLIENTS]
    # collection toggled at a function: frames enter and leave collection
    cases.append(("oracle/toggle/recursion",
                  case("recursion", base + ["--toggle-collect=fib*"], "toggle")))
    cases.append(("oracle/dumps/cacheuse",
                  case("cacheuse", base + ["--dump-every-bb=200000", "--combine-dumps=yes"], "dumps")))
    return harness.run_cases(cases)


if __name__ == "__main__":
    harness.main_guard(main)
