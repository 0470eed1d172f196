"""Checks over all the files one run wrote (several dumps, per-thread
files): ours against the reference file by file, and the back-dating
oracle summed over every part.

Used by tests/tool/clreq.py and tests/tool/options_compare.py.
"""

import os
import re

from cgbd import cgfile
import profiles
import compare
import exit_summary

ORACLE_PAIRS = (("L1ld", "L1ldB"), ("LLld", "LLldB"))

# The reference zeroes its running counter when instrumentation is
# switched but not the counter remembered at the last dump, so a call
# faked later (a return from the emptied stack) gets a negative
# ("wrapped", >= 2**63) inclusive cost. Such values are its bug, not a
# difference to report (docs/differences.md).
WRAPPED = 1 << 63


def suffixes(run):
    """{suffix after the base name: path} of every file the run wrote."""
    return {f[len(run.out):]: f for f in run.files()}


def trigger_lines(path):
    """The desc: Timerange:/Trigger: lines of every part, in order."""
    return [[d for d in sorted(p.descs)
             if d.startswith(("Timerange:", "Trigger:"))]
            for p in profiles.parse(path).parts]


def _not_wrapped(m):
    return not (isinstance(m.ref, int) and m.ref >= WRAPPED)


def _wrapped_ref_arc(m, ref_part):
    """An arc only the reference writes, because of a wrapped cost."""
    if not (m.what.startswith("arc ") and m.ours == "missing"
            and m.ref == "present"):
        return False
    caller, callee = m.what[4:].split(" -> ", 1)
    arc = ref_part.arcs.get((caller, callee))
    return arc is not None and any(v >= WRAPPED
                                   for v in arc.inclusive.values())


def _backdated_only_arc(m, part, events):
    """An arc only we write: no immediate inclusive cost, but back-dated
    ones (the reference writes 0 for those, so it leaves the line out)."""
    if not (m.what.startswith("arc ") and m.ours == "present"
            and m.ref == "missing"):
        return False
    caller, callee = m.what[4:].split(" -> ", 1)
    arc = part.arcs.get((caller, callee))
    imm = [e for e in compare.immediate_events(part.events)
           if events is None or e in events]
    return arc is not None and all(arc.inclusive.get(e, 0) == 0 for e in imm)


def jump_problems(ours, ref):
    """--collect-jumps: the same jump arcs with the same counts."""
    a, b = ours.merged().jumps, ref.merged().jumps
    diff = sorted((k for k in set(a) | set(b) if a.get(k) != b.get(k)),
                  key=str)
    return ["jump %s: ours %s, ref %s" % (k, a.get(k), b.get(k))
            for k in diff[:5]] + (["... %d jump differences" % len(diff)]
                                  if len(diff) > 5 else [])


def _expected(m, suffix, expected, fewer_calls_ok):
    delta = expected.get((suffix, m.what))
    if delta is not None and isinstance(m.ours, int):
        return m.ours - m.ref == delta
    return fewer_calls_ok and m.what.endswith(" calls") \
        and " arc " in " " + m.what and isinstance(m.ours, int) \
        and m.ours < m.ref


