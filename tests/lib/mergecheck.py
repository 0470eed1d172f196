"""Expected results of callgrind-bd_merge, derived from its inputs with
the test suite's model (cgbd.cgfile), and the comparisons with what it
wrote. Used by tests/tool/merge.py and tests/tool/mpi.py.

sum: every function's self cost, every arc's calls and inclusive cost,
and totals:/summary: of the merge are the sums over the inputs (part by
part). Other statistics: per function of the given object (by name) and
per arc, the statistic over the inputs of each input's function sum
(a missing function counts 0), as callgrind-bd_merge(1) defines them.
"""

import functools
import os
import subprocess

from cgbd import cgfile
import harness

# Cache-use with the back-dating oracle's events, and a small LL so that
# lines are evicted during the run, not only at the final flush.
CACHE_OPTS = ["--cache-sim=yes", "--cacheuse=yes", "--backdate-check=yes",
              "--I1=32768,8,64", "--D1=32768,8,64", "--LL=262144,8,64"]
# Events whose conservation the merge must keep (where Ir's holds).
BD_EVENTS = ["Ir", "AcCost1", "SpLoss1", "AcCost2", "SpLoss2", "L1ldB",
             "LLldB"]
STATS_CHECKED = ("sum", "max", "min", "mean", "imbalance")
MERGE = os.path.join(harness.TOP, "tools", "callgrind-bd_merge")


def run_merge(args, cwd=None, launcher=()):
    """callgrind-bd_merge ARGS (optionally under a launcher such as
    mpirun ...) -> CompletedProcess."""
    return subprocess.run(list(launcher) + [MERGE] + list(args), cwd=cwd,
                          capture_output=True, text=True, timeout=600)


def merge_to(out, files, stat="sum", launcher=()):
    """Merge files into out; a failure raises (the case then FAILs)."""
    r = run_merge(["--stat=" + stat, "-o", out] + list(files),
                  launcher=launcher)
    if r.returncode != 0:
        raise RuntimeError("callgrind-bd_merge --stat=%s exited %d: %s"
                           % (stat, r.returncode, r.stderr.strip()))
    return out


def statistic(stat, values, nfiles):
    """The statistic of values (one per input having it) over nfiles."""
    values = list(values) + [0] * (nfiles - len(values))
    total = sum(values)
    mean = (2 * total + nfiles) // (2 * nfiles)
    if stat == "sum":
        return total
    if stat == "max":
        return max(values)
    if stat == "min":
        return min(values)
    if stat == "mean":
        return mean
    return (2 * (max(values) * nfiles - total) + nfiles) // (2 * nfiles)


def _diff(what, got, want, events, out):
    for e in events:
        if got.get(e, 0) != want.get(e, 0):
            out.append("%s %s: merged %d, expected %d"
                       % (what, e, got.get(e, 0), want.get(e, 0)))


def sum_problems(merged_part, input_parts, limit=10):
    """The merged part is the exact sum of the input parts."""
    problems = []
    events = merged_part.events
    want_fns, want_arcs = {}, {}
    want_tot, want_sum = {}, {}
    for p in input_parts:
        if p.events != events:
            problems.append("events %s, an input has %s" % (events, p.events))
        for name, f in p.fns.items():
            cgfile.add_cost(want_fns.setdefault(name, {}), f.self_cost)
        for key, a in p.arcs.items():
            w = want_arcs.setdefault(key, [0, {}])
            w[0] += a.calls
            cgfile.add_cost(w[1], a.inclusive)
        cgfile.add_cost(want_tot, p.totals or {})
        cgfile.add_cost(want_sum, p.summary or {})
    _diff("totals:", merged_part.totals or {}, want_tot, events, problems)
    _diff("summary:", merged_part.summary or {}, want_sum, events, problems)
    for name in sorted(set(want_fns) | set(merged_part.fns)):
        got = merged_part.fns[name].self_cost if name in merged_part.fns else {}
        _diff("fn %s" % name, got, want_fns.get(name, {}), events, problems)
    for key in sorted(set(want_arcs) | set(merged_part.arcs)):
        arc = merged_part.arcs.get(key)
        calls, incl = (arc.calls, arc.inclusive) if arc else (0, {})
        wcalls, wincl = want_arcs.get(key, [0, {}])
        if calls != wcalls:
            problems.append("arc %s -> %s: %d calls, expected %d"
                            % (key + (calls, wcalls)))
        _diff("arc %s -> %s" % key, incl, wincl, events, problems)
    if len(problems) > limit:
        problems = problems[:limit] + ["... %d more" % (len(problems) - limit)]
    return problems


@functools.lru_cache(maxsize=32)     # the inputs, for every statistic
def by_object(path, obj_suffix):
    """Functions (by name) of the objects ending in obj_suffix, per part:
    [(name -> self cost, (caller, callee) -> (calls, inclusive))]."""
    def key(name, ob):
        return name if (ob or "").endswith(obj_suffix) else None
    out = []
    for p in cgfile.parse(path, fn_key=key).parts:
        fns = {n: f.self_cost for n, f in p.fns.items() if n is not None}
        arcs = {k: (a.calls, a.inclusive) for k, a in p.arcs.items()
                if None not in k}
        out.append((fns, arcs))
    return out


def stat_problems(stat, merged_path, input_paths, obj_suffix, events):
    """Per function of the object and per arc between its functions: the
    merged value is the statistic over the inputs (single-part files)."""
    merged_fns, merged_arcs = by_object(merged_path, obj_suffix)[0]
    inputs = [by_object(p, obj_suffix)[0] for p in input_paths]
    n = len(inputs)
    problems = []
    names = set(merged_fns).union(*(set(f) for f, _ in inputs))
    for name in sorted(names):
        for e in events:
            want = statistic(stat, [f[name].get(e, 0) for f, _ in inputs
                                    if name in f], n)
            got = merged_fns.get(name, {}).get(e, 0)
            if got != want:
                problems.append("fn %s %s: merged %d, %s over the inputs %d"
                                % (name, e, got, stat, want))
    arcs = set(merged_arcs).union(*(set(a) for _, a in inputs))
    for key in sorted(arcs):
        for e in events:
            want = statistic(stat, [a[key][1].get(e, 0) for _, a in inputs
                                    if key in a], n)
            got = merged_arcs.get(key, (0, {}))[1].get(e, 0)
            if got != want:
                problems.append("arc %s -> %s %s: merged %d, %s %d"
                                % (key + (e, got, stat, want)))
    if not merged_fns:
        problems.append("no function of *%s in the merged file" % obj_suffix)
    return problems
