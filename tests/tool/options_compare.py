#!/usr/bin/env python3
"""Each collection, dump and call-graph option against the reference
Callgrind, on small clients: the same files (part and thread suffixes,
the empty plain-named file of --separate-threads), per file the same self
costs, call counts, immediate inclusive costs and jumps, the same
Timerange/Trigger lines. Then what only our tool can be asked: the
back-dating oracle under --fn-skip (the skipped function's costs move to
its caller and it has no arcs), and the plausibility of system call
times, which cannot be compared exactly.
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "lib"))
from cgbd import cgfile        # noqa: E402
import conservation  # noqa: E402
import dumpcheck     # noqa: E402
import harness       # noqa: E402

GEOM = ["--I1=32768,8,64", "--D1=32768,8,64", "--LL=262144,8,64"]

# (case name, client, options, events compared or None for all)
COMPARED = [
    ("instr-atstart", "clreq", ["--instr-atstart=no"], None),
    ("collect-atstart", "clreq", ["--collect-atstart=no"], None),
    ("toggle-collect", "calls", ["--toggle-collect=middle"], None),
    ("toggle-collect-recursive", "recursion", ["--toggle-collect=fib"], None),
    ("toggle-collect-pattern-?", "calls", ["--toggle-collect=leaf_?"], None),
    # the wildcard pattern first: the reference's pattern tree loses a
    # '?' or '*' pattern given after a literal one with the same prefix
    ("dump-before-after-zero", "clreq",
     ["--zero-before=phase_?", "--dump-before=phase_b",
      "--dump-after=phase_e"], None),
    ("dump-before-pattern-*", "recursion", ["--dump-before=f*b"], None),
    ("dump-every-bb", "clreq", ["--dump-every-bb=20000"], None),
    ("combine-dumps", "clreq", ["--dump-every-bb=20000",
                                "--combine-dumps=yes"], None),
    ("dump-instr", "recursion", ["--dump-instr=yes"], None),
    ("dump-instr-no-line", "calls", ["--dump-instr=yes", "--dump-line=no"],
     None),
    ("separate-threads-naming", "clreq", ["--separate-threads=yes"], None),
    ("fn-skip", "calls", ["--fn-skip=square"], None),
    ("fn-skip-pattern", "calls", ["--fn-skip=leaf_*"], None),
    ("separate-callers", "calls", ["--separate-callers=2"], None),
    ("separate-callers-fn", "calls", ["--separate-callers2=leaf_a"], None),
    ("separate-recs", "recursion", ["--separate-recs=5"], None),
    # --compress-strings=no: the reference numbers recursion levels beyond
    # --separate-recs by ids of other functions (its names are then wrong)
    ("separate-recs-fn", "recursion", ["--compress-strings=no",
                                       "--separate-recs1=fib",
                                       "--separate-recs4=is_*"], None),
    ("skip-direct-rec", "recursion", ["--skip-direct-rec=yes"], None),
    ("skip-plt", "calls", ["--skip-plt=no"], None),
    ("pop-on-jump", "tailcall", ["--pop-on-jump"], None),
    ("pop-on-jump-fn", "tailcall", ["--pop-on-jump=tail_*"], None),
    ("collect-jumps", "recursion", ["--collect-jumps=yes",
                                    "--dump-instr=yes"], None),
    ("collect-jumps-lines", "calls", ["--collect-jumps=yes",
                                      "--compress-pos=no"], None),
    ("collect-jumps-cache", "fnptr", ["--collect-jumps=yes",
                                      "--cache-sim=yes"] + GEOM, None),
    ("collect-bus", "atomics", ["--collect-bus=yes"], None),
    # system call counts are exact; their times are checked apart
    ("collect-systime", "calls", ["--collect-systime=yes"],
     ["Ir", "sysCount"]),
]


def compared_case(label, client, opts, events):
    def run():
        name = "options/%s" % label
        ours, ref = harness.run_both(client, opts, "opt-" + label)
        problems = harness.run_problems(ours) + harness.run_problems(ref)
        if problems:
            return [(name, problems)]
        return [(name, dumpcheck.compare_runs(ours, ref, events))]
    return run


def fn_skip_oracle_case():
    """--fn-skip moves costs to the caller: with stream_inner skipped,
    stream_outer's self cost is exactly its own plus stream_inner's of a
    run without skipping, for every event, back-dated ones included
    (the simulation is the same). The skipped function has no arcs, and
    immediate vs back-dated inclusive costs still agree."""
    name = "options/fn-skip-oracle"
    base = ["--cacheuse=yes", "--backdate-check=yes"] + GEOM
    plain = harness.run_tool(harness.OURS, "cacheuse", base,
                             "opt-fn-skip-oracle", "plain.out")
    skip = harness.run_tool(harness.OURS, "cacheuse",
                            base + ["--fn-skip=stream_inner"],
                            "opt-fn-skip-oracle", "skip.out")
    problems = harness.run_problems(plain) + harness.run_problems(skip)
    if problems:
        return [(name, problems)]
    p, s = cgfile.parse(plain.out).merged(), cgfile.parse(skip.out).merged()
    problems = dumpcheck.oracle_problems(skip)
    problems += ["arc %s -> %s of the skipped function" % k
                 for k in s.arcs if "stream_inner" in k]
    if "stream_inner" in s.fns:
        problems.append("the skipped function has a cost centre")
    moved = dict(p.fns["stream_outer"].self_cost)
    cgfile.add_cost(moved, p.fns["stream_inner"].self_cost)
    for e in p.events:
        if moved.get(e, 0) != s.fns["stream_outer"].self_cost.get(e, 0):
            problems.append("stream_outer self %s: %d with skip, %d + "
                            "stream_inner's without" % (
                                e, s.fns["stream_outer"].self_cost.get(e, 0),
                                moved.get(e, 0)))
    if moved.get("SpLoss1", 0) == 0:
        problems.append("no SpLoss1 moved: the check would pass vacuously")
    problems += conservation.check_conservation(
        skip.out, ["AcCost1", "SpLoss1", "L1ldB"], where_ir_holds=True)
    return [(name, problems)]


def systime_case(unit):
    """sysCount exactly as the reference; times present and consistent:
    only functions that made system calls have time, inclusive costs
    follow self costs (conservation), nsec adds CPU time."""
    def run():
        name = "options/collect-systime-%s" % unit
        # with cache simulation the block running at exit (exit_group)
        # breaks conservation of Ir as of the system calls, and the
        # check below skips it
        opts = ["--collect-systime=%s" % unit, "--cache-sim=yes"] + GEOM
        ours, ref = harness.run_both("calls", opts, "opt-systime-" + unit)
        problems = harness.run_problems(ours) + harness.run_problems(ref)
        if problems:
            return [(name, problems)]
        problems = dumpcheck.compare_runs(ours, ref, ["Ir", "sysCount"])
        part = cgfile.parse(ours.out).merged()
        times = ["sysTime"] + (["sysCpuTime"] if unit == "nsec" else [])
        if part.events[-len(times) - 1:] != ["sysCount"] + times:
            problems.append("events %s" % part.events)
        for fn in part.fns.values():
            if fn.self_cost.get("sysCount", 0) == 0 and any(
                    fn.self_cost.get(t, 0) for t in times):
                problems.append("%s: system call time without calls"
                                % fn.name)
        total = part.totals or {}
        if total.get("sysCount", 0) == 0:
            problems.append("no system calls counted")
        if unit == "nsec" and not all(total.get(t, 0) > 0 for t in times):
            problems.append("nsec: no time measured: %s" % total)
        problems += conservation.check_conservation(
            ours.out, ["sysCount"] + times, where_ir_holds=True)
        return [(name, problems)]
    return run


def main():
    cases = [("options/" + c[0], compared_case(*c)) for c in COMPARED]
    cases.append(("options/fn-skip-oracle", fn_skip_oracle_case))
    cases += [("options/collect-systime-%s" % u, systime_case(u))
              for u in ("usec", "nsec")]
    return harness.run_cases(cases)


if __name__ == "__main__":
    harness.main_guard(main)
