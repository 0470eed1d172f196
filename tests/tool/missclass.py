#!/usr/bin/env python3
"""--miss-class=yes and --reuse-dist=yes on real clients.

1. Derivations (client missclass.c, built -O2, geometry GEOM): each kernel
   is a leaf whose data accesses are one-byte reads, one per line, plus
   the `ret` reading its return address from the stack line main's `call`
   has just written.  D1 has 64 sets x 2 ways = 128 lines, LL 512 sets x
   8 ways = 4096 lines (L, the reuse stack), 64-byte lines; arrays are
   64 KiB aligned, so line k is in D1 set k % 64, LL set k % 512.

   first_sweep      64 lines once, one per D1 set: 64 compulsory misses
                    (D1 and LL), reuse cold.  The stack line's set gets one
                    new line: `ret` hits; its distance is 64 (Rd64).
   capacity_sweep   256 lines (2x D1) 4 times: D1 sets see 4 lines through
                    2 ways, all miss; the 128-line fully associative D1
                    misses a 256-line cycle too: 256 compulsory, 768
                    capacity.  The sweep evicts the stack line: `ret`
                    misses D1, 256 distinct lines since: capacity (769).
                    LL: 256 lines in 256 sets: 256 compulsory, then hits.
                    Reuse: 256 cold, 768 at d = 255 (Rd128), ret d = 256
                    (Rd256).
   conflict_stride  3 lines 64 lines apart (one D1 set, away from the
                    stack line's) x 20: 3 lines through 2 ways all miss,
                    but they fit the 128-line shadow: 3 compulsory, 57
                    conflict; LL 3 compulsory.  Reuse: 3 cold, 57 at d = 2
                    and ret at d = 3 (Rd2: 58).
   ll_conflict      9 lines 512 lines apart (one LL set, one D1 set) x 10:
                    at both levels 9 compulsory + 81 conflict (9 > 8 ways,
                    9 < 4096 lines).  Reuse: 9 cold, 81 + ret at d = 8, 9
                    (Rd8: 82).
   ll_capacity      8192 lines (2x LL) 3 times: every access misses both
                    levels: 8192 compulsory + 16384 capacity, and `ret`
                    misses both (its line was evicted everywhere; 8192
                    distinct lines since): capacity 16385 at D1 and LL.
                    Reuse: 8192 cold, 16385 at d >= L (Rd4096).
   LL compulsory also counts the kernel's instruction lines (ILmr, all
   first touches); I1 misses of the kernels are all compulsory.

2. Identities on every function: I1Co+I1Ca+I1Cf = I1mr, D1Co+D1Ca+D1Cf =
   D1mr+D1mw, LLCo+LLCa+LLCf = ILmr+DLmr+DLmw of the reference Callgrind
   run with the same geometry (and of our own profile); the Rd buckets sum
   to Dr+Dw.  Every event the reference has is unchanged by the options
   (self costs, calls, inclusive costs, totals), also with --cacheuse,
   --simulate-wb and --simulate-hwpref.

3. The new events are immediate: conservation holds for them; with
   --cacheuse=yes --backdate-check=yes the back-dating oracle (L1ld vs
   L1ldB, LLld vs LLldB on every arc) still holds.

4. After an instrumentation switch every line is a first touch again
   (missclass_switch.c).

5. A bad value stops before the client runs.
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "lib"))
from cgbd import cgfile        # noqa: E402
import checks        # noqa: E402
import harness       # noqa: E402

GEOM = ["--I1=32768,8,64", "--D1=8192,2,64", "--LL=262144,8,64"]
BOTH = ["--miss-class=yes", "--reuse-dist=yes"]
CLASSES = ["I1Co", "I1Ca", "I1Cf", "D1Co", "D1Ca", "D1Cf",
           "LLCo", "LLCa", "LLCf"]
L = 262144 // 64


def rd_buckets(lines):
    """Reuse event names for a stack of `lines` lines: Rd0, Rd1, Rd2, Rd4,
    ... (powers of two below lines), Rd<lines> (beyond), RdCold."""
    names, e = ["Rd0"], 1
    while e < lines:
        names.append("Rd%d" % e)
        e *= 2
    return names + ["Rd%d" % lines, "RdCold"]


RD = rd_buckets(L)

# Data-side expectations per kernel: (D1 Co, Ca, Cf), (LL data Co, Ca, Cf),
# {reuse bucket: count} (every other bucket 0).
EXPECT = {
    "first_sweep": ((64, 0, 0), (64, 0, 0), {"RdCold": 64, "Rd64": 1}),
    "capacity_sweep": ((256, 769, 0), (256, 0, 0),
                       {"RdCold": 256, "Rd128": 768, "Rd256": 1}),
    "conflict_stride": ((3, 0, 57), (3, 0, 0), {"RdCold": 3, "Rd2": 58}),
    "ll_conflict": ((9, 0, 81), (9, 0, 81), {"RdCold": 9, "Rd8": 82}),
    "ll_capacity": ((8192, 16385, 0), (8192, 16385, 0),
                    {"RdCold": 8192, "Rd4096": 16385}),
}


def g(cost, *events):
    return sum(cost.get(e, 0) for e in events)


def derivation_problems(part):
    probs = []
    if part.events[-len(RD):] != RD:
        probs.append("reuse events %s, want %s" % (part.events[-len(RD):], RD))
    for fn, (d1, ll, rd) in EXPECT.items():
        f = part.fns.get(fn)
        if not f:
            probs.append("no function %s" % fn)
            continue
        c = f.self_cost
        got = tuple(c.get(e, 0) for e in ("D1Co", "D1Ca", "D1Cf"))
        if got != d1:
            probs.append("%s D1 classes %s, want %s" % (fn, got, d1))
        want_ll = (ll[0] + c.get("ILmr", 0), ll[1], ll[2])
        got = tuple(c.get(e, 0) for e in ("LLCo", "LLCa", "LLCf"))
        if got != want_ll:
            probs.append("%s LL classes %s, want %s (data %s + ILmr %d)"
                         % (fn, got, want_ll, ll, c.get("ILmr", 0)))
        if (c.get("I1Ca", 0), c.get("I1Cf", 0)) != (0, 0) \
                or c.get("I1Co", 0) != c.get("I1mr", 0):
            probs.append("%s I1 classes %s, want all compulsory (I1mr %d)"
                         % (fn, [c.get(e, 0) for e in CLASSES[:3]],
                            c.get("I1mr", 0)))
        got = {e: c[e] for e in RD if c.get(e, 0)}
        if got != rd:
            probs.append("%s reuse buckets %s, want %s" % (fn, got, rd))
    return probs


def identity_problems(ours, ref, mc=True, rd=True):
    """Per function: classes = the reference's misses; Rd sum = Dr + Dw."""
    probs = []
    names = set(ours.fns) | set(ref.fns)
    for name in sorted(names):
        o = ours.fns[name].self_cost if name in ours.fns else {}
        r = ref.fns[name].self_cost if name in ref.fns else {}
        pairs = []
        if mc:
            pairs += [("I1", g(o, "I1Co", "I1Ca", "I1Cf"), g(r, "I1mr")),
                      ("D1", g(o, "D1Co", "D1Ca", "D1Cf"), g(r, "D1mr", "D1mw")),
                      ("LL", g(o, "LLCo", "LLCa", "LLCf"),
                       g(r, "ILmr", "DLmr", "DLmw"))]
        if rd:
            pairs.append(("Rd", g(o, *RD), g(r, "Dr", "Dw")))
        for what, a, b in pairs:
            if a != b:
                probs.append("%s: %s classes/buckets %d != reference %d"
                             % (name, what, a, b))
    if mc and g(ours.totals or {}, *CLASSES) == 0:
        probs.append("no class counted at all")
    return probs[:10]


