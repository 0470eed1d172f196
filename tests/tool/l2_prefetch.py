#!/usr/bin/env python3
"""--L2 (a private unified L2 between I1/D1 and LL) and --prefetch=stream
(the thesis' stream prefetcher), issue 18.

1. Oracles of the L2, on the exact single-threaded clients with a fixed
   geometry (I1/D1 32768,8,64; LL 262144,8,64), plain, with
   --simulate-wb=yes and with --cacheuse=yes --backdate-check=yes:
     - the events line is Ir Dr Dw I1mr D1mr D1mw I2mr D2mr D2mw ILmr
       DLmr DLmw (the L2's between the L1's and the LL's), the profile
       describes the L2 (desc: L2 cache:);
     - Ir Dr Dw and the I1/D1 misses are those of the two-level run, with
       any L2 (here 65536,4,64): per function (self), per arc
       (inclusive, calls) and in the totals;
     - with --L2 of the LL's geometry (and a bigger LL, 1048576,8,64),
       I2mr D2mr D2mw are the two-level run's ILmr DLmr DLmw, in the same
       places: the L2 then sees exactly what the LL saw;
     - with cache use, the back-dating oracle (checks.backdate_arc_problems)
       holds for every level, L2 included (L2ld = L2ldB on every arc and
       in the totals), with both L2s;
     - conservation holds for the new events (where it holds for Ir:
       not at _Exit, whose last fetch is counted in the arc but never
       reaches the function, as for the two-level events).
2. The stream prefetcher on clients/stream.c (I1/D1 32768,8,64, LL
   8388608,16,64; derivations in the client and in cachesim/streampf.c):
   per 4 KiB page of 64 lines, a sweep misses lines 0..6 only and lines
   2..58 prefetch (57 per page), so over 64 pages
     - sweep_up:    D1mr 64 * 64 + 1 without (the +1: its ret's stack
                    line, evicted by the sweep), 7 * 64 + 1 with the
                    prefetcher; Pfi 57 * 64 -- at least 80% fewer misses;
     - sweep_down:  the same, going down;
     - column_walk: a stride of a page and a line: D1mr as without the
                    prefetcher, Pfi 0;
     - Pfi is conserved through the call graph (main's arcs carry it),
       and the exit summary's prefetch line adds up (issued = used +
       evicted unused + still resident, so used + unused <= issued).
   With --cacheuse=yes --backdate-check=yes (and an L2): the miss and Pfi
   events are those of the run without cache use, in every function and
   on every arc; every prefetched line leaves D1 used (Pfu) or not (Pfx)
   by the end (all lines are flushed at exit), so on every arc and in
   the totals the immediate Pfi equals the back-dated Pfu + Pfx; the
   sweeps use all their prefetches (Pfu = Pfi, Pfx = 0); the back-dating
   oracle and conservation of Pfu/Pfx hold.
   The manual's transpose table (examples/transpose.c, naive): the
   sweeps init_matrix, scale, checksum lose at least 80% of their D1
   misses; transpose_naive's write misses (down a column, 4 KiB apart: a
   page per element) do not change.
3. --private-caches=yes: every core gets its own L2. On the hand-over
   clients of tests/tool/private_caches.py (the threads take turns, forced
   by a mutex and a condition variable, so bump()'s accesses come in the
   same order in every run), bump's L1 and coherence events (Ir Dr Dw
   I1mr D1mr D1mw D1Ts D1Fs Inv) are those of the run without --L2, and
   with cache use the back-dating oracle holds for the three levels (the
   other functions' counts depend on Valgrind's thread schedule, which
   differs between runs). --reuse-dist=yes with --L2 (its buckets do not
   depend on the levels): the functions of the client's binary get the
   same buckets as without (the loader's string functions vary between
   identical runs), and every function's buckets sum to its Dr + Dw. --miss-class=yes with --L2: the L2's classes L2Co L2Ca
   L2Cf sum to I2mr + D2mr + D2mw in every function, and with the L2 of
   the LL's geometry they are the two-level run's LLCo LLCa LLCf
   everywhere.
   --objects=yes with --L2 (clients/objects.c, tests/tool/objects.py's
   derivation: every object's lines are cold and enter each cache once;
   an L2 of 4 MiB, so that no L2 line leaves before its L1 copies, as the
   8 MiB LL in objects.py):
   per object the events objects.py derives, and D2mr/D2mw = DLmr/DLmw,
   AcCostL2/SpLossL2 = AcCost2/SpLoss2 (the L2 line gathers exactly what
   its LL line does); the objects' sums equal the profile's totals for
   the L2 events too.
4. --L2=host runs and describes an L2; bad values and the combinations not
   modelled stop before the client runs, naming the option.
"""

