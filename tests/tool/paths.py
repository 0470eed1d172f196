#!/usr/bin/env python3
"""--paths=yes (issue 40): every event per full call path, exact.

For each run, every .paths file is checked against the profile file the
same run wrote beside it (tests/lib/pathscheck.py derives what to expect
from the profile alone): per part and event, the paths add up to the
totals: line, the paths ending in a function to its self cost, the paths
passing through a function to its inclusive cost as the profile counts it
(its arcs in; recursion: without its arcs from itself), where the profile
has its own gap (the block running at the end, or the dump request's)
by exactly that gap. On clients with direct and mutual recursion
(--separate-recs default, 1 and deep enough to name every level),
--separate-callers, threads (one file, and --separate-threads' file per
thread; a thread id reused by a later thread: a root of its own), dumps (a .paths per part, and --combine-dumps' one file),
zeroing, collection toggled, signals, longjmp, C++ exceptions, tail
calls, data objects, the L2 and prefetcher's back-dated events and the
oracle's line counts.

Also: a file per profile file and none without the option; collapsed
recursion (no path holds a function's name twice); callgrind-bd_paths'
folded stacks add up per function to the same figures, --diff and --svg;
--paths=yes with --backdate=no is refused in one line.
"""

import os
import re
import subprocess
import sys
import xml.dom.minidom

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "lib"))
import harness      # noqa: E402
import pathscheck   # noqa: E402

SCRIPT = os.path.join(harness.BUILDDIR, "tools", "callgrind-bd_paths")
USE = ["--cacheuse=yes", "--I1=32768,8,64", "--D1=32768,8,64", "--LL=262144,8,64"]

CASES = [
    ("cacheuse", "cacheuse", USE),
    ("recursion", "recursion", USE),
    ("recursion-recs1", "recursion", USE + ["--separate-recs=1"]),
    ("recursion-recs40", "recursion", USE + ["--separate-recs=40"]),
    ("calls-callers2", "calls", USE + ["--separate-callers=2"]),
    ("fnptr-no-cache", "fnptr", []),
    ("threads", "threads", USE),
    ("threads-separate", "threads", USE + ["--separate-threads=yes"]),
    ("dumps", "clreq", USE),
    ("dumps-combined", "clreq", USE + ["--combine-dumps=yes"]),
    ("zero", "zero_threads", USE),
    ("collect-off", "collect_off", USE),
    ("signal", "signal", USE),
    ("siglongjmp", "siglongjmp", USE),
    ("longjmp", "longjmp", USE),
    ("exception", "exception", USE),
    ("tailcall", "tailcall", USE),
    ("objects", "objects", USE + ["--objects=yes"]),
    ("objects-l2-dumps", "clreq", USE + ["--objects=yes", "--L2=131072,8,64"]),
    ("l2-check", "cacheuse", USE + ["--L2=131072,8,64", "--backdate-check=yes"]),
    ("prefetch", "cacheuse", USE + ["--prefetch=stream"]),
    ("every-bb", "recursion", USE + ["--dump-every-bb=200000"]),
    ("instr-atstart-no", "clreq", USE + ["--instr-atstart=no"]),
    ("toggle-collect", "calls", USE + ["--toggle-collect=middle"]),
    ("fn-skip", "calls", USE + ["--fn-skip=leaf_a"]),
    ("private-caches", "threads", USE + ["--private-caches=yes"]),
    ("thread-reuse", "thread_reuse", USE),
    ("thread-reuse-separate", "thread_reuse", USE + ["--separate-threads=yes"]),
]


def pairs(run):
    """(profile, its .paths) for every profile file the run wrote."""
    profiles = [f for f in run.files() if not f.endswith(".paths")
                and not f.endswith(".objects") and os.path.getsize(f) > 0]
    return [(p, p + ".paths") for p in profiles]


def recursion_problems(path):
    """A path naming a function twice: recursion not collapsed."""
    from cgbd import paths
    bad = []
    for part in paths.read(path).parts:
        for _t, frames, _c in part.paths:
            if len(set(frames)) != len(frames):
                bad.append("part %d: a path names a function twice: %s"
                           % (part.number, [part.fns[i][1] for i in frames]))
                break
    return bad


