#!/usr/bin/env python3
"""Check DESIGN.md §5's conservation rule on a profile.

usage: conservation.py [--events E1,E2,...] [--max-diffs N] FILE

For every function that is in no call cycle and has at least one caller:
    sum of inclusive cost on arcs into it
        == its self cost + sum of inclusive cost on arcs out of it
for each checked event (default: all events of the file). Functions in a
cycle (recursion, including Callgrind's fn'2 levels, which form a self
loop) are skipped: their inclusive costs count nested invocations again.
Roots (no incoming arc: the entry point, signal handlers, thread starts)
have no inclusive cost to check.

It holds for the immediate events of the reference; for back-dated events
(AcCost/SpLoss and the line counts of §5) it holds only if their inclusive
costs are attributed exactly, which is what this project adds.
"""

import argparse
import sys

from cgbd import cgfile
import profiles


def _sccs(nodes, succ):
    """Strongly connected components (Tarjan, iterative)."""
    index, low, on_stack, stack, comps = {}, {}, set(), [], []
    counter = [0]
    for root in nodes:
        if root in index:
            continue
        work = [(root, iter(succ.get(root, ())))]
        index[root] = low[root] = counter[0]
        counter[0] += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, it = work[-1]
            advanced = False
            for nxt in it:
                if nxt not in index:
                    index[nxt] = low[nxt] = counter[0]
                    counter[0] += 1
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, iter(succ.get(nxt, ()))))
                    advanced = True
                    break
                if nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
            if advanced:
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                comp = set()
                while True:
                    n = stack.pop()
                    on_stack.discard(n)
                    comp.add(n)
                    if n == node:
                        break
                comps.append(comp)
    return comps


def cyclic_functions(part):
    """Names of functions on some call cycle of the arc graph."""
    succ = {}
    for caller, callee in part.arcs:
        succ.setdefault(caller, set()).add(callee)
    nodes = set(part.fns) | set(succ) | {b for _, b in part.arcs}
    cyclic = set()
    for comp in _sccs(sorted(nodes), succ):
        if len(comp) > 1:
            cyclic |= comp
        else:
            (n,) = comp
            if n in succ.get(n, ()):
                cyclic.add(n)
    return cyclic


def violations(part, events):
    """(function, event, inclusive in, self + inclusive out) that differ."""
    cin, cout = {}, {}
    for (caller, callee), arc in part.arcs.items():
        cgfile.add_cost(cin.setdefault(callee, {}), arc.inclusive)
        cgfile.add_cost(cout.setdefault(caller, {}), arc.inclusive)
    cyclic = cyclic_functions(part)
    bad = []
    for name in sorted(cin):
        if name in cyclic:
            continue
        fn = part.fns.get(name)
        own = fn.self_cost if fn else {}
        for e in events:
            inc = cin[name].get(e, 0)
            parts = own.get(e, 0) + cout.get(name, {}).get(e, 0)
            if inc != parts:
                bad.append((name, e, inc, parts))
    return bad


def check_conservation(path, events=None, limit=10, where_ir_holds=False):
    """Problems (strings); empty when the rule holds in every part.

    where_ir_holds: skip functions for which the rule fails for Ir too (a
    thread's first function, whose callees run on another stack)."""
    problems = []
    for part in profiles.parse(path).parts:
        evs = [e for e in (events or part.events) if e in part.events]
        missing = [e for e in (events or []) if e not in part.events]
        if missing:
            problems.append("part %d lacks events %s" % (part.number, missing))
        skip = set()
        if where_ir_holds:
            skip = {v[0] for v in violations(part, ["Ir"])}
        for name, e, inc, parts in violations(part, evs):
            if name in skip:
                continue
            problems.append("part %d: %r %s: inclusive in %d != self + out %d"
                            " (%+d)" % (part.number, name, e, inc, parts,
                                        inc - parts))
    if len(problems) > limit:
        n = len(problems)
        problems = problems[:limit] + ["... %d more" % (n - limit)]
    return problems


def main(argv):
    ap = argparse.ArgumentParser()
    ap.add_argument("--events")
    ap.add_argument("--max-diffs", type=int, default=10)
    ap.add_argument("file")
    a = ap.parse_args(argv)
    problems = check_conservation(a.file, a.events.split(",") if a.events
                                  else None, a.max_diffs)
    for p in problems:
        print(p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