import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "lib"))
import profiles  # noqa: E402
import checks    # noqa: E402
import compare   # noqa: E402
import harness   # noqa: E402

FIXED = ["--I1=32768,8,64", "--D1=32768,8,64", "--LL=262144,8,64"]
SAME_AS_LL = ["--I1=32768,8,64", "--D1=32768,8,64", "--LL=1048576,8,64",
              "--L2=262144,8,64"]
SMALL_L2 = FIXED + ["--L2=65536,4,64"]
L1_EVENTS = "Ir Dr Dw I1mr D1mr D1mw".split()
RENAMED = {"I2mr": "ILmr", "D2mr": "DLmr", "D2mw": "DLmw"}
EVENTS_LINE = "Ir Dr Dw I1mr D1mr D1mw I2mr D2mr D2mw ILmr DLmr DLmw"
STREAM_GEOM = ["--I1=32768,8,64", "--D1=32768,8,64", "--LL=8388608,16,64"]
PAGES = 64


def cost_problems(what, got, want, events, rename=None):
    """got[e] (e renamed through rename) == want[e] for each e."""
    out = []
    for e in events:
        ge = (rename or {}).get(e, e)
        a, b = want.get(e, 0), got.get(ge, 0)
        if a != b:
            out.append("%s: %s %d, expected %d (%s of the two-level run)"
                       % (what, ge, b, a, e))
    return out


def same_places(got, want, events, rename=None):
    """Self costs, arcs (inclusive, calls) and totals of the merged
    profiles: got's events (renamed) equal want's."""
    g, w = got.merged(), want.merged()
    problems = []
    for name in sorted(set(g.fns) | set(w.fns)):
        gf, wf = g.fns.get(name), w.fns.get(name)
        problems += cost_problems("fn %s" % name,
                                  gf.self_cost if gf else {},
                                  wf.self_cost if wf else {}, events, rename)
    for key in sorted(set(g.arcs) | set(w.arcs)):
        ga, wa = g.arcs.get(key), w.arcs.get(key)
        if not ga or not wa or ga.calls != wa.calls:
            problems.append("arc %s -> %s: calls differ" % key)
            continue
        problems += cost_problems("arc %s -> %s" % key, ga.inclusive,
                                  wa.inclusive, events, rename)
    problems += cost_problems("totals", g.totals or {}, w.totals or {},
                              events, rename)
    return problems


def events_line(path):
    return profiles.parse(path).parts[0].events


MODES = {"plain": ["--cache-sim=yes"], "wb": ["--simulate-wb=yes"],
         "cacheuse": ["--cacheuse=yes", "--backdate-check=yes"]}
USE_EVENTS = ["AcCost1", "SpLoss1", "AcCostL2", "SpLossL2", "AcCost2",
              "SpLoss2", "L1ld", "L2ld", "LLld", "L1ldB", "L2ldB", "LLldB"]


