#!/usr/bin/env python3
"""Data objects across dumps and zeroing (--objects=yes with
CALLGRIND_DUMP_STATS, CALLGRIND_ZERO_STATS, --dump-every-bb,
--combine-dumps, --separate-threads).

Every profile file (part) written gets <file>.objects with the object
costs of the same part. Checked per part, as objects.py checks the single
part at exit:
  - the sum over objects equals that part's totals for every data event,
    and the objects file's totals: line says the same;
  - every call arc of the objects part carries exactly the inclusive cost
    of the same arc in the profile's part (off call cycles).
Also: cutting a run into parts loses or repeats nothing -- on objects.c
cut by --dump-every-bb, every object's costs summed over all parts equal
those of the same run without dumps (whose values objects.py derives by
hand), including back-dated costs of lines loaded in one part and evicted
in another, and the accesses of the block running at each dump (which the
profile writes in a later part).
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "lib"))
from cgbd import cgfile          # noqa: E402
import conservation    # noqa: E402
import harness         # noqa: E402

GEOM = ["--I1=32768,8,64", "--D1=32768,8,64", "--LL=262144,8,64"]
OPTS = GEOM + ["--cacheuse=yes", "--objects=yes"]
EVENTS = ["Dr", "Dw", "D1mr", "D1mw", "DLmr", "DLmw",
          "AcCost1", "SpLoss1", "AcCost2", "SpLoss2"]


def recursion_levels(prof):
    return {n.split("'")[0] for n in prof.fns if "'" in n}


def part_problems(tag, prof, objs, need_data=True):
    """objs (objects part) against prof (the profile's part)."""
    problems = []
    selfsum = objs.self_total()
    for e in EVENTS:
        t = (prof.totals or {}).get(e, 0)
        if selfsum.get(e, 0) != t:
            problems.append("%s: %s: sum over objects %d, part totals %d"
                            % (tag, e, selfsum.get(e, 0), t))
        if (objs.totals or {}).get(e, 0) != t:
            problems.append("%s: %s: objects totals: %d, part totals %d"
                            % (tag, e, (objs.totals or {}).get(e, 0), t))
    if need_data and not (prof.totals or {}).get("Dr", 0):
        problems.append("%s: no data reads in the part: vacuous" % tag)
    skip = conservation.cyclic_functions(prof) | recursion_levels(prof)
    for (a, b), arc in sorted(objs.arcs.items()):
        if (a, b) not in prof.arcs or a in skip or b in skip:
            continue
        theirs = prof.arcs[(a, b)].inclusive
        bad = ["%s %d != %d" % (e, arc.inclusive.get(e, 0), theirs.get(e, 0))
               for e in EVENTS if arc.inclusive.get(e, 0) != theirs.get(e, 0)]
        if bad:
            problems.append("%s: arc %s -> %s: %s" % (tag, a, b, ", ".join(bad)))
    # an arc of the profile with data costs must be in the objects part
    for (a, b), arc in sorted(prof.arcs.items()):
        if a in skip or b in skip or (a, b) in objs.arcs:
            continue
        if any(arc.inclusive.get(e, 0) for e in EVENTS):
            problems.append("%s: arc %s -> %s with data costs missing"
                            % (tag, a, b))
    return problems


def profile_files(r):
    return [f for f in r.files() if not f.endswith(".objects")]


def files_problems(r, want_parts):
    problems = []
    files = profile_files(r)
    if len(files) != want_parts:
        return ["%d profile files, expected %d: %s"
                % (len(files), want_parts, [os.path.basename(f) for f in files])]
    for f in files:
        if not os.path.exists(f + ".objects"):
            problems.append("no %s.objects" % os.path.basename(f))
            continue
        problems += part_problems(os.path.basename(f),
                                  cgfile.parse(f).merged(),
                                  cgfile.parse(f + ".objects").merged())
    return problems


def clreq_case():
    """clreq.c: four dumps (each from a block running for the first time
    in its part), a zero, collection toggled, instrumentation stopped."""
    r = harness.run_tool(harness.OURS, "clreq", OPTS, "objects-clreq")
    problems = harness.run_problems(r) or files_problems(r, 5)
    return [("objects-dumps/clreq", problems[:10])]


def combined_case():
    """--combine-dumps=yes: one objects file with a part per dump."""
    r = harness.run_tool(harness.OURS, "clreq", OPTS + ["--combine-dumps=yes"],
                         "objects-combined")
    problems = harness.run_problems(r)
    if not problems:
        prof = cgfile.parse(r.out)
        objs = cgfile.parse(r.out + ".objects")
        if len(prof.parts) != 5 or len(objs.parts) != len(prof.parts):
            problems.append("parts: profile %d, objects %d (expected 5)"
                            % (len(prof.parts), len(objs.parts)))
        else:
            for p, o in zip(prof.parts, objs.parts):
                problems += part_problems("part %d" % p.number, p, o)
    return [("objects-dumps/combined", problems[:10])]


def object_costs(paths):
    """Self cost of every object summed over the objects files."""
    total = {}
    for p in paths:
        for name, f in cgfile.parse(p).merged().fns.items():
            if any(f.self_cost.get(e, 0) for e in EVENTS):
                cgfile.add_cost(total.setdefault(name, {}), f.self_cost)
    return total


def every_bb_case():
    """objects.c cut into parts by --dump-every-bb: each part is exact,
    and no object gains or loses a cost against the run without dumps."""
    whole = harness.run_tool(harness.OURS, "objects", OPTS, "objects-whole")
    r = harness.run_tool(harness.OURS, "objects",
                         OPTS + ["--dump-every-bb=20000"], "objects-every-bb")
    problems = harness.run_problems(whole) + harness.run_problems(r)
    if problems:
        return [("objects-dumps/every-bb", problems)]
    files = profile_files(r)
    if len(files) < 4:
        return [("objects-dumps/every-bb", ["only %d parts" % len(files)])]
    for f in files:
        problems += part_problems(os.path.basename(f), cgfile.parse(f).merged(),
                                  cgfile.parse(f + ".objects").merged(),
                                  need_data=False)
    cut = object_costs([f + ".objects" for f in files])
    one = object_costs([whole.out + ".objects"])
    heap = [n for n in one if "(objects.c:" in n]
    if len(heap) < 3:
        problems.append("heap objects of objects.c: %s" % heap)
    # the loader's few run-to-run AcCost differences (see objects.py) are
    # not in objects.c's own objects
    for name in heap + ["table (objects)"]:
        a, b = one.get(name, {}), cut.get(name, {})
        bad = ["%s %d != %d" % (e, b.get(e, 0), a.get(e, 0))
               for e in EVENTS if a.get(e, 0) != b.get(e, 0)]
        if bad:
            problems.append("%s summed over parts: %s" % (name, ", ".join(bad)))
    return [("objects-dumps/every-bb", problems[:10])]


def histogram_case():
    """With --object-granularity the self costs are the granules': held
    costs of the running block move with the cell to the next part."""
    r = harness.run_tool(harness.OURS, "objects",
                         OPTS + ["--dump-every-bb=20000", "--object-granularity=64"],
                         "objects-every-bb-hist")
    problems = harness.run_problems(r)
    if not problems:
        for f in profile_files(r):
            problems += part_problems(os.path.basename(f), cgfile.parse(f).merged(),
                                      cgfile.parse(f + ".objects").merged(),
                                      need_data=False)
    return [("objects-dumps/histogram", problems[:10])]


def threads_case():
    """zero_threads.c with --separate-threads=yes: main zeroes only its own
    costs; one objects file per thread, each exact against its thread's
    profile file."""
    r = harness.run_tool(harness.OURS, "zero_threads",
                         OPTS + ["--separate-threads=yes"], "objects-threads")
    problems = harness.run_problems(r)
    if problems and "wrote no" in problems[0]:
        problems = []           # the plain name is not written per thread
    files = [f for f in profile_files(r) if f.endswith(("-01", "-02"))]
    if len(files) != 2:
        problems.append("files %s" % [os.path.basename(f) for f in r.files()])
    for f in files:
        if not os.path.exists(f + ".objects"):
            problems.append("no %s.objects" % os.path.basename(f))
            continue
        problems += part_problems(os.path.basename(f), cgfile.parse(f).merged(),
                                  cgfile.parse(f + ".objects").merged())
    if os.path.exists(r.out + ".objects"):
        problems.append("an objects file for all threads was written too")
    return [("objects-dumps/separate-threads", problems[:10])]


def zero_shared_case():
    """zero_threads.c, one profile: the zero acts on both threads."""
    r = harness.run_tool(harness.OURS, "zero_threads", OPTS, "objects-zero")
    problems = harness.run_problems(r) or files_problems(r, 1)
    return [("objects-dumps/zero", problems[:10])]


def bad_combination_case():
    r = harness.run_tool(harness.OURS, "clreq",
                         OPTS + ["--separate-threads=yes", "--object-granularity=64"],
                         "objects-bad-threads")
    problems = []
    if r.returncode == 0:
        problems.append("accepted --object-granularity with --separate-threads=yes")
    if "--object-granularity" not in r.stderr:
        problems.append("error does not name the option")
    if "clreq:" in r.stdout:
        problems.append("the client ran")
    return [("objects-dumps/bad-combination", problems)]


def main():
    return harness.run_cases([("objects-clreq", clreq_case),
                              ("objects-combined", combined_case),
                              ("objects-every-bb", every_bb_case),
                              ("objects-every-bb-hist", histogram_case),
                              ("objects-threads", threads_case),
                              ("objects-zero", zero_shared_case),
                              ("objects-bad-threads", bad_combination_case)])


if __name__ == "__main__":
    harness.main_guard(main)
