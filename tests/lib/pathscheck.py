#!/usr/bin/env python3
"""The exactness of a .paths file (--paths=yes) against the profile the
same run wrote, part by part, every event:

- totals: the paths add up to the profile's totals: line;
- self: for every function, the paths ending in it add up to its self
  cost in the profile, plus the profile's own gap where it has one: the
  paths hold what the running counters hold, as the arcs' inclusive
  costs do, and so does the profile but for the block running at the end
  (whose self costs the profile never writes) and a block running a dump
  request (written in the next part). That gap is what the profile's
  arcs into the function have beyond its self cost and arcs out (in a
  function in no cycle of several, which has callers); the totals differ
  by the sum of the gaps. Where the block is in a function nobody calls
  (the root after an instrumentation switch), no arc shows its gap: the
  rest of the difference between the summary: line (the running
  counters) and the totals:, over the immediate events, goes to the one
  root function whose paths differ by it;
- inclusive: for every function, the paths that pass through it (once
  each, however often it is on the path) add up to its inclusive cost as
  the profile counts it: the sum of the arcs into it (callgrind_annotate's
  inclusive figure), without its arcs from itself (a direct recursion's
  levels nest in the outermost call, which the other arcs count), or for
  a function nobody calls its self cost plus its arcs out. A function in
  a cycle of several (mutual recursion of one name, fn'2 -> g'2 -> fn'2)
  has no such figure in the profile (the arcs into it from inside the
  cycle count nested calls again, from outside they miss ones): it is
  counted in `skipped`, checked only for self.

usage: pathscheck.py PROFILE [PATHS]   (PATHS: PROFILE.paths)
Functions are told by name, as tools/cgbd/cgfile.py's model does.
"""

import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "tools"))

from cgbd import cgfile, paths   # noqa: E402
from compare import immediate_events   # noqa: E402
from conservation import _sccs   # noqa: E402


def _cycles(part):
    """(functions in a cycle of several, functions calling themselves)"""
    succ = {}
    for caller, callee in part.arcs:
        succ.setdefault(caller, set()).add(callee)
    nodes = set(part.fns) | set(succ) | {b for _, b in part.arcs}
    several, direct = set(), set()
    for comp in _sccs(sorted(nodes), succ):
        if len(comp) > 1:
            several |= comp
    for caller, callee in part.arcs:
        if caller == callee:
            direct.add(caller)
    return several, direct


def profile_figures(part, root_cost=None):
    """{fn: self + gap}, {fn: inclusive} (absent: no figure), skipped
    names, {fn: gap} (non-zero ones).

    root_cost: {fn: cost of the paths whose root it is}. A function at
    the bottom of a thread or signal handler was entered by no call (a
    new thread starts inside clone, which its parent called): no arc
    holds that activation's inclusive cost, its self cost and arcs out
    hold it with the called activations'."""
    root_cost = root_cost or {}
    several, _ = _cycles(part)
    into, out = {}, {}
    for (caller, callee), arc in part.arcs.items():
        if caller == callee:
            continue
        cgfile.add_cost(into.setdefault(callee, {}), arc.inclusive)
        cgfile.add_cost(out.setdefault(caller, {}), arc.inclusive)
    selfs = {name: dict(f.self_cost) for name, f in part.fns.items()}
    inclusive, gaps = {}, {}
    for name in set(selfs) | set(into) | set(out):
        if name in several:
            continue
        if name in into:
            inc = dict(into[name])
            cgfile.add_cost(inc, root_cost.get(name, {}))
            inclusive[name] = inc
            gap = {e: v - selfs.get(name, {}).get(e, 0) - out.get(name, {}).get(e, 0)
                   for e, v in inc.items()}
            gap = {e: v for e, v in gap.items() if v}
            if gap:
                gaps[name] = gap
                cgfile.add_cost(selfs.setdefault(name, {}), gap)
        else:
            inc = dict(selfs.get(name, {}))
            cgfile.add_cost(inc, out.get(name, {}))
            inclusive[name] = inc
    return selfs, inclusive, several, gaps


def function_paths(part):
    """(thread, frames, costs) of every path, a data object's frame at the
    end (--objects=yes) dropped: the function's cost, as the profile has
    it, split by object."""
    for thread, frames, costs in part.paths:
        if frames[-1] in part.objects:
            frames = frames[:-1]
        yield thread, frames, costs


