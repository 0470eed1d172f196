#!/usr/bin/env python3
"""Loops whose head is the function's first instruction (issue 23,
clients/loop_entry.c).

A jump from a function to its own first instruction, with the stack
pointer where it was when the function was entered, is a loop back edge:
no call, no frame, no recursion level. The reference takes it for a call
on every round (spin -> spin'2, one shadow frame per round). Checks, for
each call-graph option set (default, --separate-recs=1 and =10,
--separate-callers=2, --skip-direct-rec=yes):

  derived   calls per arc and self/inclusive Ir per function from the
            instruction counts in loop_entry.c: each loop function called
            once from main and once from twice_caller, no arc from a loop
            function to itself (nor from the signal handler sig_loop, which
            loops at its entry at the bottom of its context), lrec's real recursion (3 calls per top
            call) and jrec's jumps with a lower stack pointer (19 calls per
            top call, as the reference) still counted;
  reference self costs (Ir; and every immediate event of a cache
            simulation with --cacheuse=yes) of every function (recursion levels and caller
            contexts summed per function) and every arc by function names
            equal the reference's, except the reference's self arcs of the
            loop functions (its false recursion); lrec's real recursion is
            checked by the derived counts instead;
  oracle    with --cacheuse=yes --backdate-check=yes: immediate = back-dated
            line counts on every arc, and conservation.

And with --collect-jumps=yes --dump-instr=yes the loop edges appear as jumps: jcnd
spin -> spin followed ROUNDS-1 times per call, jump spin_jmp -> spin_jmp
ROUNDS-1 times per call.
"""

import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "lib"))
sys.path.insert(0, HERE)
import cgfile            # noqa: E402
import checks            # noqa: E402
import compare           # noqa: E402
import harness           # noqa: E402

ROUNDS = 1000          # loop_entry.c's default
LREC_DEPTH, LREC_INNER = 4, 50
JREC_N = 20
CALLERS = ("main", "twice_caller")
LOOPS = ("spin", "spin_jmp", "selftail")
# self Ir of one call, from the instruction counts in loop_entry.c
CALL_IR = {
    "spin_jmp": 4 * (ROUNDS - 1) + 3,
    "selftail": 7 * ROUNDS + 1,
    "lrec": (3 * ROUNDS + 7 + (LREC_DEPTH - 2) * (3 * LREC_INNER + 7)
             + 3 * LREC_INNER + 3),
    "jrec": 3 * JREC_N + 2,
    "sig_loop": 2 * ROUNDS + 1,
}
# calls of the function by itself per top call (by function name)
SELF_CALLS = {"spin": 0, "spin_jmp": 0, "selftail": 0,
              "lrec": LREC_DEPTH - 1, "jrec": JREC_N - 1}

OPTION_SETS = [
    ("default", []),
    ("recs1", ["--separate-recs=1"]),
    ("recs10", ["--separate-recs=10"]),
    ("callers2", ["--separate-callers=2"]),
    ("skip-direct-rec", ["--skip-direct-rec=yes"]),
]
# a small LL, so that lines are evicted from it too (as backdate_oracle.py)
GEOM = ["--I1=32768,8,64", "--D1=32768,8,64", "--LL=262144,8,64"]


def base(name):
    """Function name without recursion level and caller context."""
    return name.split("'")[0]


def by_function(part):
    """(self cost per function, arcs per (caller, callee) function pair)."""
    fns, arcs = {}, {}
    for f in part.fns.values():
        cgfile.add_cost(fns.setdefault(base(f.name), {}), f.self_cost)
    for (caller, callee), a in part.arcs.items():
        key = (base(caller), base(callee))
        calls, incl = arcs.setdefault(key, [0, {}])
        arcs[key][0] = calls + a.calls
        cgfile.add_cost(incl, a.inclusive)
    return fns, arcs


def spin_has_jne():
    """spin() at -O1 must loop with a jne to its own first instruction,
    or the test would not exercise what it is meant to."""
    exe = harness.build_client("loop_entry")
    asm = subprocess.run(["objdump", "-d", "--no-show-raw-insn", exe],
                         capture_output=True, text=True, check=True).stdout
    body = asm.split("<spin>:", 1)[1].split("\n\n", 1)[0]
    ok = any("jne" in l and l.rstrip().endswith("<spin>")
             for l in body.splitlines())
    return [("loop-entry/objdump",
             [] if ok else ["spin has no jne to its own entry:\n" + body])]


def derived_problems(part):
    fns, arcs = by_function(part)
    problems = []
    for fn in LOOPS + ("lrec", "jrec"):
        for caller in CALLERS:
            calls = arcs.get((caller, fn), [0, {}])[0]
            if calls != 1:
                problems.append("%s -> %s: %d calls, expected 1"
                                % (caller, fn, calls))
        want = SELF_CALLS[fn] * len(CALLERS)
        got = arcs.get((fn, fn), [0, {}])[0]
        if got != want:
            problems.append("%s -> %s: %d calls, expected %d"
                            % (fn, fn, got, want))
        if fn in CALL_IR:
            problems += self_ir_problems(fns, arcs, fn)
    if arcs.get(("sig_loop", "sig_loop"), [0])[0]:
        problems.append("sig_loop (a signal handler) calls itself")
    problems += self_ir_problems(fns, None, "sig_loop")
    return problems


