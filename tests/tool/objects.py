#!/usr/bin/env python3
"""Data objects (--objects=yes) on tests/clients/objects.c.

The cache geometry makes the hand derivation below clean: 64-byte lines
everywhere, an 8-way D1 (the few stack lines a loop touches never evict
the array line it is reading), and an 8 MiB 16-way LL that holds the
whole program, so every LL line leaves only at the final flush, after the
D1 lines were flushed and merged into it.

Cache use of a 64-byte line: one mask bit per 2 bytes; AcCost = 1000 /
accesses while cached (integer division); SpLoss = (32 - bits set) * 64
/ 32. The LL line of an object line starts with count 0 and gets the D1
line's count and mask when the D1 line leaves, so at the final flush its
AcCost2/SpLoss2 equal the D1 line's AcCost1/SpLoss1.

The client touches each measured line only in one loop (never the first
or last line of a heap block, which the allocator may write), and lines
are cold when first touched, so:

  stream (posix_memalign, lines 1..512, one 4-byte read per line):
    per line 1 access, 1 D1 miss, 1 LL miss; 4 bytes used = 2 bits:
    AcCost1 = 1000, SpLoss1 = 30 * 64 / 32 = 60; AcCost2/SpLoss2 the same.
    x 512: Dr 512, D1mr 512, DLmr 512, AcCost 512000, SpLoss 30720.
  full (aligned_alloc, lines 1..256, all 16 ints of each line read):
    per line 16 accesses, 1 miss each level, all 32 bits set:
    AcCost = 1000 / 16 = 62, SpLoss = 0.
    x 256: Dr 4096, D1mr 256, DLmr 256, AcCost 15872, SpLoss 0.
  table (static, 128 lines, first 8 ints = 32 bytes = 16 bits read):
    per line 8 accesses: AcCost = 1000 / 8 = 125, SpLoss = 16 * 64 / 32
    = 32. x 128: Dr 1024, D1mr 128, DLmr 128, AcCost 16000, SpLoss 4096.
  rbuf (aligned_alloc'ed, realloc'ed; one int written in lines 1..30
    before the realloc, 66..126 after): 91 lines like stream's, written:
    Dw 91, D1mw 91, DLmw 91, AcCost 91000, SpLoss 5460. The realloc grows
    the block in place (it is the last chunk before the top), so its
    lines are not copied; the realloc'ed block keeps the object of the
    site that allocated it.
  mapped (mmap'ed directly, page-aligned, one int written in lines
    1..100): like rbuf's lines, x 100: Dw 100, D1mw 100, DLmw 100,
    AcCost 100000, SpLoss 6000.

Also checked: the sums over objects equal the profile's totals for every
event; 1000 rows allocated in a loop are one object; every call arc of
the objects profile carries exactly the inclusive cost of the same arc in
the profile (off call cycles); the profile itself is the same with and
without --objects (up to the loader's known run-to-run AcCost noise); callgrind_annotate reads the objects profile; the
offset histogram; a realloc that moves the block; a bad granularity.
"""

import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "lib"))
import annotate_check  # noqa: E402
import checks          # noqa: E402
from cgbd import cgfile          # noqa: E402
import conservation    # noqa: E402
import harness         # noqa: E402

HEAP = "object allocated at "      # how a heap object's name begins

GEOM = ["--I1=32768,8,64", "--D1=32768,8,64", "--LL=8388608,16,64"]
OPTS = GEOM + ["--cacheuse=yes"]
EVENTS = ["Dr", "Dw", "D1mr", "D1mw", "DLmr", "DLmw",
          "AcCost1", "SpLoss1", "AcCost2", "SpLoss2"]


def per_line(n, reads, writes, accost, sploss):
    """Costs of n cold lines, each accessed reads+writes times while
    cached (see the module docstring)."""
    return {"Dr": n * reads, "Dw": n * writes,
            "D1mr": n if reads else 0, "D1mw": n if writes else 0,
            "DLmr": n if reads else 0, "DLmw": n if writes else 0,
            "AcCost1": n * accost, "SpLoss1": n * sploss,
            "AcCost2": n * accost, "SpLoss2": n * sploss}