def root_costs(part):
    """{fn: cost of the paths whose root (first frame) it is}"""
    roots = {}
    for _thread, frames, costs in function_paths(part):
        cgfile.add_cost(roots.setdefault(part.fns[frames[0]][1], {}),
                        dict(zip(part.events, costs)))
    return roots


def paths_figures(part):
    """{fn: cost of paths ending in it}, {fn: cost of paths through it},
    totals, every event by name."""
    ends, through, total = {}, {}, {}
    for _thread, frames, costs in function_paths(part):
        cost = dict(zip(part.events, costs))
        names = [part.fns[i][1] for i in frames]
        cgfile.add_cost(ends.setdefault(names[-1], {}), cost)
        for name in set(names):
            cgfile.add_cost(through.setdefault(name, {}), cost)
        cgfile.add_cost(total, cost)
    return ends, through, total


def _diffs(what, want, got, events):
    bad = []
    for name in sorted(set(want) | set(got)):
        for e in events:
            w = want.get(name, {}).get(e, 0)
            g = got.get(name, {}).get(e, 0)
            if w != g:
                bad.append("%s %r %s: profile %d, paths %d (%+d)" % (what, name, e, w, g, g - w))
    return bad


def rest_at_root(part, selfs, inclusive, want_total, ends):
    """The summary's immediate events beyond totals + gaps: to the one
    root whose paths differ by exactly that (see the docstring)."""
    rest = {e: part.summary.get(e, 0) - want_total.get(e, 0)
            for e in immediate_events(part.events)}
    rest = {e: v for e, v in rest.items() if v}
    if not rest:
        return
    called = {callee for (caller, callee) in part.arcs if caller != callee}
    fits = [n for n in selfs if n not in called
            and all(ends.get(n, {}).get(e, 0) - selfs[n].get(e, 0) == v
                    for e, v in rest.items())]
    if len(fits) != 1:
        return
    for figures in (selfs, inclusive):
        if fits[0] in figures:
            cgfile.add_cost(figures[fits[0]], rest)
    cgfile.add_cost(want_total, rest)


def check(profile_path, paths_path=None, events=None):
    """(problems, number of functions checked for inclusive, skipped,
    [(part, function, gap)])."""
    prof = cgfile.parse(profile_path)
    pf = paths.read(paths_path or profile_path + ".paths")
    problems, checked, skipped, all_gaps = [], 0, set(), []
    if len(prof.parts) != len(pf.parts):
        return ["parts: profile %d, paths %d" % (len(prof.parts), len(pf.parts))], 0, set(), []
    for pp, qp in zip(prof.parts, pf.parts):
        if pp.info.get("part") != str(qp.number):
            problems.append("part %s of the profile is part %d of the paths"
                            % (pp.info.get("part"), qp.number))
        if pp.events != qp.events:
            problems.append("part %d: events %s != %s" % (pp.number, pp.events, qp.events))
            continue
        evs = events or pp.events
        selfs, inclusive, several, gaps = profile_figures(pp, root_costs(qp))
        ends, through, total = paths_figures(qp)
        all_gaps += [(qp.number, n, g) for n, g in sorted(gaps.items())]
        want_total = dict(pp.totals)
        for g in gaps.values():
            cgfile.add_cost(want_total, g)
        skipped |= several
        checked += len(inclusive)
        tag = "part %d:" % qp.number
        rest_at_root(pp, selfs, inclusive, want_total, ends)
        problems += [tag + " " + d for d in _diffs("totals", {"": want_total}, {"": total}, evs)]
        problems += [tag + " " + d for d in _diffs("self", selfs, ends, evs)]
        problems += [tag + " " + d for d in
                     _diffs("inclusive", inclusive,
                            {n: c for n, c in through.items() if n in inclusive}, evs)]
        file_totals = dict(zip(qp.events, qp.totals))
        problems += [tag + " " + d for d in _diffs("paths' totals: line", {"": total},
                                                   {"": file_totals}, evs)]
    return problems, checked, skipped, all_gaps


def main(argv):
    problems, checked, skipped, gaps = check(*argv[1:3])
    for p in problems[:30]:
        print(p)
    for part, name, gap in gaps:
        print("part %d: the profile's gap at %r: %s" % (part, name, gap))
    print("%d problems; %d functions' inclusive costs checked, %d in cycles of several"
          % (len(problems), checked, len(skipped)))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