def l2_case(client, mode):
    name = "l2/%s/%s" % (mode, client)
    extra = MODES[mode]
    wb = mode == "wb"

    def run():
        tag = "l2-%s-%s" % (mode, client)
        runs = {k: harness.run_tool(harness.OURS, client, geom + extra, tag,
                                    "%s.out" % k)
                for k, geom in (("two", FIXED), ("same", SAME_AS_LL),
                                ("small", SMALL_L2))}
        problems = []
        for k, r in runs.items():
            problems += ["%s: %s" % (k, p) for p in harness.run_problems(r)]
        if problems:
            return [(name, problems)]
        two = profiles.parse(runs["two"].out)
        if not (two.merged().totals or {}).get("DLmr"):
            problems.append("no LL data misses: the check would be vacuous")
        for k in ("same", "small"):
            want = EVENTS_LINE.split()
            if wb:
                want += ["ILdmr", "DLdmr", "DLdmw"]
            if mode == "cacheuse":
                want += USE_EVENTS
                problems += ["%s: %s" % (k, p) for p in
                             checks.backdate_arc_problems(runs[k].out)]
                if not (profiles.parse(runs[k].out).merged().totals
                        or {}).get("L2ld"):
                    problems.append("%s: no L2 lines counted" % k)
            if events_line(runs[k].out) != want:
                problems.append("%s: events %s" % (k, events_line(runs[k].out)))
            if not any(d.startswith("L2 cache:")
                       for d in profiles.parse(runs[k].out).parts[0].descs):
                problems.append("%s: no desc: L2 cache: line" % k)
            problems += ["%s: %s" % (k, p) for p in
                         same_places(profiles.parse(runs[k].out), two,
                                     L1_EVENTS)]
        problems += ["L2 = LL geometry: %s" % p for p in
                     same_places(profiles.parse(runs["same"].out), two,
                                 list(RENAMED.values()),
                                 {v: k for k, v in RENAMED.items()})]
        events = list(RENAMED)
        if mode == "cacheuse":
            events += ["AcCostL2", "SpLossL2", "L2ld", "L2ldB"]
        return [(name, problems),
                checks.conservation_result(name + "/conservation",
                                           runs["small"],
                                           events=events,
                                           where_ir_holds=True)]
    return run


def self_cost(profile, fn, event):
    f = profile.merged().fns.get(fn)
    return f.self_cost.get(event, 0) if f else 0


PREFETCH_LINE = re.compile(r"Prefetches:\s+([\d,]+)\s+\(([\d,]+) used \+ "
                           r"([\d,]+) evicted unused\)")


def stream_problems(off, on):
    problems = harness.run_problems(off) + harness.run_problems(on)
    if problems:
        return problems
    p_off, p_on = profiles.parse(off.out), profiles.parse(on.out)
    per_page_missed, per_page_pf = 7, 57
    for fn in ("sweep_up", "sweep_down"):
        m_off = self_cost(p_off, fn, "D1mr")
        m_on = self_cost(p_on, fn, "D1mr")
        if m_off != 64 * PAGES + 1:
            problems.append("%s: D1mr %d without, expected %d"
                            % (fn, m_off, 64 * PAGES + 1))
        if m_on != per_page_missed * PAGES + 1:
            problems.append("%s: D1mr %d with the prefetcher, expected %d"
                            % (fn, m_on, per_page_missed * PAGES + 1))
        if 100 * (m_off - m_on) < 80 * m_off:
            problems.append("%s: less than 80%% fewer misses" % fn)
        pfi = self_cost(p_on, fn, "Pfi")
        if pfi != per_page_pf * PAGES:
            problems.append("%s: Pfi %d, expected %d"
                            % (fn, pfi, per_page_pf * PAGES))
        arc = p_on.merged().arcs.get(("main", fn))
        if not arc or arc.inclusive.get("Pfi", 0) != pfi:
            problems.append("main -> %s: inclusive Pfi is not %d" % (fn, pfi))
    m_off = self_cost(p_off, "column_walk", "D1mr")
    m_on = self_cost(p_on, "column_walk", "D1mr")
    if m_off != m_on or m_off == 0:
        problems.append("column_walk: D1mr %d with, %d without the prefetcher"
                        % (m_on, m_off))
    if self_cost(p_on, "column_walk", "Pfi") != 0:
        problems.append("column_walk: prefetches issued")
    m = PREFETCH_LINE.search(on.stderr)
    if not m:
        problems.append("no Prefetches: line in the exit summary")
    else:
        issued, used, unused = (int(x.replace(",", "")) for x in m.groups())
        total_pfi = (p_on.merged().totals or {}).get("Pfi", 0)
        if issued != total_pfi:
            problems.append("exit summary: %d issued, totals Pfi %d"
                            % (issued, total_pfi))
        if used + unused > issued or used < 2 * per_page_pf * PAGES:
            problems.append("exit summary: %d issued, %d used, %d unused"
                            % (issued, used, unused))
    return problems


