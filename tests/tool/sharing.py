#!/usr/bin/env python3
"""--sharing=yes: the order-independent false sharing estimate.

The formulas themselves are checked against brute force in
tests/unit/test_sharing.c; here the tool around them:

0. In every run's Callgrind-format report, the calls into a data line
   add up to the line's self cost, every event (checked on the sieve).

1. clients/sharing_clreq.c (derivation in its comment): two threads store
   to neighbouring words of one line, handing over through a semaphore.
   Without a cut it is one segment: phi = 199, theta = 0, phi' = 199.
   With CALLGRIND_BD_SEGMENT_END (<valgrind/callgrind-bd.h>) between the
   two: phi = theta = 1, phi' = 0.  Also: the report names the line's data
   (the static variable `line`) and the code that stored to it.

2. examples/false-sharing.c, -O1: the counters' line.  Thread 1 counts the
   3334 multiples of 3 in 0..9999, thread 2 the 3333 in 10000..19999,
   each `counters.of[id].value++` one load and one store (an `addq` to
   memory: one read-modify-write access, which the estimate counts as a
   load and a store, as the thesis does).  Per thread N1 = 6668, N2 =
   6666 accesses, S = 6667 stores, N = 13334: M = min(S, N/2, N - N1,
   N - N2) = 6666, phi = 2M - 1 = 13331 in the counting segment; offsets
   0 and 8 never match: theta = 0.  pthread_barrier_wait ends the segment;
   the main thread then loads both counters: one transfer across the
   barrier, phi = 13332, theta = 1, phi' = 13331, the top line.  (Had the
   barrier not cut, main's two loads would join the segment and M = 6667,
   phi = 13333, theta = 0.)  With -DPAD every counter has its own line,
   which only one thread touches: no line of `counters` is left.

2b. clients/sharing_heap.c with --objects=yes: two threads store to
   neighbouring longs of one line-sized heap block: phi = 199, theta = 0,
   and the line is named by the allocation site exactly as the objects
   profile names the object (named when the second thread comes, while
   the block is allocated).

3. The thesis' prime sieve (clients/sieve_omp.c, OpenMP, libgomp):
   schedule(static,1) puts the bit array `bits` on top of the report;
   schedule(static) (one chunk per thread) leaves no line of it.

3b. The happens-before edges of thread creation and join
   (clients/sharing_fork_join.c, derivations in its comment): a line
   stored by main and then by the thread it creates, or by a thread and
   then by main after joining it, is not shared at all (barrier-only
   segments: phi = 199); two threads storing at once after main's
   sequential initialisation, main's loads after the joins: phi = phi'
   = 199, theta = 0, as without the initialisation and the loads.
   clients/sharing_omp_init.c: the master initialises an array before an
   OpenMP parallel region and sums it after; the threads double one half
   each: no line of the array is shared (no transfer across the region's
   start and end, which fork and join).

4. A single-threaded client: the report says there was nothing to share,
   and the profile is the one of --cache-sim=yes (the option changes
   nothing else).

5. Bad values of --sharing and --sharing-penalty stop before the client.

6. --sharing-penalty scales the cycles column: FScyc = FSe x penalty.
"""

import copy
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "lib"))
from cgbd import cgfile  # noqa: E402
import checks        # noqa: E402
import harness       # noqa: E402

INCLUDE = os.path.join(harness.TOP, "include")
EXAMPLES = os.path.join(harness.TOP, "examples")