def compared_case(label, client, extra, ref_extra=None, derive=False,
                  mc=True, rd=True):
    """Ours with the options against the reference without them."""
    name = "missclass/%s/%s" % (label, client)
    opts = GEOM + extra + (["--miss-class=yes"] if mc else []) \
        + (["--reuse-dist=yes"] if rd else [])

    def run():
        tag = "missclass-%s-%s" % (label, client)
        ours = harness.run_tool(harness.OURS, client, opts, tag)
        ref_opts = GEOM + (ref_extra if ref_extra is not None else extra)

        def rerun_ref(i):
            return harness.run_tool(harness.REF, client, ref_opts, tag,
                                    "ref-rerun%d.out" % i)
        ref = harness.run_tool(harness.REF, client, ref_opts, tag)
        probs = harness.run_problems(ours) + harness.run_problems(ref)
        if probs:
            return [(name, probs)]
        po = cgfile.parse(ours.out).merged()
        pr = cgfile.parse(ref.out).merged()
        ref_events = cgfile.parse(ref.out).parts[0].events
        results = [
            (name + "/identity", identity_problems(po, pr, mc, rd)),
            checks.compare_check(name + "/unchanged", ours, ref,
                                 rerun_ref=rerun_ref, events=ref_events),
            checks.conservation_result(
                name + "/conservation", ours,
                (CLASSES if mc else []) + (RD if rd else []),
                where_ir_holds=True),
        ]
        if derive:
            results.append((name + "/derivation", derivation_problems(po)))
            results.append(checks.annotate_result(name + "/annotate", ours))
        return results
    return run


