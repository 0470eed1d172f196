#!/usr/bin/env python3
"""--separate-par: contexts by argument value (thesis section 3.6).

The expected profiles are derived by running the clients' recursions in
Python (simulate() below), with the tool's naming rules: a context is
"fn:p<n>=<value>..." (or the bucket forms with borders), a call to the
context already running is recursion (level "'2" with the default
--separate-recs=2), callers follow with --separate-callers. Checked:

  - fib2(4,4) of tests/clients/separate_par.c separated by its first, its
    second, or both arguments: the set of contexts and the call count of
    every context-to-context arc equal the simulation's;
  - bucket borders (both the single-value and the range form), a
    wildcard pattern, the option order not changing the names;
  - with --separate-callers1=fib2: contexts with their callers;
  - a tail-called function (tests/clients/tailcall.c, -O2: tail_top jmps
    to tail_mid, which jmps to tail_leaf), separated with borders;
  - nothing lost: per function, the self costs summed over its contexts,
    and the totals, equal a run without --separate-par;
  - --toggle-collect and --dump-before act on the function's first entry
    and last exit, not on each context's (the same totals and parts as
    without --separate-par);
  - --fn-skip of a callee moves its costs into the calling contexts; a
    skipped separated function has no contexts;
  - --objects=yes: allocation sites named by contexts (one per depth of
    build(3)), object arcs = profile arcs; a separated malloc still
    allocates;
  - the back-dating oracle (immediate vs back-dated line counts on every
    arc) on the separated fib2;
  - what a value is read as (tests/clients/separate_par_values.c): a
    negative long, an unsigned long of 2^63 (negative), NULL and non-NULL
    pointers with border 0, each of the six argument registers;
  - a pattern that matched no function is named, with and without -v
    (as every function pattern: --toggle-collect, --fn-skip...), in the
    same words: "warning: --separate-par=P:1: pattern 'P' matched no
    function"; a pattern that matched is not.
Bad option values are in options_errors.py.
"""

import collections
import os
import re
import subprocess
import sys
import threading

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "lib"))
sys.path.insert(0, HERE)
import cgfile          # noqa: E402
import checks          # noqa: E402
import harness         # noqa: E402

from objects_dumps import part_problems   # noqa: E402

CLIENT = "separate_par"
GEOM = ["--I1=32768,8,64", "--D1=32768,8,64", "--LL=262144,8,64"]


# -- the recursions, run in Python -------------------------------------------

def fib2_kids(call):
    _, i, j = call
    if i < 2 or j < 2:
        return []
    return [("fib2", i, j - 1), ("fib2", i - 1, j), ("fib2", i - 1, j - 1)]


def tail_kids(call):
    fn, x = call
    if fn == "tail_top":
        return [("tail_mid", x + 1)]
    if fn == "tail_mid":
        return [("tail_leaf", 2 * x)]      # tail_leaf(x + sink), sink = x
    return []


def bucket(v, borders):
    """The name part of value v among borders, as the manual states it."""
    if v <= borders[0]:
        return "<=%d" % borders[0]
    if v > borders[-1]:
        return ">%d" % borders[-1]
    for lo, hi in zip(borders, borders[1:]):
        if lo < v <= hi:
            return "=%d" % hi if lo + 1 == hi else "=%d..%d" % (lo + 1, hi)


def namer(spec):
    """spec: {fn: {n: borders or None}} -> context name of a call."""
    def name(call):
        fn, args = call[0], call[1:]
        parts = ""
        for n, borders in sorted(spec.get(fn, {}).items()):
            v = args[n - 1]
            parts += ":p%d%s" % (n, bucket(v, borders) if borders else "=%d" % v)
        return fn + parts
    return name


def simulate(roots, kids, name, recs=2, callers=None):
    """Run the calls; return {(caller, callee): calls} with the names the
    profile writes: context, "'<level>" when the level is above 1, then
    "'<caller>" for each caller kept (callers: {fn: count})."""
    arcs = collections.Counter()
    fnstack = ["main"]
    depth = collections.Counter()
    callers = callers or {}

    def written(fn, level):
        n = fnstack[-1] + ("'%d" % level if level > 1 else "")
        keep = callers.get(fn, 0)
        below = fnstack[:-1][::-1][:keep]
        return n + "".join("'" + c for c in below)

    def call(caller, c):
        ctx = name(c)
        pushed = fnstack[-1] != ctx         # direct recursion keeps it
        if pushed:
            fnstack.append(ctx)
        depth[ctx] += 1
        me = written(c[0], min(depth[ctx], recs))
        arcs[(caller, me)] += 1
        for k in kids(c):
            call(me, k)
        depth[ctx] -= 1
        if pushed:
            fnstack.pop()

    for caller, c in roots:
        call(caller, c)
    return arcs


