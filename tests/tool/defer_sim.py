#!/usr/bin/env python3
"""--defer-sim=yes (the default; callgrind/sim.c, "Deferred simulation")
changes no profile.

The generated code stores a block's data addresses and the number of
simulation calls it reached, and the calls run from C at the tool's next
entry, in the common case counting Ir/Dr/Dw per block run in a histogram
settled when costs are read. sim.c claims the profile is byte for byte
the one of --defer-sim=no (the helpers called in place). So:

1. Every single-threaded deterministic client (SINGLE_THREADED), with the
   fixed geometry of private_caches.py, under --cache-sim=yes
   --dump-instr=yes and under --cacheuse=yes --backdate-check=yes; a
   subset (RARE) under each of --private-caches=yes with cache use,
   --objects=yes, --miss-class=yes, --reuse-dist=yes, --simulate-wb=yes
   (with --simulate-hwpref=yes), write-back with cache use,
   --branch-sim=yes, --collect-jumps=yes, --L2 with --prefetch=stream,
   --sharing=yes, --collect-bus=yes, dumps every N blocks and a
   --zero-before; and per client a --toggle-collect (collection off
   around the replay: the non-histogram path) and an --fn-skip (skipped
   code: the same) of its own functions. The run with --defer-sim=yes
   must write the same files as the run with =no, every line the same
   but the pid: line (per instruction with --dump-instr=yes), and the
   same exit summary on stderr. Forgiven, as in private_caches.py: only
   the back-dated columns (AcCost*, SpLoss*) of the loader functions
   whose AcCost varies between identical runs (compare.KNOWN_NOISY_FNS,
   private_caches.same_profile's budget), with one more pair of runs
   when a pair fails on that noise alone; and with --reuse-dist=yes the
   buckets (Rd*) of the lines of the loader's object and of summary: and
   totals:, their sum on the line (its accesses) unchanged: the loader's
   string functions get other reuse distances between identical runs
   (four runs of long_block with --defer-sim=no: strcspn, do_preload).
2. Clients stopping in the middle of a block, whose pending calls are
   replayed at the next tool entry: segv (SIGSEGV), abort (SIGABRT),
   clreq (dumps, zero, collection toggles, instrumentation switches),
   missclass_switch (instrumentation off and on), atomics (CAS), the
   exception client, signal handlers, longjmp/siglongjmp; the crashing
   ones must die of their signal under both settings.
3. Blocks replayed in parts: clients/long_block.c (built -O2) has two
   blocks of more than REPLAY_ADDRS = 64 data accesses: copy40 (40 movsq
   = 80 accesses in 47 instructions) and masked (19 movsq, a vmaskmovps
   load and store, which VEX makes 8 guarded loads and 8 guarded stores,
   every other lane off, and 19 movsq; on hosts with AVX), each run 500
   times. The split was
   seen, not assumed: with a debug print in sim.c's replay_part (not
   committed) recording the blocks it replays and counting the guarded
   accesses replayed, a run printed 1000 replay_part calls (500 per
   block, one split each), at the addresses of copy40 and masked, and
   4000 guarded accesses replayed and 4000 skipped beyond the loader's.
   long_block_fault ends by running copy40 on a source whose 36th long
   is on an inaccessible page: copy40's first I1 line holds 32 movsq (64
   accesses), its second 2 more, whose calls overflow replay_addr and
   replay the first part; the fault comes in the third line, with the
   second part pending (the same print showed 1001 replay_part calls).
   Both go through every option set above that makes sense for them.
   The checks were seen to fail on sim.c made wrong on purpose: with the
   first part's calls dropped in replay_part, every long_block and
   long_block_fault case; with skipped guarded accesses simulated in
   replay_all, every such case whose collected code runs masked; with
   the calls reached only once left out when a histogram is settled,
   every case of calls collecting the loader's code.
4. The multi-threaded clients interleave differently from run to run, so
   runs cannot be compared; with --defer-sim=yes (per thread: histograms
   settled at thread switches) they must keep the back-dating oracle and
   conservation of every event, under shared and private caches; and in
   each thread's file of --separate-threads=yes, the loop each thread
   runs (threads.c spin, zero_threads.c walk: the same instructions and
   accesses whatever the schedule; main's walk after its zero) has the
   same Ir, Dr, Dw as with --defer-sim=no.
"""

import difflib
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "lib"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import profiles         # noqa: E402
import checks           # noqa: E402
import harness          # noqa: E402
import private_caches   # noqa: E402  (GEOM, same_profile, only_loader_noise)