BACKDATED = ("AcCost1", "SpLoss1", "AcCost2", "SpLoss2", "AcCostL2", "SpLossL2")


def object_problems(profile, paths_file, gaps):
    """--objects=yes: the paths ending in a data object add up, per
    object, to its back-dated self cost in the .objects profile (read as
    a profile: an object is a fn= there); [code] (the lines of
    instructions) also holds the block running at the end, which no
    self cost has (the profile's gaps, pathscheck)."""
    from cgbd import cgfile, paths
    probs = []
    objs = cgfile.parse(profile + ".objects").parts
    for prof, part in zip(objs, paths.read(paths_file).parts):
        got = {}
        for _t, frames, costs in part.paths:
            if frames[-1] in part.objects:
                name = part.fns[frames[-1]][1]
                cgfile.add_cost(got.setdefault(name, {}), dict(zip(part.events, costs)))
        if not got:
            probs.append("part %d: no path ends in an object" % part.number)
        for name in sorted(set(prof.fns) | set(got)):
            for e in BACKDATED:
                want = prof.fns[name].self_cost.get(e, 0) if name in prof.fns else 0
                if name == "[code]":
                    want += sum(g.get(e, 0) for p, _f, g in gaps if p == part.number)
                have = got.get(name, {}).get(e, 0)
                if have != want:
                    probs.append("part %d: object %r %s: .objects %d, paths %d"
                                 % (part.number, name, e, want, have))
    return probs[:10]


def exactness_case(label, client, opts):
    def run():
        name = "paths/" + label
        r = harness.run_tool(harness.OURS, client, opts + ["--paths=yes"], "paths-" + label)
        probs = harness.run_problems(r)
        if probs:
            return [(name, probs)]
        files = pairs(r)
        probs = ["%s: no .paths beside it" % p for p, q in files if not os.path.exists(q)]
        if "separate-threads" in label and len(files) < 2:
            probs.append("--separate-threads=yes: %d profile files" % len(files))
        if "dumps" in label and "combined" not in label and len(files) < 3:
            probs.append("dumps: %d profile files, a part each expected" % len(files))
        checked, skipped = 0, set()
        for prof, p in files:
            if not os.path.exists(p):
                continue
            got, n, sk, gaps = pathscheck.check(prof, p)
            probs += ["%s: %s" % (os.path.basename(prof), g) for g in got]
            if "--objects=yes" in opts:
                probs += object_problems(prof, p, gaps)
            probs += recursion_problems(p)
            checked += n
            skipped |= sk
        if checked < 3:
            probs.append("only %d functions' inclusive costs checked" % checked)
        mine = sorted(n for n in skipped
                      if n.split("'")[0] in ("fact", "fib", "is_even", "is_odd"))
        if label == "recursion-recs40" and mine:
            probs.append("--separate-recs=40 names every level: no cycle of the "
                         "client's functions expected, found %s" % mine)
        return [(name, probs, "%d inclusive figures" % checked)]
    return run


def without_option_case():
    r = harness.run_tool(harness.OURS, "calls", [], "paths-off")
    probs = harness.run_problems(r)
    probs += ["%s written without --paths=yes" % f for f in r.files() if f.endswith(".paths")]
    return [("paths/off", probs)]


def refusal_case():
    r = harness.run_tool(harness.OURS, "calls", ["--cacheuse=yes", "--backdate=no",
                                                 "--paths=yes"], "paths-refused")
    probs = []
    lines = [l for l in r.stderr.splitlines() if "--paths=yes" in l]
    if r.returncode == 0:
        probs.append("--paths=yes --backdate=no: exit 0")
    if len(lines) != 1 or "--backdate=no" not in lines[0]:
        probs.append("no one-line error naming both options: %r" % r.stderr[-300:])
    if os.path.exists(r.out):
        probs.append("a profile was written")
    return [("paths/refused", probs)]


def script(args, cwd=None):
    return subprocess.run([SCRIPT] + args, capture_output=True, text=True,
                          timeout=120, cwd=cwd)