def prefetch_use_problems(plain, use):
    problems = harness.run_problems(plain) + harness.run_problems(use)
    if problems:
        return problems
    p_plain, p_use = profiles.parse(plain.out), profiles.parse(use.out)
    events = L1_EVENTS + ["I2mr", "D2mr", "D2mw", "ILmr", "DLmr", "DLmw",
                          "Pfi"]
    problems += ["against the run without cache use: %s" % p
                 for p in same_places(p_use, p_plain, events)]
    m = p_use.merged()
    for (caller, callee), arc in sorted(m.arcs.items()):
        i = arc.inclusive
        if i.get("Pfi", 0) != i.get("Pfu", 0) + i.get("Pfx", 0):
            problems.append("arc %s -> %s: Pfi %d != Pfu %d + Pfx %d"
                            % (caller, callee, i.get("Pfi", 0),
                               i.get("Pfu", 0), i.get("Pfx", 0)))
    t = m.totals or {}
    if not t.get("Pfi") or t.get("Pfi") != t.get("Pfu", 0) + t.get("Pfx", 0):
        problems.append("totals: Pfi %s, Pfu %s, Pfx %s"
                        % (t.get("Pfi"), t.get("Pfu"), t.get("Pfx")))
    for fn in ("sweep_up", "sweep_down"):
        if (self_cost(p_use, fn, "Pfu") != self_cost(p_use, fn, "Pfi")
                or self_cost(p_use, fn, "Pfx") != 0):
            problems.append("%s: not every prefetch used" % fn)
    problems += checks.backdate_arc_problems(use.out)
    return problems


def stream_use_case():
    name = "prefetch/stream-cacheuse"
    opts = STREAM_GEOM + ["--L2=262144,8,64", "--prefetch=stream"]

    def run():
        plain = harness.run_tool(harness.OURS, "stream", opts, "pf-use",
                                 "plain.out")
        use = harness.run_tool(harness.OURS, "stream",
                               opts + ["--cacheuse=yes", "--backdate-check=yes"],
                               "pf-use", "use.out")
        return [(name, prefetch_use_problems(plain, use)),
                checks.conservation_result(name + "/conservation", use,
                                           events=["Pfi", "Pfu", "Pfx",
                                                   "SpLoss1", "SpLossL2"],
                                           where_ir_holds=True)]
    return run


def transpose_case():
    name = "prefetch/transpose"
    geom = ["--I1=32768,8,64", "--D1=32768,8,64", "--LL=8388608,16,64"]

    def run():
        off = harness.run_tool(harness.OURS, "transpose_naive",
                               geom + ["--cache-sim=yes"], "pf-tp", "off.out")
        on = harness.run_tool(harness.OURS, "transpose_naive",
                              geom + ["--prefetch=stream"], "pf-tp", "on.out")
        problems = harness.run_problems(off) + harness.run_problems(on)
        if problems:
            return [(name, problems)]
        p_off, p_on = profiles.parse(off.out), profiles.parse(on.out)

        def d1(p, fn):
            return self_cost(p, fn, "D1mr") + self_cost(p, fn, "D1mw")
        for fn in ("init_matrix", "scale", "checksum"):
            a, b = d1(p_off, fn), d1(p_on, fn)
            if a == 0 or 100 * (a - b) < 80 * a:
                problems.append("%s: D1 misses %d -> %d" % (fn, a, b))
        a = self_cost(p_off, "transpose_naive", "D1mw")
        b = self_cost(p_on, "transpose_naive", "D1mw")
        if a != b or a == 0:
            problems.append("transpose_naive: D1mw %d -> %d" % (a, b))
        return [(name, problems)]
    return run