GEOM = private_caches.GEOM
NO, YES = ["--defer-sim=no"], ["--defer-sim=yes"]

# single-threaded and deterministic; client -> exit status (signal)
CRASHING = {"segv": -11, "abort": -6, "long_block_fault": -11}
SINGLE_THREADED = harness.EXACT_CLIENTS + [
    "atomics", "clreq", "marker", "missclass", "missclass_switch",
    "objects", "objects_cxx", "transpose_naive", "collect_off",
    "loop_entry", "stream", "long_block"] + sorted(CRASHING)
# for the rarer option sets: dumps, zero, toggles and instrumentation
# switches (clreq), the blocks replayed in parts and a fault in one
RARE = ["clreq", "long_block", "long_block_fault"]

CACHEUSE = ["--cacheuse=yes", "--backdate-check=yes"]
COMMON_SETS = {
    "sim": ["--cache-sim=yes", "--dump-instr=yes"],
    "cacheuse": CACHEUSE,
}
RARE_SETS = {
    "private": CACHEUSE + ["--private-caches=yes"],
    "objects": ["--objects=yes"],
    "miss-class": ["--miss-class=yes"],
    "reuse-dist": ["--reuse-dist=yes"],
    "wb": ["--simulate-wb=yes", "--simulate-hwpref=yes"],
    "wb-cacheuse": CACHEUSE + ["--simulate-wb=yes"],
    "branch": ["--cache-sim=yes", "--branch-sim=yes"],
    "jumps": ["--cache-sim=yes", "--collect-jumps=yes"],
    "l2-prefetch": ["--L2=65536,4,64", "--prefetch=stream"],
    "sharing": ["--sharing=yes"],
    "bus": ["--cache-sim=yes", "--collect-bus=yes"],
    "dumps": ["--cache-sim=yes", "--dump-every-bb=3000"],
}
# extra clients of a rare set
RARE_EXTRA = {
    "private": ["atomics", "segv"],
    "objects": ["objects", "objects_cxx"],
    "miss-class": ["missclass", "missclass_switch"],
    "reuse-dist": ["missclass", "missclass_switch"],
    "l2-prefetch": ["stream", "transpose_naive"],
    "bus": ["atomics"],
}
# (label, client, options): collection toggled, code skipped
FN_SETS = [
    ("toggle", "calls", ["--toggle-collect=middle"]),
    ("toggle", "recursion", ["--toggle-collect=fib"]),
    ("toggle", "clreq", ["--toggle-collect=phase_b"]),
    ("toggle", "long_block", ["--toggle-collect=masked"]),
    ("toggle", "long_block_fault", ["--toggle-collect=main"]),
    ("toggle-cacheuse", "long_block", CACHEUSE + ["--toggle-collect=copy40"]),
    ("skip", "calls", ["--fn-skip=square"]),
    ("skip", "recursion", ["--fn-skip=is_odd"]),
    ("skip", "clreq", ["--fn-skip=inner"]),
    ("skip", "long_block", ["--fn-skip=copy40"]),
    ("skip", "long_block_fault", ["--fn-skip=copy40"]),
    ("skip-cacheuse", "long_block", CACHEUSE + ["--fn-skip=masked"]),
    ("zero-before", "calls", ["--zero-before=middle"]),
]


def is_backdated(event):
    return private_caches.is_backdated(event)


def is_reuse(event):
    return re.match(r"Rd(\d+|Cold)$", event) is not None


def in_loader(obj):
    """The dynamic loader's object (its string functions' reuse distances
    vary between identical runs)."""
    return "/ld-linux" in obj or "/ld-" in obj


# -- the files of a pair, line by line ---------------------------------------

def cost_tokens(line, npos):
    """(positions, costs) of a cost line (or summary:/totals:), else None."""
    for key in ("summary:", "totals:"):
        if line.startswith(key):
            return [], line[len(key):].split()
    if not line or not (line[0].isdigit() or line[0] in "+-*"):
        return None
    t = line.split()
    return t[:npos], t[npos:]


class Columns:
    """What a file's lines mean so far: positions, the columns of the
    back-dated and reuse-distance events, the current object."""

    def __init__(self):
        self.npos, self.nev, self.backdated, self.reuse = 1, 0, set(), set()
        self.objs, self.obj = {}, ""

    def see(self, line):
        if line.startswith("positions:"):
            self.npos = len(line.split()) - 1
        elif line.startswith("events:"):
            ev = line.split()[1:]
            self.nev = len(ev)
            self.backdated = {i for i, e in enumerate(ev) if is_backdated(e)}
            self.reuse = {i for i, e in enumerate(ev) if is_reuse(e)}
        elif line.startswith("ob="):
            m = re.match(r"ob=\((\d+)\)(?: (.*))?$", line)
            if m and m.group(2):
                self.objs[m.group(1)] = m.group(2)
            self.obj = self.objs.get(m.group(1), "") if m else line[3:]