def folded_by_function(stdout):
    """{function: (through, ends)} from folded stacks; frames are file:fn."""
    through, ends = {}, {}
    for line in stdout.splitlines():
        stack, _, value = line.rpartition(" ")
        names = [f.rpartition(":")[2] for f in stack.split(";")]
        for n in set(names):
            through[n] = through.get(n, 0) + int(value)
        ends[names[-1]] = ends.get(names[-1], 0) + int(value)
    return through, ends


def script_case():
    """The folded stacks of SpLoss1 (the example's client) add up per
    function as pathscheck's figures, derived from the profile; --diff of
    a file with itself: every stack twice the same value; --svg: a
    well-formed SVG whose widest box is the whole; errors in one line."""
    r = harness.run_tool(harness.OURS, "cacheuse", USE + ["--paths=yes"], "paths-script")
    probs = harness.run_problems(r)
    if probs:
        return [("paths/script", probs)]
    from cgbd import cgfile
    part = cgfile.parse(r.out).parts[0]
    from cgbd import paths
    selfs, inclusive, _several, _gaps = pathscheck.profile_figures(
        part, pathscheck.root_costs(paths.read(r.out + ".paths").parts[0]))
    out = script(["--event=SpLoss1", r.out])
    if out.returncode != 0:
        return [("paths/script", ["exit %d: %s" % (out.returncode, out.stderr)])]
    through, ends = folded_by_function(out.stdout)
    for fn in sorted(inclusive):
        want = inclusive[fn].get("SpLoss1", 0)
        if through.get(fn, 0) != want:
            probs.append("%s: stacks through it %d, inclusive %d" % (fn, through.get(fn, 0), want))
    for fn in sorted(selfs):
        want = selfs[fn].get("SpLoss1", 0)
        if ends.get(fn, 0) != want:
            probs.append("%s: stacks ending in it %d, self %d" % (fn, ends.get(fn, 0), want))
    if not re.search(r"(^|;)[^;]*cacheuse[^;:]*\.c:main[; ]", out.stdout, re.M):
        probs.append("frames are not file:function: %r" % out.stdout[:200])
    diff = script(["--event=SpLoss1", "--diff", r.out + ".paths", r.out + ".paths"])
    rows = [l.rsplit(" ", 2) for l in diff.stdout.splitlines()]
    if diff.returncode != 0 or not rows or any(a != b for _s, a, b in rows):
        probs.append("--diff of a file with itself: %s" % (diff.stderr or diff.stdout[:200]))
    svg = r.out + ".svg"
    s = script(["--event=SpLoss1", "--svg", svg, r.out])
    try:
        doc = xml.dom.minidom.parse(svg)
        widths = [float(e.getAttribute("width")) for e in doc.getElementsByTagName("rect")[1:]]
        titles = [t.firstChild.data for t in doc.getElementsByTagName("title")]
        total = sum(ends.values())
        if s.returncode != 0 or not widths or not any(
                t.startswith("all (%s SpLoss1" % "{:,}".format(total)) for t in titles):
            probs.append("--svg: no box 'all' of the total %d" % total)
    except Exception as e:      # a malformed picture
        probs.append("--svg: %s" % e)
    bad = script(["--event=NoSuch", r.out])
    if bad.returncode == 0 or len(bad.stderr.strip().splitlines()) != 1 \
            or "NoSuch" not in bad.stderr:
        probs.append("an unknown event: no one-line error: %r" % bad.stderr)
    missing = script([r.out + ".nothere"])
    if missing.returncode == 0 or len(missing.stderr.strip().splitlines()) != 1:
        probs.append("a missing file: no one-line error: %r" % missing.stderr)
    return [("paths/script", probs)]


