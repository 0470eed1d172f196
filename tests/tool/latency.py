#!/usr/bin/env python3
"""--latency=yes: dependent misses D1dep, DLdep.

1. Derivations (client latency.c, assembly kernels, geometry GEOM: D1 64
   lines, LL 1024; each kernel reads 32 nodes no one touched since a
   flush; the client's comment says why each count follows):

   kernel        D1dep DLdep  longest D1/LL (desc: Longest chain)
   chase_reg       31    31     32 / 32   p = *p in one register
   chase_stack     31    31     32 / 32   p spilled to the stack, reloaded
   indep            0     0      -        addresses from an induction variable
   hitdep           0     0      -        addresses from reads that hit
   two_level       32    32      2 / 2    p = table[i] (miss), *p (miss)
   ll_chain        31     0     32 / 0    nodes in LL, not in D1

   The same with the simulation in place (--defer-sim=no), with private
   caches, an L2 (D1dep and DLdep are D1's and LL's), and with
   --cacheuse=yes --backdate-check=yes (the back-dating oracle holds).
   With --latency-window=1 a chain's next miss is one block later, 3 or
   6 instructions after: no miss is dependent but two_level's, whose two
   misses are in the same run of one block (the same time).

2. Threads (latency_threads: two threads chase their own nodes, in any
   interleaving): chase_reg D1dep = DLdep = 62 in all, with and without
   private caches.

3. The reference's events are unchanged by the option (self costs, calls,
   inclusive costs, totals: compared with the reference Callgrind), the
   new events come last, and their inclusive costs are conserved.

4. Bad values stop before the client runs.

5. callgrind-bd_bandwidth --latency on the oracle's profile, with a
   machine file of round numbers: chase_reg's three times follow from
   its counts by the formulas of the manual, and it is latency-bound;
   a machine file without latencies, a profile without D1dep are
   refused in one line. --bandwidth-limits accepts a machine file with
   the latency lines.
"""

import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "lib"))
from cgbd import cgfile        # noqa: E402
import checks        # noqa: E402
import harness       # noqa: E402

GEOM = ["--I1=32768,8,64", "--D1=4096,2,64", "--LL=65536,4,64"]
EVENTS = ["D1dep", "DLdep"]
# kernel: (D1dep, DLdep, (longest D1, longest LL) or None: no desc line)
EXPECT = {
    "chase_reg": (31, 31, (32, 32)),
    "chase_stack": (31, 31, (32, 32)),
    "indep": (0, 0, None),
    "hitdep": (0, 0, None),
    "two_level": (32, 32, (2, 2)),
    "ll_chain": (31, 0, (32, 0)),
}


def longest_chains(part):
    """{fn: (D1, LL)} from the `desc: Longest chain:` lines."""
    out = {}
    for d in part.descs:
        if not d.startswith("Longest chain: "):
            continue
        words = d.split()
        out[d.split("fn=", 1)[1]] = (int(words[3]), int(words[5]))
    return out


def derivation_problems(path, window_one=False):
    profile = cgfile.parse(path)
    part = profile.parts[0]
    merged = profile.merged()
    probs = []
    if part.events[-2:] != EVENTS:
        probs.append("events end %s, want %s" % (part.events[-2:], EVENTS))
    chains = longest_chains(part)
    for fn, (d1, dl, longest) in EXPECT.items():
        f = merged.fns.get(fn)
        if not f:
            probs.append("no function %s" % fn)
            continue
        got = (f.self_cost.get("D1dep", 0), f.self_cost.get("DLdep", 0))
        # a window of 1 instruction: only two_level's pairs, in one block
        # run, stay dependent
        one = window_one and fn != "two_level"
        want = (0, 0) if one else (d1, dl)
        if got != want:
            probs.append("%s D1dep, DLdep %s, want %s" % (fn, got, want))
        want_chain = None if one else longest
        if chains.get(fn) != want_chain:
            probs.append("%s longest chain %s, want %s"
                         % (fn, chains.get(fn), want_chain))
    return probs