def stream_case(distance_opt):
    name = "prefetch/stream"

    def run():
        off = harness.run_tool(harness.OURS, "stream",
                               STREAM_GEOM + ["--cache-sim=yes"], "pf",
                               "off.out")
        on = harness.run_tool(harness.OURS, "stream",
                              STREAM_GEOM + [distance_opt], "pf", "on.out")
        return [(name, stream_problems(off, on)),
                checks.conservation_result(name + "/conservation", on,
                                           events=["Pfi"],
                                           where_ir_holds=True)]
    return run


def cores_case(client):
    name = "l2/private-caches/%s" % client
    base = FIXED + ["--private-caches=yes"]

    def run():
        tag = "l2-cores-%s" % client
        two = harness.run_tool(harness.OURS, client, base, tag, "two.out")
        l2 = harness.run_tool(harness.OURS, client, base + ["--L2=65536,4,64"],
                              tag, "l2.out")
        use = harness.run_tool(harness.OURS, client,
                               base + ["--L2=65536,4,64", "--cacheuse=yes",
                                       "--backdate-check=yes"], tag, "use.out")
        problems = []
        for r in (two, l2, use):
            problems += harness.run_problems(r)
        if problems:
            return [(name, problems)]
        def bump(path):     # gcc may name it bump.constprop.0
            fns = profiles.parse(path).merged().fns
            names = [n for n in fns if n == "bump" or n.startswith("bump.")]
            return fns[names[0]] if len(names) == 1 else None
        a, b = bump(l2.out), bump(two.out)
        if not a or not b:
            problems.append("no bump() in the profiles")
        else:
            problems += cost_problems("fn bump", a.self_cost, b.self_cost,
                                      L1_EVENTS + ["D1Ts", "D1Fs", "Inv"])
        problems += checks.backdate_arc_problems(use.out)
        return [(name, problems)]
    return run


def reuse_case():
    name = "l2/reuse-dist"

    def run():
        a = harness.run_tool(harness.OURS, "cacheuse",
                             FIXED + ["--reuse-dist=yes"], "l2-rd", "two.out")
        b = harness.run_tool(harness.OURS, "cacheuse",
                             SMALL_L2 + ["--reuse-dist=yes"], "l2-rd", "l2.out")
        problems = harness.run_problems(a) + harness.run_problems(b)
        if problems:
            return [(name, problems)]
        pa, pb = profiles.parse(a.out).merged(), profiles.parse(b.out).merged()
        rd = [e for e in profiles.parse(a.out).parts[0].events
              if e.startswith("Rd")]
        if not rd:
            problems.append("no reuse-distance events")
        # the client's own functions: the loader's string functions vary
        # between identical runs (compare.KNOWN_NOISY_FNS), and so do the
        # arcs above them
        mine = [n for n, f in pa.fns.items()
                if any(ob.endswith("/cacheuse") for ob in f.obs)]
        if "main" not in mine:
            problems.append("no function of the client's own binary")
        for fn in mine:
            fb = pb.fns.get(fn)
            problems += cost_problems("fn %s" % fn,
                                      fb.self_cost if fb else {},
                                      pa.fns[fn].self_cost, L1_EVENTS + rd)
        for fn, f in pb.fns.items():
            c = f.self_cost
            if sum(c.get(e, 0) for e in rd) != c.get("Dr", 0) + c.get("Dw", 0):
                problems.append("fn %s: buckets do not sum to Dr + Dw" % fn)
        return [(name, problems)]
    return run