def oracle_case(client):
    name = "missclass/oracle/%s" % client
    opts = GEOM + BOTH + ["--cacheuse=yes", "--backdate-check=yes"]

    def run():
        ours = harness.run_tool(harness.OURS, client, opts,
                                "missclass-oracle-%s" % client)
        probs = harness.run_problems(ours)
        if probs:
            return [(name, probs)]
        results = [(name, checks.backdate_arc_problems(ours.out))]
        if client == "missclass":
            results.append((name + "/derivation", derivation_problems(
                cgfile.parse(ours.out).merged())))
        return results
    return run


def switch_case():
    """missclass_switch.c: touch() reads 64 lines (one per D1 set, 64 LL
    sets), then instrumentation is switched off and on (the caches are
    emptied, and with them the shadows and the first-touch sets), then
    touch() again: 128 compulsory misses at D1 and LL, 128 RdCold; each
    `ret` reads the stack line written by its `call`, 64 lines earlier
    (Rd64: 2)."""
    name = "missclass/switch"

    def run():
        ours = harness.run_tool(harness.OURS, "missclass_switch", GEOM + BOTH,
                                "missclass-switch")
        probs = harness.run_problems(ours)
        if probs:
            return [(name, probs)]
        f = cgfile.parse(ours.out).merged().fns.get("touch")
        if not f:
            return [(name, ["no function touch"])]
        c = f.self_cost
        want = {"D1Co": 128, "D1Ca": 0, "D1Cf": 0,
                "LLCo": 128 + c.get("ILmr", 0), "LLCa": 0, "LLCf": 0,
                "RdCold": 128, "Rd64": 2}
        got = {e: c.get(e, 0) for e in want}
        others = {e: c[e] for e in RD if c.get(e, 0) and e not in want}
        probs = [] if got == want and not others else \
            ["touch: %s %s, want %s" % (got, others, want)]
        return [(name, probs)]
    return run


def bad_value_case():
    name = "missclass/bad-value"

    def run():
        probs = []
        for opt in ("--miss-class=maybe", "--reuse-dist=2"):
            r = harness.run_tool(harness.OURS, "calls", [opt],
                                 "missclass-bad")
            probs += checks.refusal_problems(r, opt)
        return [(name, probs)]
    return run


def main():
    cases = [
        ("missclass/plain/missclass",
         compared_case("plain", "missclass", [], derive=True)),
        ("missclass/cacheuse/missclass",
         compared_case("cacheuse", "missclass", ["--cacheuse=yes"],
                       derive=True)),
        ("missclass/wb/missclass",
         compared_case("wb", "missclass", ["--simulate-wb=yes"])),
        ("missclass/hwpref/missclass",
         compared_case("hwpref", "missclass", ["--simulate-hwpref=yes"])),
        # the reference refuses cacheuse with write-back: compared without
        ("missclass/wb-cacheuse/recursion",
         compared_case("wb-cacheuse", "recursion",
                       ["--simulate-wb=yes", "--cacheuse=yes"],
                       ref_extra=["--simulate-wb=yes"])),
        ("missclass/mc-only/calls",
         compared_case("mc-only", "calls", [], rd=False)),
        ("missclass/rd-only/calls",
         compared_case("rd-only", "calls", [], mc=False)),
        ("missclass/oracle/missclass", oracle_case("missclass")),
        ("missclass/oracle/recursion", oracle_case("recursion")),
        ("missclass/switch", switch_case()),
        ("missclass/bad-value", bad_value_case()),
    ]
    return harness.run_cases(cases)


if __name__ == "__main__":
    harness.main_guard(main)