def ours_case(name, client, tag, extra, check):
    """Run ours with --latency=yes and `extra` on `client`; a run that
    failed is the result, else check(ours) gives the results."""
    def run():
        ours = harness.run_tool(harness.OURS, client,
                                GEOM + ["--latency=yes"] + extra, tag)
        probs = harness.run_problems(ours)
        return [(name, probs)] if probs else check(ours)
    return run


def derive_case(label, extra, window_one=False):
    name = "latency/derive/%s" % label

    def check(ours):
        results = [(name, derivation_problems(ours.out, window_one))]
        if "--backdate-check=yes" in extra:
            results.append((name + "/oracle",
                            checks.backdate_arc_problems(ours.out)))
        return results
    return ours_case(name, "latency", "latency-" + label, extra, check)


def threads_case(label, extra):
    name = "latency/threads/%s" % label

    def check(ours):
        probs = []
        f = cgfile.parse(ours.out).merged().fns.get("chase_reg")
        got = (f.self_cost.get("D1dep", 0), f.self_cost.get("DLdep", 0)) \
            if f else None
        if got != (62, 62):
            probs.append("chase_reg D1dep, DLdep %s, want (62, 62)" % (got,))
        return [(name, probs), checks.conservation_result(
            name + "/conservation", ours, EVENTS, where_ir_holds=True)]
    return ours_case(name, "latency_threads", "latency-threads-" + label,
                     extra, check)


def compared_case(client):
    """Ours with --latency against the reference without it."""
    name = "latency/unchanged/%s" % client

    def run():
        tag = "latency-cmp-%s" % client
        ours = harness.run_tool(harness.OURS, client,
                                GEOM + ["--latency=yes"], tag)
        ref = harness.run_tool(harness.REF, client,
                               GEOM + ["--cache-sim=yes"], tag)

        def rerun_ref(i):
            return harness.run_tool(harness.REF, client,
                                    GEOM + ["--cache-sim=yes"], tag,
                                    "ref-rerun%d.out" % i)
        probs = harness.run_problems(ours) + harness.run_problems(ref)
        if probs:
            return [(name, probs)]
        ref_events = cgfile.parse(ref.out).parts[0].events
        return [
            checks.compare_check(name, ours, ref, rerun_ref=rerun_ref,
                                 events=ref_events),
            checks.conservation_result(name + "/conservation", ours, EVENTS,
                                       where_ir_holds=True),
        ]
    return run


def order_case():
    """The events come after every other (here: the miss classes')."""
    name = "latency/order"

    def run():
        ours = harness.run_tool(harness.OURS, "calls",
                                ["--latency=yes", "--miss-class=yes"],
                                "latency-order")
        probs = harness.run_problems(ours)
        if not probs:
            events = cgfile.parse(ours.out).parts[0].events
            if events[-2:] != EVENTS or "LLCf" not in events:
                probs.append("events %s" % events)
        return [(name, probs)]
    return run


def bad_value_case():
    name = "latency/bad-value"

    def run():
        probs = []
        for opts, bad in ((["--latency=maybe"], "--latency=maybe"),
                          (["--latency=yes", "--latency-window=0"],
                           "--latency-window=0"),
                          (["--latency=yes", "--latency-window=x"],
                           "--latency-window=x"),
                          (["--latency-window=64"], "--latency-window=64")):
            r = harness.run_tool(harness.OURS, "calls", opts, "latency-bad")
            probs += checks.refusal_problems(r, bad)
        return [(name, probs)]
    return run


SCRIPT = os.path.join(harness.BUILDDIR, "tools", "callgrind-bd_bandwidth")
MACHINE = """name: round numbers
clock: 1e9
instr-per-cycle: 1
L1<-LL: 64e9
LL<-mem: 6.4e9
latency L1<-LL: 1e-8
latency LL<-mem: 1e-6
"""


def _script(args):
    return subprocess.run([SCRIPT] + args, capture_output=True, text=True,
                          timeout=120)