def self_ir_problems(fns, arcs, fn):
    """Self Ir of fn (run once per caller of run_all) and, given arcs, the
    inclusive Ir of each call."""
    problems = []
    got = fns.get(fn, {}).get("Ir", 0)
    if got != CALL_IR[fn] * len(CALLERS):
        problems.append("%s: self Ir %d, expected %d"
                        % (fn, got, CALL_IR[fn] * len(CALLERS)))
    for caller in CALLERS if arcs is not None else ():
        incl = arcs.get((caller, fn), [0, {}])[1].get("Ir", 0)
        if incl != CALL_IR[fn]:
            problems.append("%s -> %s: inclusive Ir %d, expected %d"
                            % (caller, fn, incl, CALL_IR[fn]))
    return problems


def reference_problems(ours_part, ref_part, events):
    ofns, oarcs = by_function(ours_part)
    rfns, rarcs = by_function(ref_part)
    problems = []
    for fn in sorted(set(ofns) | set(rfns)):
        for e in events:
            a, b = ofns.get(fn, {}).get(e, 0), rfns.get(fn, {}).get(e, 0)
            if a != b:
                problems.append("%s: self %s %d, reference %d" % (fn, e, a, b))
    false_rec = set((f, f) for f in LOOPS + ("lrec", "sig_loop"))
    for key in sorted((set(oarcs) | set(rarcs)) - false_rec):
        oc, oi = oarcs.get(key, [0, {}])
        rc, ri = rarcs.get(key, [0, {}])
        if oc != rc:
            problems.append("%s -> %s: %d calls, reference %d"
                            % (key + (oc, rc)))
        for e in events:
            if oi.get(e, 0) != ri.get(e, 0):
                problems.append("%s -> %s: inclusive %s %d, reference %d"
                                % (key + (e, oi.get(e, 0), ri.get(e, 0))))
    return problems[:10]


def compare_case(label, opts, sim=()):
    """sim: cache options; with them, the last block of _Exit never
    completes and breaks conservation for Ir in both tools (tests/README),
    so conservation is checked on the runs without (and by the oracle)."""
    def run():
        name = "loop-entry/%s" % label
        ours, ref = harness.run_both("loop_entry", opts + list(sim),
                                     "loop-entry-" + label)
        problems = harness.run_problems(ours) + harness.run_problems(ref)
        if problems:
            return [(name, problems)]
        o = cgfile.parse(ours.out).merged()
        r = cgfile.parse(ref.out).merged()
        events = compare.immediate_events(o.events)
        results = [(name + "/derived", derived_problems(o)),
                   (name + "/reference", reference_problems(o, r, events))]
        if not sim:
            results.append(checks.conservation_result(
                name + "/conservation", ours, ["Ir"]))
        return results
    return run


def oracle_case(label, opts):
    def run():
        name = "loop-entry/%s/oracle" % label
        ours = harness.run_tool(harness.OURS, "loop_entry",
                                opts + ["--cacheuse=yes", "--backdate-check=yes"]
                                + GEOM, "loop-entry-oracle-" + label)
        problems = harness.run_problems(ours)
        if problems:
            return [(name, problems)]
        return [(name, checks.backdate_arc_problems(ours.out)),
                checks.conservation_result(
                    name + "/conservation", ours,
                    ["AcCost1", "SpLoss1", "AcCost2", "SpLoss2", "L1ldB",
                     "LLldB"], where_ir_holds=True)]
    return run


def jumps_case():
    name = "loop-entry/collect-jumps"
    ours = harness.run_tool(harness.OURS, "loop_entry",
                            # the asm functions have no line numbers: jumps
                            # into them are written by address only
                            ["--collect-jumps=yes", "--dump-instr=yes"],
                            "loop-entry-jumps")
    problems = harness.run_problems(ours)
    if problems:
        return [(name, problems)]
    part = cgfile.parse(ours.out).merged()
    want = {("spin", "jcnd"): (len(CALLERS) * (ROUNDS - 1),
                               len(CALLERS) * ROUNDS),
            ("spin_jmp", "jump"): (len(CALLERS) * (ROUNDS - 1), None)}
    for (fn, kind), (followed, executed) in want.items():
        got = [0, 0]
        for (jfn, jkind, target, _tpos, _spos), (f, x) in part.jumps.items():
            if base(jfn) == fn and base(target) == fn and jkind == kind:
                got[0] += f
                got[1] += x or 0
        if got[0] != followed or (executed is not None and got[1] != executed):
            problems.append("%s %s -> %s: %s, expected %d/%s"
                            % (kind, fn, fn, got, followed, executed))
    _, arcs = by_function(part)
    for fn in LOOPS:
        if arcs.get((fn, fn), [0])[0]:
            problems.append("%s calls itself" % fn)
    return [(name, problems)]


def main():
    cases = [("loop-entry/objdump", spin_has_jne),
             ("loop-entry/collect-jumps", jumps_case)]
    for label, opts in OPTION_SETS:
        cases.append(("loop-entry/%s" % label, compare_case(label, opts)))
        cases.append(("loop-entry/%s/oracle" % label, oracle_case(label, opts)))
    cases.append(("loop-entry/cache", compare_case(
        "cache", [], ["--cache-sim=yes", "--cacheuse=yes"] + GEOM)))
    return harness.run_cases(cases)


if __name__ == "__main__":
    harness.main_guard(main)