def line_noise(a, b, col):
    """How lines a and b (at col) differ: None if they do not beyond the
    noise of identical runs, else "real"; "backdated" when only back-dated
    columns differ, "reuse" when only reuse-distance buckets do, of the
    loader's code or the whole run's, with the same number of accesses."""
    ta, tb = cost_tokens(a, col.npos), cost_tokens(b, col.npos)
    if ta is None or tb is None or ta[0] != tb[0]:
        return "real"
    ca, cb = ta[1], tb[1]
    n = max(len(ca), len(cb), col.nev)      # trailing zeros are left out
    ca, cb = ca + ["0"] * (n - len(ca)), cb + ["0"] * (n - len(cb))
    diff = {i for i, (x, y) in enumerate(zip(ca, cb)) if x != y}
    if diff <= col.backdated:
        return "backdated"
    whole = a.startswith(("summary:", "totals:"))
    if diff <= col.reuse and (whole or in_loader(col.obj)) and \
            sum(int(ca[i]) for i in col.reuse) == \
            sum(int(cb[i]) for i in col.reuse):
        return "reuse"
    return "real"


def file_problems(yes_path, no_path):
    """(problems, backdated): the file written with --defer-sim=yes is the
    one written with =no, line for line (pid: aside); backdated: some
    back-dated column differs (left to the loader-noise check)."""
    with open(yes_path, errors="replace") as fh:
        ya = fh.read().split("\n")
    with open(no_path, errors="replace") as fh:
        nb = fh.read().split("\n")
    ya = [l for l in ya if not l.startswith("pid:")]
    nb = [l for l in nb if not l.startswith("pid:")]
    if ya == nb:
        return [], False
    if len(ya) != len(nb):
        return [first_diff(ya, nb)], False
    col, backdated = Columns(), False
    for a, b in zip(ya, nb):
        col.see(a)
        if a == b:
            continue
        kind = line_noise(a, b, col)
        if kind == "real":
            return [first_diff(ya, nb)], False
        backdated = backdated or kind == "backdated"
    return [], backdated


def first_diff(ya, nb):
    """The first differing lines, as a short unified diff (=no first)."""
    d = list(difflib.unified_diff(nb, ya, "defer-sim=no", "defer-sim=yes",
                                  n=1, lineterm=""))
    return "differs from --defer-sim=no: " + " | ".join(d[2:12])


def summary_lines(stderr):
    """The exit summary on stderr, without the ==pid== prefixes."""
    lines = [re.sub(r"^==\d+== ?", "", l) for l in stderr.splitlines()
             if l.startswith("==")]
    start = [i for i, l in enumerate(lines) if l.startswith("Events")]
    return lines[start[-1]:] if start else []


def summary_problems(yes, no):
    """The same exit summary (the profile's name aside); Collected's
    back-dated and reuse-distance figures are checked on the profile."""
    a = summary_lines(yes.stderr.replace(os.path.basename(yes.out), "OUT"))
    b = summary_lines(no.stderr.replace(os.path.basename(no.out), "OUT"))
    if not a:
        return ["no exit summary on stderr"]
    if len(a) == len(b):
        ev = a[0].split(":", 1)[1].split()
        skip = {i for i, e in enumerate(ev) if is_backdated(e) or is_reuse(e)}
        a = [drop_cols(l, skip) for l in a]
        b = [drop_cols(l, skip) for l in b]
    if a == b:
        return []
    return ["exit summary " + " | ".join(
        difflib.unified_diff(b, a, "no", "yes", n=0, lineterm=""))]


def drop_cols(line, skip):
    if not line.startswith("Collected"):
        return line
    v = line.split(":", 1)[1].split()
    return "Collected : " + " ".join(x for i, x in enumerate(v)
                                     if i not in skip)