def profile_unchanged_case():
    """The profile is the same with --paths=yes: its desc: lines (the
    back-dating trees' statistics among them: the trees do the same work)
    and the client's own functions' lines (the loader's costs vary from
    run to run, perf/identical.py), on clreq (dumps, an instrumentation
    switch, a faked call)."""
    opts = USE
    a = harness.run_tool(harness.OURS, "clreq", opts, "paths-unchanged-a", name="a.out")
    b = harness.run_tool(harness.OURS, "clreq", opts + ["--paths=yes"], "paths-unchanged-b",
                         name="b.out")
    probs = harness.run_problems(a) + harness.run_problems(b)
    if probs:
        return [("paths/profile-unchanged", probs)]

    def kept(path):
        """desc: lines, and the lines of functions in clreq.c (fl= names,
        compressed to "(id)" after their first use)."""
        out, mine, files = [], False, {}
        for line in open(path):
            m = re.match(r"fl=(\((\d+)\))? ?(.*)", line.rstrip("\n"))
            if m:
                if m.group(3):
                    files[m.group(2)] = m.group(3)
                mine = files.get(m.group(2), m.group(3)).endswith("clients/clreq.c")
            if line.startswith("desc:") or (mine and not line.startswith(("summary", "totals"))):
                out.append(line)
        return out
    fa = [f for f in a.files() if not f.endswith(".paths")]
    fb = [f for f in b.files() if not f.endswith(".paths")]
    if len(fa) != len(fb):
        return [("paths/profile-unchanged", ["%d files without, %d with" % (len(fa), len(fb))])]
    for x, y in zip(fa, fb):
        la, lb = kept(x), kept(y)
        if la != lb:
            diff = [(p, q) for p, q in zip(la, lb) if p != q][:2]
            probs.append("%s: differs with --paths=yes: %s" % (os.path.basename(y), diff
                                                               or "%d/%d lines" % (len(la), len(lb))))
    return [("paths/profile-unchanged", probs)]


def roots_of(path, function):
    """{(thread, root id)} of the nodes of function in a .paths file,
    read from its root:/node: lines here (not through the reader): a
    node's root is its parent's, up to a root: line."""
    fns, up, found = {}, {}, set()
    for line in open(path):
        key, _, value = line.rstrip("\n").partition(": ")
        if key == "part":
            fns, up = {}, {}
        elif key == "fn":
            ident, _, rest = value.partition(" ")
            fns[ident] = rest.partition("\t")[2]
        elif key in ("root", "node"):
            ident, parent, fn = value.split()[:3]
            up[ident] = ("root", parent, ident) if key == "root" else up[parent]
            if fns[fn] == function:
                found.add((int(up[ident][1]), int(up[ident][2])))
    return found


def thread_reuse_case():
    """A thread created after another was joined gets its thread id
    (Valgrind reuses it): its calls hang under a root of their own, in the
    thread's one file with --separate-threads=yes as its profile is one."""
    probs = []
    for sep in ("no", "yes"):
        r = harness.run_tool(harness.OURS, "thread_reuse", ["--paths=yes",
                             "--separate-threads=" + sep], "paths-reuse-" + sep)
        probs += harness.run_problems(r)
        files = [q for _p, q in pairs(r) if os.path.exists(q)]
        first = set().union(*[roots_of(q, "first_work") for q in files])
        second = set().union(*[roots_of(q, "second_work") for q in files])
        if len(first) != 1 or len(second) != 1:
            probs.append("--separate-threads=%s: roots of first_work %s, of second_work %s"
                         % (sep, sorted(first), sorted(second)))
        elif first == second:
            probs.append("--separate-threads=%s: the second thread under the first one's "
                         "root %s" % (sep, first))
        elif [t for t, _ in first] != [t for t, _ in second]:
            probs.append("--separate-threads=%s: threads %s and %s, the id not reused?"
                         % (sep, first, second))
        if sep == "yes" and len([q for q in files if roots_of(q, "second_work")]) != 1:
            probs.append("--separate-threads=yes: the reused id's paths not in one file")
    return [("paths/thread-reuse", probs)]


HEADER = "version: %d\ncreator: hand\ncmd: ./app\n\npart: 1\nevents: Ir\n"
FNS = "fn: 1 /src/app.c\tmain\nfn: 2 /src/app.c\tf\nfn: 3 /src/app.c\tg\n"
# the same tree in both versions, written by hand: main 10, main;f 20,
# main;f;g 30, main;g 40 (node 7: main;f written only as a parent in
# version 2 would have no cost; here every node has one)
HAND = {
    "v2": (HEADER % 2) + FNS + "root: 1 1 1 10\nnode: 5 1 2 20\nnode: 9 5 3 30\n"
                               "node: 6 1 3 40\nnode: 12 6 2\ntotals: 100\n",
    "v1": (HEADER % 1) + FNS + "path: 1 1 10\npath: 1 1;2 20\npath: 1 1;2;3 30\n"
                               "path: 1 1;3 40\ntotals: 100\n",
}
HAND_STACKS = {"main": 10, "main;f": 20, "main;f;g": 30, "main;g": 40}
BAD = {
    "a version not known": ((HEADER % 3) + FNS + "totals: 0\n", "version"),
    "a parent not defined": ((HEADER % 2) + FNS + "root: 1 1 1 10\nnode: 5 4 2 20\n"
                             "totals: 30\n", "parent 4"),
    "a version 1 line in version 2": ((HEADER % 2) + FNS + "path: 1 1 10\ntotals: 10\n",
                                      "path"),
}


