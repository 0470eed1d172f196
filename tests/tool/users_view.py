#!/usr/bin/env python3
"""What a user reads: annotate views, event descriptions, warnings.

- annotate-dirs: `callgrind_annotate --tree=caller` of the objects profile
  gives the same view from the source directory (a prefix of the file
  names, which callgrind_annotate 3.19 shortens where a function is
  defined, `fl=`, but not where it is called, `cfi=`) as from `/`: every
  data object is listed once, with the same callers and costs, and heap
  objects have callers. No `cfi=` names the current file. Both views of
  the main profile and of the objects profile list exactly the functions
  twice that callgrind_annotate lists twice for the reference Callgrind's
  profile of the same run (functions called from another file: its own
  fault, documented in the manual), so the writer adds no duplicate.
- objects-calls: in the objects profile an arc into an object has
  calls=1 (accesses are Dr + Dw, not calls) and an arc between two
  functions the main profile's call count (make_rows -> make_row: 1000,
  main -> write_lines: 2); callgrind_annotate shows them that way.
- event-names: every cache-use event (and the other events of ours) has
  an `event: <name> : <long name>` line in the profile and the objects
  profile; events of the reference that it gives no long name get none.
- help: `--help` points to callgrind-bd_control (not the reference's
  controller), says what SpLoss/AcCost mean and in which unit, and that
  bugs go to callgrind-bd's authors.
- pattern-warnings: a function pattern that matched no function is named
  at exit, once per option; a run that collected nothing says so; a
  pattern that matched says nothing.
- cache-desc: without cache simulation the `desc: I1/D1/LL cache:` lines
  are empty, as the reference writes them; with it they give the
  simulated geometry (the same as the reference's).
"""

import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "lib"))
import cgfile          # noqa: E402
import harness         # noqa: E402

OPTS = ["--cacheuse=yes", "--I1=32768,8,64", "--D1=32768,8,64",
        "--LL=8388608,16,64"]
SRC = harness.CLIENTS      # objects.c lives here: a prefix of its name


def annotate(profile, cwd):
    p = subprocess.run(["callgrind_annotate", "--tree=caller",
                        "--inclusive=yes", "--threshold=100", "--auto=no",
                        profile], cwd=cwd, capture_output=True, text=True,
                       timeout=harness.RUN_TIMEOUT)
    if p.returncode != 0:
        raise RuntimeError("callgrind_annotate failed in %s: %s"
                           % (cwd, p.stderr.strip()[-300:]))
    return p.stdout


def blocks(view, strip=""):
    """The --tree=caller entries: function (its '*' line's name) ->
    its lines (callers and itself); names with `strip` removed."""
    out, cur = {}, []
    body = view.split("file:function", 2)[-1]
    for line in body.splitlines():
        if strip:
            line = line.replace(strip, "")
        if not line.strip() or line.startswith("-" * 10):
            cur = []
            continue
        cur.append(line)
        m = re.search(r"\*\s+(.*)$", line)
        if m:
            name = m.group(1)
            if name in out:
                out[name + " #dup"] = cur
            out[name] = cur
            cur = []
    return out


def twice(view, srcdir):
    """Functions listed twice: under a file name below srcdir as written
    (where it is called) and shortened (where it is defined)."""
    names = {re.sub(r" \[[^]]*\]$", "", n) for n in blocks(view)}
    prefix = srcdir + "/"
    return {n[len(prefix):] for n in names
            if n.startswith(prefix) and n[len(prefix):] in names}


def same_file_cfi(path):
    """cfi= lines naming the file that is current anyway."""
    names, cur, bad = {}, None, 0
    for line in open(path, errors="replace"):
        m = re.match(r"^(fl|fi|fe|cfi|cfl)=(.*)$", line.rstrip("\n"))
        if not m:
            continue
        v = m.group(2)
        c = re.match(r"^\((\d+)\)\s?(.*)$", v)
        if c:
            v = names.setdefault(c.group(1), c.group(2)) if c.group(2) \
                else names.get(c.group(1))
        if m.group(1) in ("fl", "fi", "fe"):
            cur = v
        elif v == cur:
            bad += 1
    return bad


def is_object_entry(name):
    return re.search(r"\[\[(heap|static|other)\]\]$", name) is not None