# -- comparing ------------------------------------------------------------

def base_of(name):
    return re.split(r"[:']", name)[0]


def arcs_among(part, fns):
    """Call counts of the profile's arcs whose callee is one of fns."""
    return {k: a.calls for k, a in part.arcs.items()
            if base_of(k[1]) in fns and a.calls}


def arc_diff(got, want):
    problems = []
    for k in sorted(set(got) | set(want)):
        if got.get(k, 0) != want.get(k, 0):
            problems.append("arc %s -> %s: %d calls, expected %d"
                            % (k[0], k[1], got.get(k, 0), want.get(k, 0)))
    return problems[:10]


def self_by_base(part, fns):
    sums = collections.defaultdict(collections.Counter)
    for f in part.fns.values():
        if base_of(f.name) in fns:
            sums[base_of(f.name)].update(f.self_cost)
    return sums


def conserved_problems(part, plain, fns):
    """Self costs per function summed over its contexts, and totals, equal
    those of the run without --separate-par."""
    problems = []
    got, want = self_by_base(part, fns), self_by_base(plain, fns)
    for fn in fns:
        if dict(got[fn]) != dict(want[fn]):
            problems.append("%s: self costs over contexts %s, without "
                            "separation %s" % (fn, dict(got[fn]), dict(want[fn])))
    if part.totals != plain.totals:
        problems.append("totals %s != %s" % (part.totals, plain.totals))
    return problems


def run(client, opts, tag, name=None):
    r = harness.run_tool(harness.OURS, client, opts, tag, name)
    probs = harness.run_problems(r)
    if probs:
        raise RuntimeError("; ".join(probs))
    return r


def merged(r):
    return cgfile.parse(r.out).merged()


_plain = {}
_plain_lock = threading.Lock()


def plain(client, opts=()):
    """The run without --separate-par (once per option set)."""
    key = (client, tuple(opts))
    with _plain_lock:
        if key not in _plain:
            tag = "sp-plain-%s-%d" % (client, len(_plain))
            _plain[key] = run(client, list(opts), tag)
        return _plain[key]


# -- cases ----------------------------------------------------------------

def fib2_case(label, opts, spec, recs=2, callers=None, extra=()):
    def check():
        name = "separate-par/fib2/" + label
        r = run(CLIENT, list(opts) + list(extra), "sp-" + label)
        part = merged(r)
        want = simulate([("main", ("fib2", 4, 4))], fib2_kids, namer(spec),
                        recs, callers)
        got = arcs_among(part, {"fib2"})
        res = [(name, arc_diff(got, want))]
        ctxs = {k[1] for k in want}
        seen = {f for f in part.fns if base_of(f) == "fib2"}
        res.append((name + "/contexts", [] if seen == ctxs else
                    ["contexts %s, expected %s" % (sorted(seen), sorted(ctxs))]))
        base = plain(CLIENT, extra)
        res.append((name + "/conserved",
                    conserved_problems(part, merged(base), {"fib2", "main", "base_case"})))
        return res
    return check


def thesis_name():
    """The thesis' own example name, and no plain fib2 left."""
    r = run(CLIENT, ["--separate-par=fib2:1", "--separate-par=fib2:2"], "sp-thesis")
    fns = merged(r).fns
    probs = []
    if "fib2:p1=4:p2=4" not in fns:
        probs.append("no function fib2:p1=4:p2=4")
    if "fib2" in fns:
        probs.append("plain fib2 still in the profile")
    return [("separate-par/thesis-name", probs)]


def tail_case():
    name = "separate-par/tailcall"
    exe = harness.build_client("tailcall")
    asm = subprocess.run(["objdump", "-d", "--no-show-raw-insn", exe],
                         capture_output=True, text=True, check=True).stdout
    jumps = [l for l in asm.splitlines() if "jmp" in l
             and ("<tail_leaf>" in l or "<tail_mid>" in l)]
    if len(jumps) < 2:
        return [(name, ["tailcall has no jmp tail calls: vacuous"])]
    spec = {"tail_mid": {1: [25]}, "tail_leaf": {1: [50, 100]}}
    r = run("tailcall", ["--separate-par=tail_mid:1:25",
                         "--separate-par=tail_leaf:1:50,100"], "sp-tail")
    part = merged(r)
    want = simulate([("main", ("tail_top", i)) for i in range(100)],
                    tail_kids, namer(spec))
    got = arcs_among(part, {"tail_top", "tail_mid", "tail_leaf"})
    return [(name, arc_diff(got, want)),
            (name + "/conserved",
             conserved_problems(part, merged(plain("tailcall")),
                                {"tail_top", "tail_mid", "tail_leaf"}))]