def format_case():
    """callgrind-bd_paths on files written by hand: version 2 (a node
    after its parent, ids not contiguous, a node without costs) and
    version 1 give the stacks derived by hand; an unknown version, a
    node before its parent and a version 1 line in a version 2 file are
    refused in one line naming the problem."""
    probs = []
    work = os.path.join(harness.BUILD, "paths-format")
    os.makedirs(work, exist_ok=True)
    for name, text in HAND.items():
        path = os.path.join(work, name + ".paths")
        with open(path, "w") as f:
            f.write(text)
        out = script(["--functions-only", path])
        got = {l.rpartition(" ")[0]: int(l.rpartition(" ")[2]) for l in out.stdout.splitlines()}
        if out.returncode != 0 or got != HAND_STACKS:
            probs.append("%s: %s%s" % (name, got, out.stderr.strip()))
    for what, (text, word) in BAD.items():
        path = os.path.join(work, "bad.paths")
        with open(path, "w") as f:
            f.write(text)
        out = script([path])
        lines = out.stderr.strip().splitlines()
        if out.returncode != 1 or len(lines) != 1 or word not in lines[0]:
            probs.append("%s: exit %d, %r" % (what, out.returncode, out.stderr))
    return [("paths/format", probs)]


PROFILE_ONLY = ("# callgrind format\nversion: 1\ncreator: callgrind-bd-0.1.0\n"
                "pid: 1\ncmd: ./app\npart: 1\n\npositions: line\nevents: Ir\n"
                "summary: 10\n\nfl=(1) app.c\nfn=(1) main\n1 10\n\ntotals: 10\n")


def profile_only_case():
    """A profile given without its .paths beside it (a run without
    --paths=yes) is named as such, in one line, as callgrind-bd_bandwidth
    does: not read as a paths file (both have a version: 1 line), which
    stopped at the profile's 'positions:' line as an unknown key."""
    work = os.path.join(harness.BUILD, "paths-format")
    os.makedirs(work, exist_ok=True)
    profile = os.path.join(work, "callgrind.out.nopaths")
    with open(profile, "w") as f:
        f.write(PROFILE_ONLY)
    probs = []
    for args in ([profile], ["--diff", profile, profile]):
        out = script(args)
        lines = out.stderr.strip().splitlines()
        if out.returncode != 1 or len(lines) != 1 or "--paths=yes" not in lines[0]:
            probs.append("%s: exit %d, %r" % (" ".join(args), out.returncode, out.stderr))
    return [("paths/profile-only", probs)]


def memory_case():
    """-v names the paths' table among the ones --max-memory counts."""
    r = harness.run_tool(harness.OURS, "recursion", ["--paths=yes", "-v"], "paths-memory")
    probs = harness.run_problems(r)
    if not re.search(r"Memory: +call paths ", r.stderr):
        probs.append("-v prints no 'call paths' memory line")
    if not re.search(r"Call paths: +\d+ nodes", r.stderr):
        probs.append("-v prints no 'Call paths:' statistics")
    return [("paths/memory", probs)]


def main():
    cases = [("paths/" + label, exactness_case(label, client, opts))
             for label, client, opts in CASES]
    cases += [("paths/off", without_option_case), ("paths/refused", refusal_case),
              ("paths/script", script_case), ("paths/memory", memory_case),
              ("paths/thread-reuse", thread_reuse_case), ("paths/format", format_case),
              ("paths/profile-only", profile_only_case),
              ("paths/profile-unchanged", profile_unchanged_case)]
    return harness.run_cases(cases)


if __name__ == "__main__":
    sys.exit(main())