_CLREQ = (["sharing_clreq.c"], "gcc", ["-O1", "-pthread", "-I" + INCLUDE])
_EXAMPLE = [os.path.join(EXAMPLES, "false-sharing.c")]
_SIEVE = (["sieve_omp.c"], "gcc", ["-O1", "-fopenmp"])
_FORK_JOIN = (["sharing_fork_join.c"], "gcc", ["-O1", "-pthread"])
# one client name per argument list: cases run in parallel
harness.CLIENT_BUILD.update({
    "sharing_clreq_one": _CLREQ,
    "sharing_clreq_cut": _CLREQ,
    "false_sharing": (_EXAMPLE, "gcc", ["-O1", "-pthread"]),
    "false_sharing_pad": (_EXAMPLE, "gcc", ["-O1", "-pthread", "-DPAD"]),
    "sharing_heap": (["sharing_heap.c"], "gcc", ["-O1", "-pthread"]),
    "sieve_static1": _SIEVE,
    "sieve_chunked": _SIEVE,
    "fork_join_create": _FORK_JOIN,
    "fork_join_join": _FORK_JOIN,
    "fork_join_overlap": _FORK_JOIN,
    "sharing_omp_init": (["sharing_omp_init.c"], "gcc", ["-O1", "-fopenmp"]),
})
harness.CLIENT_ARGS.update({
    "sharing_clreq_one": ["0"], "sharing_clreq_cut": ["1"],
    "sieve_static1": ["1"], "sieve_chunked": ["0"],
    "fork_join_create": ["create"], "fork_join_join": ["join"],
    "fork_join_overlap": ["overlap"],
})

# libgomp's idle threads spin by default; under Valgrind's one-at-a-time
# scheduling that only burns time
os.environ.setdefault("OMP_WAIT_POLICY", "passive")

SHARING = ["--sharing=yes"]
# the "ELF objects" of the report's cache lines, as in the objects profile
DATA_OBS = {"[heap]", "[static]", "[other]"}


def run_sharing(client, opts, tag):
    return harness.run_tool(harness.OURS, client, SHARING + opts, tag)


def report_lines(run):
    """The Callgrind-format report: {line function name: self cost}."""
    prof = cgfile.parse(run.out + ".sharing")
    part = prof.parts[0]
    return {name: f.self_cost for name, f in part.fns.items()
            if f.obs & DATA_OBS}, part


def text_of(run):
    with open(run.out + ".sharing.txt") as fh:
        return fh.read()


def lines_named(lines, data):
    """Report lines whose data name contains `data` (the name is the
    function's, after the address)."""
    return {n: c for n, c in lines.items()
            if re.search(r"\b%s\b" % re.escape(data), n.split(" ", 1)[1])}


def top_line(lines):
    return max(lines.items(), key=lambda kv: (kv[1].get("FSe", 0),
                                              kv[1].get("FSw", 0)))


def expect_line(lines, data, want):
    """The one line of `data` has the costs `want`."""
    named = lines_named(lines, data)
    if len(named) != 1:
        return ["%d report lines name %r (want 1): %s"
                % (len(named), data, sorted(lines)[:5])]
    (name, cost), = named.items()
    got = {e: cost.get(e, 0) for e in want}
    return [] if got == want else ["%s: %s, want %s" % (name, got, want)]


def clreq_case(cut):
    name = "sharing/clreq-%s" % ("cut" if cut else "one-segment")
    want = {"FSe": 0, "FSw": 1, "Xch": 1} if cut else \
        {"FSe": 199, "FSw": 199, "Xch": 0}

    def run():
        r = run_sharing("sharing_clreq_cut" if cut else "sharing_clreq_one",
                        [], name.replace("/", "-"))
        probs = harness.run_problems(r)
        if probs:
            return [(name, probs)]
        lines, _ = report_lines(r)
        probs = expect_line(lines, "line", want)
        txt = text_of(r)
        if not cut and "thread_a (sharing_clreq.c:" not in txt:
            probs.append("text report lacks thread_a's store position")
        return [(name, probs)]
    return run