def noise_problems(yes, no):
    """private_caches.same_profile over the files: the back-dated
    differences are the loader functions' noise, within its budget."""
    fy, fn = private_caches.suffixes(yes), private_caches.suffixes(no)
    budgets, probs = {}, []
    for suffix in sorted(fn, key=lambda s: s.endswith(".objects")):
        main = suffix[:-len(".objects")] if suffix.endswith(".objects") \
            else None
        p, budgets[suffix] = private_caches.same_profile(
            fy[suffix], fn[suffix],
            budgets.get(main) if main is not None else None, [])
        probs += ["%s: %s" % (suffix or "profile", x) for x in p]
    return probs


def pair_problems(client, tag, opts):
    rc = CRASHING.get(client, 0)
    no = harness.run_tool(harness.OURS, client, opts + NO, tag, "no.out")
    yes = harness.run_tool(harness.OURS, client, opts + YES, tag, "yes.out")
    probs = harness.run_problems(no, rc) + harness.run_problems(yes, rc)
    if probs:
        return probs
    if "matched no function" in yes.stderr:    # a pattern that tests nothing
        return [l for l in yes.stderr.splitlines() if "matched no" in l]
    fy, fn = private_caches.suffixes(yes), private_caches.suffixes(no)
    if sorted(fy) != sorted(fn):
        return ["files %s, with --defer-sim=no %s" % (sorted(fy), sorted(fn))]
    backdated = False
    for suffix in sorted(fn):
        p, n = file_problems(fy[suffix], fn[suffix])
        probs += ["%s: %s" % (suffix or "profile", x) for x in p]
        backdated = backdated or n
    probs += summary_problems(yes, no)
    if backdated and not probs:
        probs = noise_problems(yes, no)
    return probs


def same_profiles(client, tag, opts):
    """pair_problems, once more when it failed on the loader noise alone
    (it does not repeat; a real difference does)."""
    probs = pair_problems(client, tag, opts)
    if probs and private_caches.only_loader_noise(probs):
        probs = pair_problems(client, tag, opts)
    return probs


def case(label, client, opts):
    name = "defer/%s/%s" % (label, client)

    def run():
        return [(name, same_profiles(client, "defer-%s-%s" % (label, client),
                                     GEOM + opts))]
    return (name, run)


# -- threads -----------------------------------------------------------------

# the workers' loop of each threaded client: the same instructions and
# data accesses in every run, whatever the schedule
LOOP_FN = {"threads": "spin", "zero_threads": "walk"}


def loop_costs(run, fn):
    """{thread file suffix: fn's self Ir Dr Dw} of a --separate-threads run."""
    costs = {}
    for path in run.files():
        m = re.search(r"-(\d\d)$", path)
        f = profiles.parse(path).merged().fns.get(fn) if m else None
        if f:
            costs[m.group(1)] = {e: f.self_cost.get(e, 0)
                                 for e in ("Ir", "Dr", "Dw")}
    return costs


def threaded_case(client, label, extra):
    name = "defer/threads/%s/%s" % (label, client)

    def run():
        tag = "defer-threads-%s-%s" % (label, client)
        opts = GEOM + extra + CACHEUSE
        r = harness.run_tool(harness.OURS, client, opts + YES, tag)
        probs = harness.run_problems(r)
        if probs:
            return [(name, probs)]
        results = [(name + "/oracle", checks.backdate_arc_problems(r.out)),
                   checks.conservation_result(name + "/conservation", r,
                                              where_ir_holds=True)]
        sep = ["--separate-threads=yes"]
        no = harness.run_tool(harness.OURS, client, opts + NO + sep, tag,
                              "no.out")
        yes = harness.run_tool(harness.OURS, client, opts + YES + sep, tag,
                               "yes.out")
        fn = LOOP_FN[client]
        a, b = loop_costs(yes, fn), loop_costs(no, fn)
        probs = [] if a and a == b else \
            ["%s per thread: %s, with --defer-sim=no %s" % (fn, a, b)]
        results.append((name + "/" + fn, probs))
        return results
    return run


def main():
    cases = []
    for label, opts in COMMON_SETS.items():
        cases += [case(label, c, opts) for c in SINGLE_THREADED]
    for label, opts in RARE_SETS.items():
        cases += [case(label, c, opts)
                  for c in RARE + RARE_EXTRA.get(label, [])]
    cases += [case(label, c, ["--cache-sim=yes"] + opts
                   if "cacheuse" not in label else opts)
              for label, c, opts in FN_SETS]
    for c in ("threads", "zero_threads"):
        for label, extra in (("shared", []),
                             ("private", ["--private-caches=yes"])):
            cases.append(("defer/threads/%s/%s" % (label, c),
                          threaded_case(c, label, extra)))
    return harness.run_cases(cases)


if __name__ == "__main__":
    harness.main_guard(main)
