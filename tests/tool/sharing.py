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

3c. The bytes each thread's code touched (clients/sharing_bytes.c, its
   comment): per (thread, function) the runs of bytes read and written,
   derived from the offsets and sizes of the struct's fields that the
   client prints (offsetof, sizeof): thread 2's bump_wide reads `flag`
   and reads and writes `wide`, thread 3's set_narrow writes `narrow`
   and `tiny`; with --read-var-info=yes each run carries its member's
   name (`rec.wide`) and runs are cut where the member changes. Built
   without symbols (-s), the line's five instructions keep five labels
   in its code list, none repeated.

3d. Data objects ranked by the sum over their lines
   (clients/sharing_objects.c): the array `big` (64 lines, phi' 1 each)
   ranks first among the objects, with phi' 64 in 64 lines, although
   the top line is `small`'s (phi' 19); the terminal line names it. As a
   heap block with --objects=yes it is named by its allocation site.

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
    "sharing_bytes": (["sharing_bytes.c"], "gcc", ["-O1", "-pthread"]),
    "sharing_bytes_members": (["sharing_bytes.c"], "gcc", ["-O1", "-pthread"]),
    "sharing_bytes_stripped": (["sharing_bytes.c"], "gcc", ["-O1", "-pthread", "-s"]),
    "sharing_objects": (["sharing_objects.c"], "gcc", ["-O1", "-pthread"]),
    "sharing_objects_heap": (["sharing_objects.c"], "gcc", ["-O1", "-pthread"]),
    "sharing_many_threads": (["sharing_many_threads.c"], "gcc", ["-O1", "-pthread"]),
})
harness.CLIENT_ARGS.update({
    "sharing_clreq_one": ["0"], "sharing_clreq_cut": ["1"],
    "sieve_static1": ["1"], "sieve_chunked": ["0"],
    "fork_join_create": ["create"], "fork_join_join": ["join"],
    "fork_join_overlap": ["overlap"],
    "sharing_objects_heap": ["heap"],
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


def text_blocks(txt):
    """The text report's cache lines: [(header line, [its lines])]."""
    blocks = []
    for line in txt.split("Cache lines by phi'", 1)[-1].splitlines():
        if re.match(r"\s{0,3}\d+\s+\d+\s+\d+\s+\d+\s+\d+\s+0x", line):
            blocks.append((line, []))
        elif blocks and line.startswith("      "):
            blocks[-1][1].append(line.strip())
    return blocks


def field_bytes(stdout):
    """{field: (first byte, last byte)} from the client's offsets line."""
    m = re.search(r"offsets (.*)", stdout)
    words = m.group(1).split() if m else []
    return {words[i]: (int(words[i + 1]), int(words[i + 1]) + int(words[i + 2]) - 1)
            for i in range(0, len(words) - 2, 3)}


def byte_run(first, last, kind, member=None):
    text = ("byte %d" % first if first == last else "bytes %d-%d" % (first, last)) \
        + " " + kind
    return text + (" (rec.%s)" % member if member else "")


def expected_bytes(f, members):
    """The rec line's two (thread, function) lines, from the layout f."""
    runs2 = [byte_run(*f["flag"], "read", members and "flag"),
             byte_run(*f["wide"], "read and written", members and "wide")]
    if members or f["narrow"][1] + 1 != f["tiny"][0]:
        runs3 = [byte_run(*f["narrow"], "written", members and "narrow"),
                 byte_run(*f["tiny"], "written", members and "tiny")]
    else:           # neighbours written alike: one run without names
        runs3 = [byte_run(f["narrow"][0], f["tiny"][1], "written")]
    return ["thread 2, bump_wide: " + "; ".join(runs2),
            "thread 3, set_narrow: " + "; ".join(runs3)]


def bytes_case(client, opts):
    name = "sharing/" + client.replace("_", "-")

    def run():
        r = run_sharing(client, opts, name.replace("/", "-"))
        probs = harness.run_problems(r)
        if probs:
            return [(name, probs)]
        f = field_bytes(r.stdout)
        if sorted(f) != ["flag", "narrow", "tiny", "wide"]:
            return [(name, ["no offsets printed: %r" % r.stdout[:200]])]
        blocks = text_blocks(text_of(r))
        if not blocks:
            return [(name, ["no cache line in the text report"])]
        head, body = blocks[0]          # phi' 399: the struct's line
        if client.endswith("stripped"):
            labels = [l.split(None, 1)[1] for l in body
                      if re.match(r"\d+\s+\S", l) and "(other code)" not in l]
            if len(labels) < 4 or len(set(labels)) != len(labels):
                probs.append("code list of %r: %s (want 4 or more, none repeated)"
                             % (head, labels))
            return [(name, probs)]
        if "rec (%s)" % client not in head:
            probs.append("top line is not rec's: %r" % head)
        want = expected_bytes(f, "--read-var-info=yes" in opts)
        got = [l for l in body if l.startswith("thread ")]
        if got != want:
            probs.append("byte ranges %s, want %s" % (got, want))
        return [(name, probs)]
    return run


def objects_case(client, opts):
    name = "sharing/" + client.replace("_", "-")

    def run():
        r = run_sharing(client, opts, name.replace("/", "-"))
        probs = harness.run_problems(r)
        if probs:
            return [(name, probs)]
        txt = text_of(r)
        if client.endswith("heap"):
            with open(os.path.join(harness.CLIENTS, "sharing_objects.c")) as fh:
                line = next(i for i, l in enumerate(fh, 1) if "big's allocation" in l)
            big = "[heap] main (sharing_objects.c:%d)" % line
        else:
            big = "[static] big_static (%s)" % client
        objs = txt.split("Data objects by phi'", 1)[-1].split("Cache lines by", 1)[0]
        rows = [l.split() for l in objs.splitlines() if re.match(r"\s{0,3}\d+\s+\d", l)]
        if not rows or " ".join(rows[0][6:]).find(big) != 0 or rows[0][1] != "64" \
                or rows[0][5] != "64":
            probs.append("first object %s, want %s with phi' 64 in 64 lines"
                         % (rows[0] if rows else None, big))
        small = [row for row in rows if " ".join(row[6:]).startswith(
            "[static] small (%s)" % client)]
        if not small or small[0][1] != "19" or small[0][5] != "1":
            probs.append("small: %s, want phi' 19 in 1 line" % small)
        blocks = text_blocks(txt)
        if not blocks or "small (%s)" % client not in blocks[0][0]:
            probs.append("top line %r, want small's" % (blocks[0][0] if blocks else None))
        if "most in %s" % big not in r.stderr:
            probs.append("terminal line does not name %s: %s" % (
                big, [l for l in r.stderr.splitlines() if "False sharing" in l]))
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


def many_threads_case():
    """clients/sharing_many_threads.c: ids 2 and 66 share a line alone
    (a line's record told threads apart by tid & 63 before session 27: no
    estimate for it, and the report said 64 threads)."""
    name = "sharing/many-threads"
    iters = 1000

    def run():
        r = run_sharing("sharing_many_threads", [], name)
        probs = harness.run_problems(r)
        if probs:
            return [(name, probs)]
        lines, _ = report_lines(r)
        probs = expect_line(lines, "pair", {"FSe": 4 * iters - 1,
                                            "FSw": 4 * iters - 1, "Xch": 0})
        if not re.search(r"^Threads: 71,", text_of(r), re.M):
            probs.append("report header: %r, want Threads: 71"
                         % text_of(r).splitlines()[2][:60])
        return [(name, probs)]
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
        ("sharing/bytes", bytes_case("sharing_bytes", [])),
        ("sharing/bytes-members",
         bytes_case("sharing_bytes_members", ["--read-var-info=yes"])),
        ("sharing/bytes-stripped", bytes_case("sharing_bytes_stripped", [])),
        ("sharing/objects", objects_case("sharing_objects", [])),
        ("sharing/objects-heap", objects_case("sharing_objects_heap", ["--objects=yes"])),
        ("sharing/single-thread", single_thread_case()),
        ("sharing/many-threads", many_threads_case()),
        ("sharing/penalty", penalty_case()),
        ("sharing/bad-value", bad_value_case()),
    ]
    return harness.run_cases(cases)


if __name__ == "__main__":
    harness.main_guard(main)