def script_case():
    name = "latency/script"

    def run():
        ours = harness.run_tool(harness.OURS, "latency",
                                GEOM + ["--latency=yes"], "latency-script")
        probs = harness.run_problems(ours)
        if probs:
            return [(name, probs)]
        d = os.path.dirname(ours.out)
        machine = os.path.join(d, "round.machine")
        with open(machine, "w") as f:
            f.write(MACHINE)
        r = _script(["--latency", machine, ours.out])
        if r.returncode != 0:
            return [(name, ["exit %d: %s" % (r.returncode, r.stderr)])]
        c = cgfile.parse(ours.out).merged().fns["chase_reg"].self_cost
        ir, d1mr, dlmr = c["Ir"], c["D1mr"], c["DLmr"]
        # by the manual's formulas, line size 64: a line takes 1 ns over
        # L1<-LL and 10 ns over LL<-mem; instructions 1 ns each
        overlap = max(1.0, 256.0 * (dlmr - 31) / ir)
        want = {"instr s": ir * 1e-9,
                "bandwidth s": max((d1mr + c.get("D1mw", 0)) * 1e-9,
                                   (dlmr + c.get("DLmw", 0)) * 1e-8),
                "latency s": 31 * 1e-6 / overlap}
        lines = r.stdout.splitlines()
        head = lines[1].split("  ")
        head = [h.strip() for h in head if h.strip()]
        row = next((l.split() for l in lines if l.startswith("chase_reg ")),
                   None)
        if not row:
            return [(name, ["no chase_reg row in:\n" + r.stdout])]
        for key, value in want.items():
            got = float(row[head.index(key)])
            if abs(got - value) > 1e-5 * value:
                probs.append("%s %s, want %g" % (key, got, value))
        if row[-1] != "latency":
            probs.append("bound %s, want latency" % row[-1])
        # refusals
        bare = os.path.join(d, "bare.machine")
        with open(bare, "w") as f:
            f.write("clock: 1e9\ninstr-per-cycle: 1\nL1<-LL: 1e9\n"
                    "LL<-mem: 1e9\n")
        r = _script(["--latency", bare, ours.out])
        if r.returncode != 1 or "latency L1<-LL" not in r.stderr \
                or len(r.stderr.splitlines()) != 1:
            probs.append("no latencies: exit %d, %r" % (r.returncode, r.stderr))
        plain = harness.run_tool(harness.OURS, "calls", ["--cache-sim=yes"],
                                 "latency-script")
        r = _script(["--latency", machine, plain.out])
        if r.returncode != 1 or "D1dep" not in r.stderr:
            probs.append("no D1dep: exit %d, %r" % (r.returncode, r.stderr))
        bwrun = harness.run_tool(harness.OURS, "calls",
                                 ["--bandwidth=yes",
                                  "--bandwidth-limits=" + machine],
                                 "latency-script-bw")
        probs += ["--bandwidth-limits: " + p
                  for p in harness.run_problems(bwrun)]
        return [(name, probs)]
    return run


def main():
    cases = [
        ("latency/derive/default", derive_case("default", [])),
        ("latency/derive/in-place", derive_case("in-place",
                                                ["--defer-sim=no"])),
        ("latency/derive/private", derive_case("private",
                                               ["--private-caches=yes"])),
        ("latency/derive/l2", derive_case("l2", ["--L2=8192,2,64"])),
        ("latency/derive/cacheuse",
         derive_case("cacheuse", ["--cacheuse=yes", "--backdate-check=yes"])),
        ("latency/derive/window-1",
         derive_case("window-1", ["--latency-window=1"], window_one=True)),
        ("latency/threads/shared", threads_case("shared", [])),
        ("latency/threads/private",
         threads_case("private", ["--private-caches=yes"])),
        ("latency/unchanged/latency", compared_case("latency")),
        ("latency/unchanged/recursion", compared_case("recursion")),
        ("latency/order", order_case()),
        ("latency/bad-value", bad_value_case()),
        ("latency/script", script_case()),
    ]
    return harness.run_cases(cases)


if __name__ == "__main__":
    harness.main_guard(main)