def toggle_dump_case():
    """--toggle-collect / --dump-before on a separated function act on its
    first entry and last exit, as without --separate-par."""
    res = []
    for opt in ("--toggle-collect=fib2", "--dump-before=fib2", "--dump-after=fib2"):
        name = "separate-par/" + opt.lstrip("-").replace("=", "-")
        sp = ["--separate-par=fib2:1", "--separate-par=fib2:2"]
        r = run(CLIENT, [opt] + sp, "sp-" + opt.strip("-")[:6] + opt[-4:])
        p = plain(CLIENT, [opt])
        probs = []
        if len(r.files()) != len(p.files()):
            probs.append("%d files, without --separate-par %d"
                         % (len(r.files()), len(p.files())))
        for a, b in zip(r.files(), p.files()):
            ta, tb = cgfile.parse(a).merged().totals, cgfile.parse(b).merged().totals
            if ta != tb:
                probs.append("%s: totals %s, without --separate-par %s"
                             % (os.path.basename(a), ta, tb))
        if not any("fib2:p1=" in f for a in r.files()
                   for f in cgfile.parse(a).merged().fns):
            probs.append("no separated context written: vacuous")
        res.append((name, probs))
    return res


def fn_skip_case():
    res = []
    sp = ["--separate-par=fib2:1", "--separate-par=fib2:2"]
    noskip = merged(run(CLIENT, sp, "sp-noskip"))
    skip = merged(run(CLIENT, sp + ["--fn-skip=base_case"], "sp-skip-callee"))
    probs = []
    for fn, f in sorted(noskip.fns.items()):
        if base_of(fn) != "fib2":
            continue
        want = collections.Counter(f.self_cost)
        for (a, b), arc in noskip.arcs.items():
            if a == fn and b == "base_case":
                want.update(arc.inclusive)
        got = skip.fns[fn].self_cost if fn in skip.fns else {}
        if dict(want) != dict(got):
            probs.append("%s: self %s, expected own + base_case's %s"
                         % (fn, dict(got), dict(want)))
    if "base_case" in skip.fns:
        probs.append("skipped base_case still written")
    res.append(("separate-par/fn-skip-callee", probs[:5]))

    whole = merged(run(CLIENT, sp + ["--fn-skip=fib2"], "sp-skip-fib2"))
    base = merged(plain(CLIENT, ["--fn-skip=fib2"]))
    probs = [f for f in whole.fns if base_of(f) == "fib2"]
    probs = ["contexts of a skipped function: %s" % probs] if probs else []
    if whole.totals != base.totals:
        probs.append("totals %s != %s" % (whole.totals, base.totals))
    res.append(("separate-par/fn-skip-separated", probs))
    return res


def objects_case():
    name = "separate-par/objects"
    # malloc separated too (by the size, 24 bytes): its contexts still
    # allocate
    r = run(CLIENT, ["--objects=yes", "--separate-par=build:1",
                     "--separate-par=fib2:1", "--separate-par=malloc:1:16,64"]
            + GEOM, "sp-objects")
    prof = merged(r)
    objs = cgfile.parse(r.out + ".objects").merged()
    # build(3): the node of depth d is allocated by build:p1=d, called by
    # main (d = 3) or by build:p1=d+1 from either of its two call lines
    want = {("build:p1=3", "main")} | {("build:p1=%d" % d, "build:p1=%d" % (d + 1))
                                       for d in range(3)}
    got = set()
    for f in objs.fns:
        m = re.match(r"^object allocated at (build:p1=\d) \([^)]*\) < (\S+) \(",
                     f)
        if m:
            got.add((m.group(1), m.group(2)))
    probs = [] if got == want else ["allocation sites %s, expected %s"
                                    % (sorted(got), sorted(want))]
    if not any(a[1] == "malloc:p1=17..64" for a in prof.arcs):
        probs.append("no call of malloc:p1=17..64")
    return [(name, probs),
            (name + "/arcs", part_problems("objects", prof, objs))]