EXPECTED = {
    "stream": per_line(512, 1, 0, 1000, 60),
    "full": per_line(256, 16, 0, 1000 // 16, 0),
    "table": per_line(128, 8, 0, 1000 // 8, (32 - 16) * 64 // 32),
    "rbuf": per_line(91, 0, 1, 1000, (32 - 2) * 64 // 32),
    "mapped": per_line(100, 0, 1, 1000, (32 - 2) * 64 // 32),
}

# The allocating line of each heap object, found in the client's source.
MARKERS = {"stream": "posix_memalign((void **)&stream",
           "full": "full = aligned_alloc",
           "rbuf": "rbuf = aligned_alloc"}


def source_line(marker):
    path = os.path.join(harness.CLIENTS, "objects.c")
    with open(path) as fh:
        for n, line in enumerate(fh, 1):
            if marker in line:
                return n
    raise RuntimeError("marker %r not in objects.c" % marker)


def object_name(part, key):
    if key == "table":
        return "table (objects)"
    if key == "mapped":
        names = [n for n in part.fns if n.startswith(HEAP + "map_region (objects.c:")]
        return names[0] if len(names) == 1 else None
    prefix = HEAP + "main (objects.c:%d)" % source_line(MARKERS[key])
    names = [n for n in part.fns if n.startswith(prefix)]
    return names[0] if len(names) == 1 else None


def run(opts, tag, args=None):
    client_args = harness.CLIENT_ARGS.get("objects")
    if args is not None:
        harness.CLIENT_ARGS["objects"] = args
    try:
        return harness.run_tool(harness.OURS, "objects", opts, tag)
    finally:
        if args is not None:
            if client_args is None:
                del harness.CLIENT_ARGS["objects"]
            else:
                harness.CLIENT_ARGS["objects"] = client_args


def objects_part(r):
    return cgfile.parse(r.out + ".objects").merged()


def derived_problems(part):
    problems = []
    for key, want in EXPECTED.items():
        name = object_name(part, key)
        if name is None:
            problems.append("object %s not found (or not unique)" % key)
            continue
        got = part.fns[name].self_cost
        bad = ["%s %d (expected %d)" % (e, got.get(e, 0), want[e])
               for e in EVENTS if got.get(e, 0) != want[e]]
        if bad:
            problems.append("%s [%s]: %s" % (key, name, ", ".join(bad)))
    return problems


def sum_problems(r, part):
    prof = cgfile.parse(r.out).merged()
    problems = []
    selfsum = part.self_total()
    for e in EVENTS:
        t = (prof.totals or {}).get(e, 0)
        if selfsum.get(e, 0) != t:
            problems.append("%s: sum over objects %d, profile totals %d"
                            % (e, selfsum.get(e, 0), t))
        if (part.totals or {}).get(e, 0) != t:
            problems.append("%s: objects totals: %d, profile totals %d"
                            % (e, (part.totals or {}).get(e, 0), t))
    if not prof.totals or prof.totals.get("Dr", 0) == 0:
        problems.append("no data reads in the profile: vacuous")
    return problems


def object_definitions(path):
    """Names of the objects written (fn= lines under ob=[heap], [static]
    or [other]), with repetitions."""
    names, ob = [], None
    with open(path) as fh:
        for line in fh:
            if line.startswith("ob="):
                ob = line[3:].strip()
            elif line.startswith("fn=") and ob in ("[heap]", "[static]", "[other]"):
                names.append(line[3:].strip())
    return names


def rows_problems(r, part):
    defs = object_definitions(r.out + ".objects")
    twice = sorted({n for n in defs if defs.count(n) > 1})
    if twice:
        return ["objects written more than once (one site split?): %s"
                % twice[:3]]
    rows = [n for n in part.fns if n.startswith(HEAP + "make_row (objects.c:")]
    if len(rows) != 1:
        return ["%d objects allocated by make_row, expected 1: %s"
                % (len(rows), rows[:3])]
    if "< make_rows (objects.c:" not in rows[0]:
        return ["caller frame missing from the name %r" % rows[0]]
    dw = part.fns[rows[0]].self_cost.get("Dw", 0)
    if dw != 1000:
        return ["rows object: Dw %d, expected 1000 (one write per row)" % dw]
    return []


def arc_problems(part, prof, skip):
    """(problems, arcs compared): each arc of the objects profile sums the
    arc's costs over all objects, so it must equal the profile's inclusive
    cost of that arc; arcs touching a function of `skip` are left out."""
    problems, checked = [], 0
    for (a, b), arc in sorted(part.arcs.items()):
        if (a, b) not in prof.arcs or a in skip or b in skip:
            continue
        checked += 1
        theirs = prof.arcs[(a, b)].inclusive
        bad = ["%s %d != %d" % (e, arc.inclusive.get(e, 0), theirs.get(e, 0))
               for e in EVENTS if arc.inclusive.get(e, 0) != theirs.get(e, 0)]
        if bad:
            problems.append("arc %s -> %s: %s" % (a, b, ", ".join(bad)))
    return problems, checked


def inclusive_problems(r, part):
    """The objects profile's arcs against the profile's, off call cycles."""
    prof = cgfile.parse(r.out).merged()
    problems, checked = arc_problems(part, prof,
                                     conservation.cyclic_functions(prof))
    if ("main", "read_stream") not in part.arcs or checked < 10:
        problems.append("only %d arcs compared" % checked)
    return problems[:10]


def unchanged_result(with_objects, without):
    """Same profile with and without --objects: the self cost of every
    function for every event, call counts and inclusive immediate costs
    of every arc, totals. Back-dated self costs of the few loader string
    functions that vary run to run are forgiven only if they vary between
    repeated runs without --objects (checks.compare_check)."""
    return checks.compare_check(
        "objects/unchanged", with_objects, without,
        rerun_ref=lambda i: run(OPTS, "objects-off-%d" % i))


def histogram_problems(r):
    """With --object-granularity=64 the stream object's "lines" are its
    64-byte granules: granules 2..513 (lines 1..512 of the block) each
    hold one line's costs, and nothing else is in the object."""
    part = objects_part(r)
    name = object_name(part, "stream")
    if name is None:
        return ["stream object not found"]
    granules = {}
    text = open(r.out + ".objects").read().split("\n")
    i = text.index("fn=" + name) + 1
    while i < len(text) and re.match(r"^\d+ ", text[i]):
        toks = [int(t) for t in text[i].split()]
        granules[toks[0]] = toks[1:]
        i += 1
    one = [EXPECTED["stream"][e] // 512 for e in part.events]
    while one and one[-1] == 0:
        one.pop()
    problems = []
    if sorted(granules) != list(range(2, 514)):
        problems.append("granules written: %d, from %s to %s"
                        % (len(granules), min(granules or [0]),
                           max(granules or [0])))
    bad = [g for g, c in granules.items() if c != one]
    if bad:
        problems.append("granule %d costs %s, expected %s"
                        % (bad[0], granules[bad[0]], one))
    return problems


def main_cases():
    r = run(OPTS + ["--objects=yes"], "objects")
    plain = run(OPTS, "objects-off")
    problems = harness.run_problems(r) + harness.run_problems(plain)
    if problems:
        return [("objects/run", problems)]
    if "in place" not in r.stdout:
        return [("objects/derived", ["the realloc moved the block; the "
                                     "derivation assumes growth in place"])]
    part = objects_part(r)
    return [
        ("objects/derived", derived_problems(part)),
        ("objects/sums", sum_problems(r, part)),
        ("objects/rows", rows_problems(r, part)),
        ("objects/inclusive", inclusive_problems(r, part)),
        unchanged_result(r, plain),
        ("objects/annotate", annotate_check.check_annotate(r.out + ".objects")),
    ]


def histogram_case():
    r = run(OPTS + ["--objects=yes", "--object-granularity=64"], "objects-hist")
    problems = harness.run_problems(r)
    if not problems:
        problems = histogram_problems(r)
        problems += sum_problems(r, objects_part(r))
        problems += annotate_check.check_annotate(r.out + ".objects")
    return [("objects/histogram", problems)]


def coarse_histogram_case():
    """The cache-use example's 8 MiB static array `big` needs 131072
    granules of 64 bytes: its granularity doubles to 128 bytes (65536
    granules), and no cost is lost on the way."""
    r = harness.run_tool(harness.OURS, "cacheuse",
                         OPTS + ["--objects=yes", "--object-granularity=64"],
                         "objects-coarse")
    problems = harness.run_problems(r)
    if problems:
        return [("objects/histogram-coarse", problems)]
    text = open(r.out + ".objects").read()
    if "fl=(offset granules of 128 bytes)\nfn=big (cacheuse)\n" not in text:
        problems.append("big is not written with 128-byte granules")
    problems += sum_problems(r, objects_part(r))
    return [("objects/histogram-coarse", problems)]


def move_case():
    """A realloc that moves the block: the moved block keeps its object
    (accesses after the move are the object's), counted exactly."""
    r = run(OPTS + ["--objects=yes"], "objects-move", ["move"])
    problems = harness.run_problems(r)
    if not problems:
        if "moved" not in r.stdout:
            problems.append("the realloc did not move the block")
        part = objects_part(r)
        name = object_name(part, "rbuf")
        dw = part.fns[name].self_cost.get("Dw", 0) if name else None
        if dw != 91:
            problems.append("rbuf object %s: Dw %s, expected 91" % (name, dw))
        problems += sum_problems(r, part)
    return [("objects/move", problems)]


def bad_option_case():
    r = run(GEOM + ["--objects=yes", "--object-granularity=32"], "objects-bad")
    problems = []
    if r.returncode == 0:
        problems.append("accepted a granule below the line size")
    if "--object-granularity" not in r.stderr:
        problems.append("error does not name the option: %s"
                        % r.stderr.strip().splitlines()[-1:])
    if "realloc" in r.stdout:
        problems.append("the client ran")
    return [("objects/bad-granularity", problems)]


# Clients with threads, signal handlers, longjmp, exceptions, dlopen, and
# one that dies of SIGSEGV (its last block never completes: like the
# profile, the objects profile keeps that block's costs out of self costs
# and in the arcs around it). Expected exit status of valgrind.
OTHER_CLIENTS = {"threads": 0, "signal": 0, "siglongjmp": 0, "longjmp": 0,
                 "exception": 0, "dlopen": 0, "tailcall": 0, "segv": -11}


def recursion_levels(prof):
    """Functions the profile splits by recursion level (fn'2): the objects
    profile does not, so their arcs are not compared."""
    return {n.split("'")[0] for n in prof.fns if "'" in n}


def client_case(client):
    """Sums over objects equal the totals; arcs carry the profile's
    inclusive costs off call cycles and recursion levels."""
    r = run_other(client)
    problems = harness.run_problems(r, OTHER_CLIENTS[client])
    if problems:
        return [("objects/client/" + client, problems)]
    part = objects_part(r)
    prof = cgfile.parse(r.out).merged()
    skip = conservation.cyclic_functions(prof) | recursion_levels(prof)
    arc_probs, checked = arc_problems(part, prof, skip)
    problems = sum_problems(r, part) + arc_probs
    if checked < 10:
        problems.append("only %d arcs compared" % checked)
    return [("objects/client/" + client, problems[:10])]


def run_other(client):
    return harness.run_tool(harness.OURS, client, OPTS + ["--objects=yes"],
                            "objects-" + client)


def cxx_case():
    """operator new[] and a loop of operator new: one object each; the
    list's object has the list's accesses (100 nodes: 2 writes each when
    built, 2 reads each when summed, 1 read each when deleted)."""
    r = harness.run_tool(harness.OURS, "objects_cxx", OPTS + ["--objects=yes"],
                         "objects-cxx")
    problems = harness.run_problems(r)
    if problems:
        return [("objects/cxx", problems)]
    part = objects_part(r)
    lists = [n for n in part.fns if n.startswith(HEAP + "make_list(int) (")]
    arrays = [n for n in part.fns if n.startswith(HEAP + "main (objects_cxx.cc:")]
    if len(lists) != 1 or len(arrays) != 1:
        problems.append("objects: %s / %s" % (lists, arrays))
    else:
        got = part.fns[lists[0]].self_cost
        if (got.get("Dw", 0), got.get("Dr", 0)) != (200, 300):
            problems.append("list object Dw %d Dr %d, expected 200 300"
                            % (got.get("Dw", 0), got.get("Dr", 0)))
        if part.fns[arrays[0]].self_cost.get("Dw", 0) != 256:
            problems.append("array object: %s" % part.fns[arrays[0]].self_cost)
    return [("objects/cxx", problems + sum_problems(r, part))]


def main():
    others = [("objects-" + c, lambda c=c: client_case(c))
              for c in OTHER_CLIENTS]
    return harness.run_cases(others + [("objects-cxx", cxx_case),
                                       ("objects-coarse", coarse_histogram_case),
                                       ("objects", main_cases),
                              ("objects-hist", histogram_case),
                              ("objects-move", move_case),
                              ("objects-bad", bad_option_case)])


if __name__ == "__main__":
    harness.main_guard(main)