def check_dirs():
    ours = harness.run_tool(harness.OURS, "objects", OPTS + ["--objects=yes"],
                            "users-dirs")
    ref = harness.run_tool(harness.REF, "objects", OPTS, "users-dirs")
    problems = harness.run_problems(ours) + harness.run_problems(ref)
    if problems:
        return [("users/annotate-dirs", problems)]
    objects = ours.out + ".objects"
    src_view = annotate(objects, SRC)
    root_view = annotate(objects, "/")
    here, there = blocks(src_view), blocks(root_view, SRC + "/")
    # callers of equal cost come in either order
    objs_here = {n: sorted(b) for n, b in here.items() if is_object_entry(n)}
    objs_there = {n: sorted(b) for n, b in there.items() if is_object_entry(n)}
    heap = [n for n in objs_there if n.endswith("[[heap]]")]
    if not heap:
        problems.append("no heap object in the view from /")
    if objs_here != objs_there:
        diff = sorted(n for n in set(objs_here) | set(objs_there)
                      if objs_here.get(n) != objs_there.get(n))
        problems.append("objects read differently from %s and from /: %s"
                        % (SRC, diff[:3]))
    for n in heap:
        if not any("  < " in l for l in there[n]):
            problems.append("heap object without callers: %s" % n)
    if any(n.endswith(" #dup") for n in objs_here):
        problems.append("an object listed twice from %s" % SRC)
    bad = same_file_cfi(objects)
    if bad:
        problems.append("%d cfi= lines name the current file" % bad)
    # the writer adds no duplicate callgrind_annotate does not make for
    # the reference's own profile
    ref_twice = twice(annotate(ref.out, SRC), SRC)
    for label, path in (("profile", ours.out), ("objects profile", objects)):
        extra = twice(annotate(path, SRC), SRC) - ref_twice
        if extra:
            problems.append("%s: listed twice from %s, unlike the reference's "
                            "profile: %s" % (label, SRC, sorted(extra)[:4]))
    return [("users/annotate-dirs", problems)]


OBJECT_OBS = ("[heap]", "[static]", "[other]")


def object_call_counts(path):
    """calls= values of the arcs into objects, read line by line."""
    counts, cob = [], None
    for line in open(path, errors="replace"):
        if line.startswith("cob="):
            cob = line[4:].strip()
        elif line.startswith("calls=") and cob in OBJECT_OBS:
            counts.append(int(line[6:].split()[0]))
        if line.startswith("calls="):
            cob = None
    return counts


def check_objects_calls():
    run = harness.run_tool(harness.OURS, "objects", OPTS + ["--objects=yes"],
                           "users-calls")
    problems = harness.run_problems(run)
    if problems:
        return [("users/objects-calls", problems)]
    counts = object_call_counts(run.out + ".objects")
    if not counts or set(counts) != {1}:
        problems.append("arcs into objects: calls= %s (want all 1)"
                        % sorted(set(counts))[:5])
    objs = cgfile.parse(run.out + ".objects").parts[0]
    prof = cgfile.parse(run.out).parts[0]
    for arc in (("make_rows", "make_row"), ("main", "write_lines")):
        got = objs.arcs.get(arc)
        want = prof.arcs.get(arc)
        if got is None or want is None or got.calls != want.calls:
            problems.append("%s -> %s: calls %s in the objects profile, %s in "
                            "the profile" % (arc + (got and got.calls,
                                                    want and want.calls)))
    return [("users/objects-calls", problems)]


# long names required for the events of ours (a prefix of the name)
OUR_EVENTS = {"AcCost1": "L1 access cost", "SpLoss1": "L1 spatial loss",
              "AcCost2": "LL access cost", "SpLoss2": "LL spatial loss",
              "L1ld": "L1 lines loaded", "L1ldB": "L1 lines loaded",
              "D1Co": "D1 compulsory", "D1Ca": "D1 capacity",
              "D1Cf": "D1 conflict", "RdCold": "Reuse distance"}
REF_WITHOUT_LONG_NAMES = ["Ir", "Dr", "Dw", "I1mr", "D1mr", "D1mw", "ILmr",
                          "DLmr", "DLmw"]