def heap_case():
    """clients/sharing_heap.c with --objects=yes: the heap line is named by
    its allocation site, as the objects profile names the object."""
    name = "sharing/heap-objects"

    def run():
        r = run_sharing("sharing_heap", ["--objects=yes"], "sharing-heap")
        probs = harness.run_problems(r)
        if probs:
            return [(name, probs)]
        lines, _ = report_lines(r)
        named = {n: c for n, c in lines.items()
                 if n.split(" ", 1)[1].startswith("main (sharing_heap.c:")}
        want = {"FSe": 199, "FSw": 199, "Xch": 0}
        if len(named) != 1:
            probs.append("%d lines named by the allocation site: %s"
                         % (len(named), sorted(lines)[:4]))
        else:
            (n, c), = named.items()
            got = {e: c.get(e, 0) for e in want}
            if got != want:
                probs.append("%s: %s, want %s" % (n, got, want))
            site = n.split(" ", 1)[1]
            objs = cgfile.parse(r.out + ".objects").parts[0].fns
            if "object allocated at " + site not in objs:
                probs.append("%r is not an object of the objects profile"
                             % site)
        return [(name, probs)]
    return run


def example_case(padded):
    client = "false_sharing_pad" if padded else "false_sharing"
    name = "sharing/example-%s" % ("padded" if padded else "unpadded")

    def run():
        r = run_sharing(client, [], name.replace("/", "-"))
        probs = harness.run_problems(r)
        if probs:
            return [(name, probs)]
        lines, part = report_lines(r)
        if padded:
            # each counter's line: one thread in the counting segment, then
            # main's load after the barrier: one transfer (phi = theta = 1)
            named = lines_named(lines, "counters")
            want = {"FSe": 0, "FSw": 1, "Xch": 1}
            bad = {n: c for n, c in named.items()
                   if {e: c.get(e, 0) for e in want} != want}
            if len(named) != 2 or bad:
                probs.append("padded counters: %s, want 2 lines with %s"
                             % (named, want))
        else:
            probs += expect_line(lines, "counters",
                                 {"FSe": 13331, "FSw": 13332, "Xch": 1})
            if lines and "counters" not in top_line(lines)[0]:
                probs.append("top line is %s, not the counters"
                             % top_line(lines)[0])
            txt = text_of(r)
            if "count_multiples (false-sharing.c:" not in txt:
                probs.append("text report lacks count_multiples' position")
            if "[static] counters (%s)" % client not in txt:
                probs.append("the counters are not named as the objects "
                             "profile names them: counters (%s)" % client)
        results = [(name, probs)]
        results.append(checks.annotate_result(name + "/annotate",
                                              _as_run(r.out + ".sharing")))
        return results
    return run


class _as_run:
    """A Run-like object for checks.annotate_result on one file."""

    def __init__(self, path):
        self.out = path

    def files(self):
        return [self.out]


def calls_add_up(lines, part):
    """The calls into every data line add up to its self cost, every
    event (the line's events apportioned to the code that touched it by
    largest remainder, "(other code)" for the positions not kept)."""
    into = {}
    for (caller, callee), arc in part.arcs.items():
        if callee in lines:
            got = into.setdefault(callee, {})
            for e, v in arc.inclusive.items():
                got[e] = got.get(e, 0) + v
    bad = [(n, into.get(n, {}), c) for n, c in lines.items()
           if any(into.get(n, {}).get(e, 0) != v for e, v in c.items())]
    return ["%d of %d lines: calls %s, self %s (%s)" % (len(bad), len(lines), bad[0][1],
                                                       bad[0][2], bad[0][0])] if bad else []


def sieve_case(interleaved):
    name = "sharing/sieve-%s" % ("static1" if interleaved else "chunked")

    def run():
        r = run_sharing("sieve_static1" if interleaved else "sieve_chunked",
                        [], name.replace("/", "-"))
        probs = harness.run_problems(r)
        if probs:
            return [(name, probs)]
        lines, part = report_lines(r)
        probs += calls_add_up(lines, part)
        bits = {n: c for n, c in lines_named(lines, "bits").items()
                if c.get("FSe", 0) > 0}
        if interleaved:
            if not lines or "bits" not in top_line(lines)[0]:
                probs.append("top line is %s, not the bit array"
                             % (top_line(lines)[0] if lines else None))
        elif bits:
            probs.append("chunked: %d lines of bits left, e.g. %s"
                         % (len(bits), next(iter(bits.items()))))
        return [(name, probs)]
    return run