def oracle_case():
    name = "separate-par/oracle"
    r = run(CLIENT, ["--cacheuse=yes", "--backdate-check=yes",
                     "--separate-par=fib2:1", "--separate-par=fib2:2",
                     "--separate-par=build:1"] + GEOM, "sp-oracle")
    probs = checks.backdate_arc_problems(r.out)
    if not any(base_of(a) == "fib2" and ":" in a for a, _ in merged(r).arcs):
        probs.append("no arc from a separated context: vacuous")
    return [(name, probs),
            checks.conservation_result(name + "/conservation", r,
                                       ["Ir", "AcCost1", "SpLoss1", "L1ldB", "LLldB"],
                                       where_ir_holds=True)]


def values_case():
    """tests/clients/separate_par_values.c: the value is the whole 64-bit
    register, signed; a pointer with border 0 splits NULL from the rest;
    each of the six argument registers."""
    r = run("separate_par_values",
            ["--separate-par=g:1", "--separate-par=u:1", "--separate-par=p:1:0"]
            + ["--separate-par=six:%d" % n for n in range(1, 7)], "sp-values")
    got = {f for f in merged(r).fns if base_of(f) in ("g", "u", "p", "six")}
    want = ({"g:p1=%d" % i for i in range(-2, 2)}
            | {"u:p1=%d" % -(1 << 63), "u:p1=5", "p:p1<=0", "p:p1>0",
               "six" + "".join(":p%d=%d" % (n, 10 + n) for n in range(1, 7))})
    return [("separate-par/values", [] if got == want else
             ["contexts %s, expected %s" % (sorted(got), sorted(want))])]


def unmatched_case():
    res = []
    opt = "--separate-par=no_such_fn*:1"
    for verbose in (True, False):
        r = run(CLIENT, [opt, "--separate-par=fib2:1"] + (["-v"] if verbose else []),
                "sp-unmatched-%d" % verbose)
        said = [l for l in r.stderr.splitlines()
                if "no_such_fn*" in l and "matched no function" in l]
        fib = [l for l in r.stderr.splitlines()
               if "fib2:1" in l and "matched no function" in l]
        probs = []
        want = "warning: %s: pattern 'no_such_fn*' matched no function" % opt
        if len(said) != 1 or want not in said[0]:
            probs.append("%s: %s lines about the unmatched pattern, expected "
                         "one saying %r" % ("-v" if verbose else "without -v",
                                             said, want))
        if fib:
            probs.append("a matching pattern reported: %s" % fib)
        res.append(("separate-par/unmatched%s" % ("-v" if verbose else ""), probs))
    return res


def main():
    both = {"fib2": {1: None, 2: None}}
    cases = [
        ("separate-par/fib2/p1", fib2_case(
            "p1", ["--separate-par=fib2:1"], {"fib2": {1: None}})),
        ("separate-par/fib2/p2", fib2_case(
            "p2", ["--separate-par=fib2:2"], {"fib2": {2: None}})),
        ("separate-par/fib2/p1-p2", fib2_case(
            "p1-p2", ["--separate-par=fib2:1", "--separate-par=fib2:2"], both)),
        ("separate-par/fib2/p2-p1-order", fib2_case(
            "p2-p1-order", ["--separate-par=fib2:2", "--separate-par=fib2:1"], both)),
        ("separate-par/fib2/p1-recs3", fib2_case(
            "p1-recs3", ["--separate-par=fib2:1"], {"fib2": {1: None}},
            recs=3, extra=["--separate-recs=3"])),
        ("separate-par/fib2/buckets", fib2_case(
            "buckets", ["--separate-par=fib2:1:1,2", "--separate-par=fib2:2:0,2,3"],
            {"fib2": {1: [1, 2], 2: [0, 2, 3]}})),
        ("separate-par/fib2/wildcard", fib2_case(
            "wildcard", ["--separate-par=f?b*:2"], {"fib2": {2: None}})),
        ("separate-par/fib2/callers", fib2_case(
            "callers", ["--separate-par=fib2:1", "--separate-par=fib2:2"], both,
            callers={"fib2": 1}, extra=["--separate-callers1=fib2"])),
        ("separate-par/thesis-name", thesis_name),
        ("separate-par/tailcall", tail_case),
        ("separate-par/toggle-dump", toggle_dump_case),
        ("separate-par/fn-skip", fn_skip_case),
        ("separate-par/objects", objects_case),
        ("separate-par/oracle", oracle_case),
        ("separate-par/values", values_case),
        ("separate-par/unmatched", unmatched_case),
    ]
    return harness.run_cases(cases)


if __name__ == "__main__":
    harness.main_guard(main)