def check_event_names():
    run = harness.run_tool(harness.OURS, "objects",
                           OPTS + ["--objects=yes", "--backdate-check=yes",
                                   "--miss-class=yes", "--reuse-dist=yes"],
                           "users-events")
    problems = harness.run_problems(run)
    if problems:
        return [("users/event-names", problems)]
    for path in (run.out, run.out + ".objects"):
        part = cgfile.parse(path).parts[0]
        label = os.path.basename(path)
        for ev in part.events:
            want = OUR_EVENTS.get(ev)
            got = part.event_defs.get(ev)
            if want is None:
                continue
            if got is None:
                problems.append("%s: no event: line for %s" % (label, ev))
            elif not re.match(r"^\s*%s\s*:\s*%s" % (re.escape(ev), re.escape(want)),
                              got) and not got.strip().startswith(want):
                problems.append("%s: event %s described as %r" % (label, ev, got))
        rd = [e for e in part.events if re.match(r"^Rd\d+$", e)]
        for ev in rd:
            if ev not in part.event_defs:
                problems.append("%s: no event: line for %s" % (label, ev))
        for ev in REF_WITHOUT_LONG_NAMES:
            if ev in part.event_defs:
                problems.append("%s: event: line for %s, which the reference "
                                "leaves without one" % (label, ev))
    return [("users/event-names", problems)]


PATTERN_CASES = [
    # (options, warnings that must appear, warnings that must not)
    (["--toggle-collect=walk_lst"],
     ["--toggle-collect=walk_lst: pattern 'walk_lst' matched no function",
      "nothing was collected"], []),
    (["--dump-before=no_such_fn*", "--zero-before=main",
      "--fn-skip=nope", "--separate-recs3=absent"],
     ["--dump-before=no_such_fn*: pattern 'no_such_fn*' matched no function",
      "--fn-skip=nope: pattern 'nope' matched no function",
      "--separate-recs3=absent: pattern 'absent' matched no function"],
     ["'main' matched no function", "nothing was collected"]),
    (["--toggle-collect=mai?"], [], ["matched no function",
                                     "nothing was collected"]),
]


def check_pattern_warnings():
    results = []
    for i, (opts, want, unwanted) in enumerate(PATTERN_CASES):
        name = "users/pattern-warnings/%d" % i
        run = harness.run_tool(harness.OURS, "calls", opts, "users-pat%d" % i)
        problems = harness.run_problems(run)
        err = run.stderr
        for w in want:
            n = err.count(w)
            if n != 1:
                problems.append("%r printed %d times (want once)" % (w, n))
        for w in unwanted:
            if w in err:
                problems.append("unexpected %r" % w)
        for line in err.splitlines():
            if "matched no function" in line and "warning" not in line:
                problems.append("not a warning line: %r" % line)
        results.append((name, problems))
    return results


def check_help():
    env = dict(os.environ, VALGRIND_LIB=harness.vglib())
    p = subprocess.run(["valgrind", "--tool=" + harness.OURS, "--help"],
                       env=env, capture_output=True, text=True,
                       timeout=harness.RUN_TIMEOUT)
    text = p.stdout + p.stderr
    ours = text.split("user options for", 1)[-1].split("Extra options read", 1)[0]
    problems = []
    if "callgrind-bd_control" not in ours or "callgrind_control" in ours:
        problems.append("--help does not point to callgrind-bd_control only")
    for want in ("SpLoss1/SpLoss2  spatial loss: bytes",
                 "AcCost1/AcCost2  access cost: 1000 / accesses",
                 "Bug reports on callgrind-bd go to its authors"):
        if want not in ours:
            problems.append("--help lacks %r" % want)
    return [("users/help", problems)]


def cache_desc_lines(path):
    with open(path) as fh:
        return [l.rstrip("\n") for l in fh if re.match(r"desc: (I1|D1|LL) cache:", l)]


def check_cache_desc():
    problems = []
    for label, opts in (("off", []), ("on", ["--cache-sim=yes"] + OPTS[1:])):
        ours, ref = harness.run_both("calls", opts, "users-desc-" + label)
        problems += harness.run_problems(ours) + harness.run_problems(ref)
        if problems:
            break
        got, want = cache_desc_lines(ours.out), cache_desc_lines(ref.out)
        if got != want or len(got) != 3:
            problems.append("cache simulation %s: %s, the reference %s"
                            % (label, got, want))
    return [("users/cache-desc", problems)]


def main():
    return harness.run_cases([("users/cache-desc", check_cache_desc),("users/annotate-dirs", check_dirs),
                              ("users/objects-calls", check_objects_calls),
                              ("users/event-names", check_event_names),
                              ("users/help", check_help),
                              ("users/pattern-warnings", check_pattern_warnings)])


if __name__ == "__main__":
    harness.main_guard(main)