def ordered_case(client, data, want):
    """The line(s) of `data` after thread creation and join: none (want
    None) or one with the costs `want`."""
    name = "sharing/" + client.replace("_", "-")

    def run():
        r = run_sharing(client, [], name.replace("/", "-"))
        probs = harness.run_problems(r)
        if probs:
            return [(name, probs)]
        lines, _ = report_lines(r)
        if want is None:
            named = lines_named(lines, data)
            if named:
                probs.append("%d lines of %s shared, want none: %s"
                             % (len(named), data, sorted(named.items())[:2]))
        else:
            probs += expect_line(lines, data, want)
        return [(name, probs)]
    return run


def single_thread_case():
    name = "sharing/single-thread"

    def run():
        r = run_sharing("calls", [], "sharing-single")
        plain = harness.run_tool(harness.OURS, "calls", ["--cache-sim=yes"],
                                 "sharing-single", name="plain.out")
        probs = harness.run_problems(r)
        if not probs:
            txt = text_of(r)
            if "Nothing to share: the program ran a single thread." not in txt:
                probs.append("report does not say nothing was shared: %r"
                             % txt[:300])
            lines, part = report_lines(r)
            if lines:
                probs.append("lines in the report: %s" % sorted(lines)[:3])
            if "nothing to share" not in r.stderr:
                probs.append("no summary line on the terminal")
        # The report's summary line is what --sharing adds to the exit
        # summary; the rest must be the plain run's.
        same = copy.copy(r)
        same.stderr = "\n".join(l for l in r.stderr.splitlines()
                                if "False sharing:" not in l)
        return [(name, probs),
                checks.compare_check(name + "/profile-unchanged", same, plain)]
    return run


def penalty_case():
    name = "sharing/penalty"

    def run():
        r = run_sharing("sharing_clreq_one", ["--sharing-penalty=7"],
                        "sharing-penalty")
        probs = harness.run_problems(r)
        if not probs:
            lines, part = report_lines(r)
            for n, c in lines.items():
                if c.get("FScyc", 0) != 7 * c.get("FSe", 0):
                    probs.append("%s: FScyc %s != 7 x FSe %s"
                                 % (n, c.get("FScyc"), c.get("FSe")))
            if "penalty: 7 cycles" not in text_of(r):
                probs.append("text report does not state the penalty")
        return [(name, probs)]
    return run


def bad_value_case():
    name = "sharing/bad-value"

    def run():
        probs = []
        for opts in (["--sharing=maybe"], ["--sharing="],
                     ["--sharing-penalty=0"], ["--sharing-penalty=-5"],
                     ["--sharing-penalty=12x"],
                     ["--sharing-penalty=100000000"],
                     # offsets in a line are kept in a byte
                     ["--sharing=yes", "--D1=65536,2,512"]):
            opt = opts[-1]
            r = harness.run_tool(harness.OURS, "marker", opts, "sharing-bad")
            probs += checks.refusal_problems(r, opt)
        return [(name, probs)]
    return run


def main():
    cases = [
        ("sharing/clreq-one-segment", clreq_case(0)),
        ("sharing/clreq-cut", clreq_case(1)),
        ("sharing/example-unpadded", example_case(False)),
        ("sharing/example-padded", example_case(True)),
        ("sharing/heap-objects", heap_case()),
        ("sharing/sieve-static1", sieve_case(True)),
        ("sharing/sieve-chunked", sieve_case(False)),
        ("sharing/fork-join-create",
         ordered_case("fork_join_create", "line", None)),
        ("sharing/fork-join-join",
         ordered_case("fork_join_join", "line", None)),
        ("sharing/fork-join-overlap",
         ordered_case("fork_join_overlap", "line",
                      {"FSe": 199, "FSw": 199, "Xch": 0})),
        ("sharing/omp-init", ordered_case("sharing_omp_init", "data", None)),
        ("sharing/single-thread", single_thread_case()),
        ("sharing/penalty", penalty_case()),
        ("sharing/bad-value", bad_value_case()),
    ]
    return harness.run_cases(cases)


if __name__ == "__main__":
    harness.main_guard(main)