def compare_runs(ours, ref, events=None, descs=True, expected=None,
                 fewer_calls_ok=False):
    """Problems comparing every file of two runs: the same file names
    (empty files included), per file the same self costs, call counts,
    immediate inclusive costs and totals (compare.py), the same jumps,
    the same Timerange/Trigger lines, and the same exit summary
    (exit_summary.py). expected: {(file suffix, mismatch label): ours -
    ref} for differences by design (docs/differences.md), accepted only
    with exactly that difference. fewer_calls_ok: with collection switched
    off for a while, an arc may have fewer calls than the reference's,
    which also counts the calls made while collection was off
    (tests/tool/collect_off.py checks our counts exactly)."""
    expected = expected or {}
    fo, fr = suffixes(ours), suffixes(ref)
    if sorted(fo) != sorted(fr):
        return ["files: ours %s, ref %s" % (sorted(fo), sorted(fr))]
    problems = []
    opts = compare.Options(events)
    for suffix in sorted(fr):
        empty_o, empty_r = (os.path.getsize(fo[suffix]) == 0,
                            os.path.getsize(fr[suffix]) == 0)
        if empty_o or empty_r:
            if empty_o != empty_r:
                problems.append("%s: empty in one run only" % (suffix or "base"))
            continue
        po, pr = profiles.parse(fo[suffix]), profiles.parse(fr[suffix])
        merged, ref_merged = po.merged(), pr.merged()
        mism = [m for m in compare.compare_profiles(po, pr, opts)
                if _not_wrapped(m)
                and not _wrapped_ref_arc(m, ref_merged)
                and not _backdated_only_arc(m, merged, events)
                and not _expected(m, suffix, expected, fewer_calls_ok)]
        tag = suffix or "(base)"
        problems += ["%s: %s" % (tag, p) for p in compare.describe(mism, 5)]
        problems += ["%s: %s" % (tag, p) for p in jump_problems(po, pr)]
        if descs and trigger_lines(fo[suffix]) != trigger_lines(fr[suffix]):
            problems.append("%s: desc lines ours %s, ref %s" % (
                tag, trigger_lines(fo[suffix]), trigger_lines(fr[suffix])))
    totals = (_sum_parts(parts_of(ours))[1], _sum_parts(parts_of(ref))[1])
    return problems + exit_summary.summary_problems(ours.stderr, ref.stderr,
                                                    totals)


def parts_of(run):
    """Every part of every (non-empty) file of a run, by part number."""
    parts = []
    for path in run.files():
        if os.path.getsize(path) > 0:
            parts += profiles.parse(path).parts
    return sorted(parts, key=lambda p: int(p.info.get("part", 0)))


def _sum_parts(parts):
    arcs, totals = {}, {}
    for part in parts:
        for key, arc in part.arcs.items():
            cgfile.add_cost(arcs.setdefault(key, {}), arc.inclusive)
        cgfile.add_cost(totals, part.totals or {})
    return arcs, totals


def oracle_problems(run, zero_after=None):
    """DESIGN.md section 5 over parts: the lines counted at load (L1ld,
    LLld) and at eviction through the tree (L1ldB, LLldB) agree on every
    arc and in the totals, summed over all parts. A zero discards the
    lines loaded before it (docs/manual.md): with zero_after (the trigger
    of the part written just before the zero) the parts after the zero
    must agree exactly, and those before may only have fewer back-dated
    lines than immediate ones."""
    parts = parts_of(run)
    split = 0
    if zero_after is not None:
        triggers = ["Trigger: " + zero_after in p.descs for p in parts]
        if True not in triggers:
            return ["no part with trigger %r" % zero_after]
        split = len(triggers) - triggers[::-1].index(True)
    problems = []
    before, after = _sum_parts(parts[:split]), _sum_parts(parts[split:])
    for (arcs, totals), exact in ((after, True), (before, False)):
        for key in sorted(arcs):
            for imm, bd in ORACLE_PAIRS:
                a, b = arcs[key].get(imm, 0), arcs[key].get(bd, 0)
                if a != b if exact else b > a:
                    problems.append("%sarc %s -> %s: %s %d, %s %d" % (
                        "" if exact else "before the zero: ",
                        key[0], key[1], imm, a, bd, b))
        for imm, bd in ORACLE_PAIRS:
            a, b = totals.get(imm, 0), totals.get(bd, 0)
            if a != b if exact else b > a:
                problems.append("%stotals: %s %d, %s %d" % (
                    "" if exact else "before the zero: ", imm, a, bd, b))
    if after[1].get("L1ld", 0) == 0:
        problems.append("no lines counted: the oracle would pass vacuously")
    return problems[:10]


def stderr_lines(run, pattern):
    return [l for l in run.stderr.splitlines() if re.search(pattern, l)]