def missclass_case(client):
    name = "l2/miss-class/%s" % client

    def run():
        tag = "l2-mc-%s" % client
        two = harness.run_tool(harness.OURS, client,
                               FIXED + ["--miss-class=yes"], tag, "two.out")
        same = harness.run_tool(harness.OURS, client,
                                SAME_AS_LL + ["--miss-class=yes"], tag,
                                "same.out")
        small = harness.run_tool(harness.OURS, client,
                                 SMALL_L2 + ["--miss-class=yes"], tag,
                                 "small.out")
        problems = []
        for r in (two, same, small):
            problems += harness.run_problems(r)
        if problems:
            return [(name, problems)]
        classes = {"L2Co": "LLCo", "L2Ca": "LLCa", "L2Cf": "LLCf"}
        problems += same_places(profiles.parse(same.out), profiles.parse(two.out),
                                list(classes.values()),
                                {v: k for k, v in classes.items()})
        for fname, f in sorted(profiles.parse(small.out).merged().fns.items()):
            c = f.self_cost
            a = sum(c.get(e, 0) for e in classes)
            b = sum(c.get(e, 0) for e in RENAMED)
            if a != b:
                problems.append("fn %s: L2 classes %d, L2 misses %d"
                                % (fname, a, b))
        if not (profiles.parse(small.out).merged().totals or {}).get("L2Co"):
            problems.append("no L2 misses classified")
        return [(name, problems)]
    return run


def objects_case():
    name = "l2/objects"
    import objects as obj_test      # tests/tool/objects.py

    def run():
        r = obj_test.run(obj_test.OPTS + ["--objects=yes", "--L2=4194304,16,64"],
                         "l2-objects")
        problems = harness.run_problems(r)
        if problems:
            return [(name, problems)]
        part = obj_test.objects_part(r)
        problems += obj_test.derived_problems(part)
        pairs = (("D2mr", "DLmr"), ("D2mw", "DLmw"), ("AcCostL2", "AcCost2"),
                 ("SpLossL2", "SpLoss2"))
        for key in obj_test.EXPECTED:
            oname = obj_test.object_name(part, key)
            if oname is None:
                continue
            c = part.fns[oname].self_cost
            for a, b in pairs:
                if c.get(a, 0) != c.get(b, 0):
                    problems.append("%s: %s %d != %s %d"
                                    % (key, a, c.get(a, 0), b, c.get(b, 0)))
        saved = obj_test.EVENTS
        obj_test.EVENTS = saved + [a for a, _ in pairs]
        try:
            problems += obj_test.sum_problems(r, part)
        finally:
            obj_test.EVENTS = saved
        return [(name, problems)]
    return run


def host_case():
    def run():
        r = harness.run_tool(harness.OURS, "calls", ["--L2=host"], "l2-host")
        problems = harness.run_problems(r)
        if not problems and not any(
                d.startswith("L2 cache:")
                for d in profiles.parse(r.out).parts[0].descs):
            problems.append("no desc: L2 cache: line")
        return [("l2/host", problems)]
    return run


REFUSED = [
    ["--L2=65536,4,48"],
    ["--L2=65536,3,64"],
    ["--L2=foo"],
    ["--prefetch=streams"],
    ["--prefetch=stream:0"],
    ["--prefetch=stream:x"],
    ["--simulate-hwpref=yes", "--prefetch=stream"],
    ["--miss-class=yes", "--prefetch=stream"],
    ["--objects=yes", "--prefetch=stream"],
    ["--private-caches=yes", "--prefetch=stream"],
]


def refusal_case(opts):
    name = "refused/%s" % " ".join(opts)

    def run():
        r = harness.run_tool(harness.OURS, "calls", opts, "l2-refused")
        return [(name, checks.refusal_problems(r, opts[-1]))]
    return run


def main():
    cases = []
    for client in harness.EXACT_CLIENTS:
        for mode in MODES:
            cases.append(("l2/%s/%s" % (mode, client), l2_case(client, mode)))
    cases.append(("prefetch/stream", stream_case("--prefetch=stream")))
    cases.append(("prefetch/stream-cacheuse", stream_use_case()))
    cases.append(("prefetch/transpose", transpose_case()))
    cases.append(("l2/host", host_case()))
    cases.append(("l2/objects", objects_case()))
    cases += [("l2/private-caches/%s" % c, cores_case(c))
              for c in ("sharing_false", "sharing_true")]
    cases.append(("l2/reuse-dist", reuse_case()))
    cases += [("l2/miss-class/%s" % c, missclass_case(c))
              for c in ("cacheuse", "calls")]
    cases += [("refused/%s" % " ".join(o), refusal_case(o)) for o in REFUSED]
    return harness.run_cases(cases)


if __name__ == "__main__":
    harness.main_guard(main)
