#!/usr/bin/env python3
"""--bandwidth=yes: bandwidth requirements per data path and thread, the
Flop event, dominance against a machine file, <profile>.bandwidth
(docs/bandwidth-format.md).

1. Identities, on single-threaded and threaded clients (whole runs):
   in every thread section and the `thread: all` section, every path's
   histogram is sorted, sum(n) = units + W and sum(s * n) = W * total
   (the thesis' identity: the area under the curve is the bytes moved;
   the script's reader, tools/cgbd/bandwidth.py, refuses a file without);
   and against the profile's own counts, summed over threads (summary:,
   which like the file includes the block running at exit):
   units = Ir, flop = Flop, L1<-LL = (I1mr + D1mr + D1mw) x 64,
   LL<-mem = (ILmr + DLmr + DLmw) x 64, LL->mem = (ILdmr + DLdmr + DLdmw)
   x 64, L1<-L1 = (D1Ts + D1Fs) x 64, L1->LL whole lines; `thread: all`
   totals = the threads' LL<-mem / LL->mem
   totals, and its units are at least every thread's.
2. By hand (clients/bandwidth.c, kernels in assembly, collection only in
   the kernel with --toggle-collect): access_kernel, N = 1000 iterations
   of 6 instructions reading 32 and writing 12 bytes, then ret (reads 8):
   units = Ir = 6N + 1, core<-L1 = 32N + 8, core->L1 = 12N, Dr = 2N + 1,
   Dw = 2N (the modify is one Dw, read and written).  flop_sse: 16 flops
   per iteration, flop_avx: 30 (FMA lanes count two): Flop = 16N / 30N,
   with unit instr and unit flop; with unit flop, units = Flop + 1 (the
   ret's bytes after the last flop make one more unit).  store_lines: one
   store into each of N lines; D1 write-backs (L1->LL) of N = 2048 minus
   those of N = 1024 = 1024 lines exactly (see writeback_case).
3. Dominance.  Limits so low that most units are dominated: every unit
   is counted once (peak-units + dom: counts = units per thread) and the
   profile's events agree with the file (each Bw event = the threads'
   dom: counts of its path, BwPk = peak-units, together = Ir), the shared
   paths included; with dumps, in every part the Bw events add up to Ir.
   Limits above every requirement: no unit dominated, every
   dom: empty, peak-units = units, BwPk = Ir and no other Bw event.  A
   constant requirement (access_kernel, W = 600, a multiple of the loop's
   6 instructions, so the steady window sum is 100 x 32 bytes: 5.33 bytes
   per unit) against a core<-L1 limit of 2.5 bytes per unit (less than
   half): the units dominated and their window sums are derived from the
   kernel's per-instruction reads (8, 0, 8, 16, 0, 0; ret 8) and the
   window definition; BwCr of access_kernel = that count, BwPk = the
   rest; the added time (thesis figure 4.7: sum over dominated units of
   s / (W L) - 1) from the file's dom: line equals the hand value.
4. Without --bandwidth no .bandwidth file and no Flop event; bad options
   and machine files stop before the client runs with one line naming
   the option or the file and line.
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "lib"))
import cgfile           # noqa: E402
import checks           # noqa: E402
import harness          # noqa: E402
from cgbd import bandwidth  # noqa: E402

LINE = 64
GEOM = ["--I1=32768,8,64", "--D1=32768,8,64", "--LL=262144,8,64"]
BW = ["--bandwidth=yes"]
N = 1000
PATHS = ["core<-L1", "core->L1", "L1<-LL", "L1->LL", "L1<-L1", "LL<-mem",
         "LL->mem", "flop"]
SINGLE = ["calls", "recursion", "exception", "signal", "longjmp",
          "bandwidth_access"]
# the hand-over clients move lines between cores (L1<-L1); thread_exit
# ends with exit(3) in a second thread; zero_threads zeroes the profile
# mid-run (the file is not zeroed: only its own identities are checked)
THREADED = ["threads", "thread_exit", "sharing_false", "sharing_true",
            "zero_threads"]
EXIT_STATUS = {"thread_exit": 3}
ZEROED = {"zero_threads"}
KERNELS = ["--toggle-collect=access_kernel", "--toggle-collect=flop_sse",
           "--toggle-collect=flop_avx"]


# -- the file ------------------------------------------------------------------

def read_bandwidth(path):
    """The file through the script's reader (tools/cgbd/bandwidth.py), which
    refuses it, naming the line, unless in every thread and path the
    histogram is strictly ascending, sum(n) = units + W and sum(s * n) =
    W * total: a refusal fails the case with that line."""
    return bandwidth.parse(path)


def file_problems(bw):
    """What the reader lets pass: every thread has every path (`thread:
    all` the shared two) with a histogram, and no key it does not know."""
    probs = ["unknown key at %s" % k for k in bw.ignored]
    for t in bw.threads:
        names = PATHS if t.tid != "all" else ["LL<-mem all", "LL->mem all"]
        for p in names:
            if p not in t.paths or t.paths[p].hist is None:
                probs.append("thread %s: no path %s" % (t.tid, p))
    return probs


def sum_threads(bw, path):
    return sum(t.paths[path].total for t in bw.cores())


def g(cost, *events):
    return sum(cost.get(e, 0) for e in events)


def profile_problems(bw, summary):
    """Totals over threads against the profile's summary."""
    want = {
        "units": summary["Ir"],
        "flop": summary["Flop"],
        "L1<-LL": g(summary, "I1mr", "D1mr", "D1mw") * LINE,
        "LL<-mem": g(summary, "ILmr", "DLmr", "DLmw") * LINE,
        "LL->mem": g(summary, "ILdmr", "DLdmr", "DLdmw") * LINE,
        "L1<-L1": g(summary, "D1Ts", "D1Fs") * LINE,
    }
    got = {p: sum_threads(bw, p) for p in want if p != "units"}
    got["units"] = sum(t.units for t in bw.cores())
    probs = ["%s: %d, want %d" % (k, got[k], want[k]) for k in want
             if got[k] != want[k]]
    if sum_threads(bw, "L1->LL") % LINE:
        probs.append("L1->LL %d: not whole lines" % sum_threads(bw, "L1->LL"))
    al = bw.thread("all")
    if al is None:
        return probs + ["no thread: all section"]
    for p in ("LL<-mem", "LL->mem"):
        if al.paths[p + " all"].total != sum_threads(bw, p):
            probs.append("%s all: total %d, threads' %d"
                         % (p, al.paths[p + " all"].total,
                            sum_threads(bw, p)))
    most = max(t.units for t in bw.cores())
    if al.units < most:
        probs.append("thread all: units %d < a thread's %d" % (al.units, most))
    return probs


def run_bw(client, opts, tag, name=None):
    r = harness.run_tool(harness.OURS, client, GEOM + BW + opts, tag, name)
    probs = harness.run_problems(r, EXIT_STATUS.get(client, 0))
    if not probs and not os.path.exists(r.out + ".bandwidth"):
        probs = ["no %s.bandwidth" % r.out]
    return r, probs


# -- 1. identities -----------------------------------------------------------------

def identity_case(client):
    name = "bandwidth/identity/" + client

    def run():
        r, probs = run_bw(client, [], "bw-id-" + client)
        if probs:
            return [(name, probs)]
        bw = read_bandwidth(r.out + ".bandwidth")
        if client in ZEROED:
            return [(name + "/file", file_problems(bw))]
        summary = cgfile.parse(r.out).parts[0].summary
        return [(name + "/file", file_problems(bw)),
                (name + "/profile", profile_problems(bw, summary))]
    return run


# -- 2. by hand --------------------------------------------------------------------

def kernel_fn(part, fn):
    return part.fns[fn].self_cost if fn in part.fns else {}


def access_case():
    name = "bandwidth/hand/access"

    def run():
        r, probs = run_bw("bandwidth_access", KERNELS, "bw-access")
        if probs:
            return [(name, probs)]
        bw = read_bandwidth(r.out + ".bandwidth")
        part = cgfile.parse(r.out).parts[0]
        t = bw.thread("1")
        c = kernel_fn(part, "access_kernel")
        got = {"units": t.units, "core<-L1": t.paths["core<-L1"].total,
               "core->L1": t.paths["core->L1"].total,
               "Ir": c.get("Ir", 0), "Dr": c.get("Dr", 0), "Dw": c.get("Dw", 0),
               "summary Ir": part.summary["Ir"]}
        want = {"units": 6 * N + 1, "core<-L1": 32 * N + 8, "core->L1": 12 * N,
                "Ir": 6 * N + 1, "Dr": 2 * N + 1, "Dw": 2 * N,
                "summary Ir": 6 * N + 1}
        return [(name, ["%s: %d, want %d" % (k, got[k], want[k])
                        for k in want if got[k] != want[k]]
                 + file_problems(bw))]
    return run


def has_avx_fma():
    try:
        with open("/proc/cpuinfo") as fh:
            flags = fh.read().split()
    except OSError:
        return False
    return "avx" in flags and "fma" in flags


def flop_case(kind, per_iter, unit):
    name = "bandwidth/hand/flop-%s-%s" % (kind, unit)

    def run():
        if kind == "avx" and not has_avx_fma():
            return [(name, [], "skipped: no AVX/FMA on this host")]
        fn = "flop_" + kind
        r, probs = run_bw("bandwidth_" + kind,
                          KERNELS + ["--bandwidth-unit=" + unit],
                          "bw-flop-%s-%s" % (kind, unit))
        if probs:
            return [(name, probs)]
        bw = read_bandwidth(r.out + ".bandwidth")
        part = cgfile.parse(r.out).parts[0]
        t = bw.thread("1")
        flops = per_iter * N
        want = {"Flop of " + fn: flops, "summary Flop": flops,
                "file flop": flops,
                "units": flops + 1 if unit == "flop" else 10 * N + 1
                if kind == "sse" else 8 * N + 2}
        got = {"Flop of " + fn: kernel_fn(part, fn).get("Flop", 0),
               "summary Flop": part.summary["Flop"],
               "file flop": t.paths["flop"].total, "units": t.units}
        return [(name, ["%s: %d, want %d" % (k, got[k], want[k])
                        for k in want if got[k] != want[k]]
                 + file_problems(bw))]
    return run


def smc_case():
    """The counted replay's Flop events reach the cost slots through the
    block's run counts (as Ir): a block translated again with other flops
    (clients/bandwidth.c smc: the same address and instruction count,
    addsd, then orpd, then addsd again, N runs each) must count each
    run's own flops: the functions' Flop = the summary's = the file's =
    2N."""
    name = "bandwidth/hand/flops-retranslated"

    def run():
        r, probs = run_bw("bandwidth_smc", ["--toggle-collect=run_smc"], "bw-smc")
        if probs:
            return [(name, probs)]
        bw = read_bandwidth(r.out + ".bandwidth")
        part = cgfile.parse(r.out).parts[0]
        want = 2 * N
        got = {"Flop of the functions": sum(f.self_cost.get("Flop", 0)
                                            for f in part.fns.values()),
               "summary Flop": part.summary["Flop"],
               "file flop": bw.thread("1").paths["flop"].total}
        return [(name, ["%s: %d, want %d" % (k, v, want)
                        for k, v in got.items() if v != want])]
    return run


def writeback_case():
    """L1->LL: store_lines writes one word into each of N consecutive lines
    (D1 32 KiB, 8-way, 64 sets: each set gets N/64 lines, so every line
    but the last 512 is evicted dirty inside the kernel).  The lines dirty
    before the kernel and the ret's miss are the same for N = 1024 and
    2048, so the difference is exactly 1024 lines; and each run is at
    least (N - 512) lines, at most 512 + 1 more."""
    name = "bandwidth/hand/write-back"

    def run():
        got = {}
        for client, n in (("bandwidth_wb1k", 1024), ("bandwidth_wb2k", 2048)):
            r, probs = run_bw(client, ["--toggle-collect=store_lines"], "bw-" + client)
            if probs:
                return [(name, probs)]
            bw = read_bandwidth(r.out + ".bandwidth")
            got[n] = bw.thread("1").paths["L1->LL"].total
            probs = file_problems(bw)
            if not (n - 512) * LINE <= got[n] <= (n + 1) * LINE:
                probs.append("N = %d: L1->LL %d outside [%d, %d]"
                             % (n, got[n], (n - 512) * LINE, (n + 1) * LINE))
            if probs:
                return [(name, probs)]
        diff = got[2048] - got[1024]
        return [(name, [] if diff == 1024 * LINE else
                 ["L1->LL(2048) - L1->LL(1024) = %d, want %d" % (diff, 1024 * LINE)])]
    return run


# -- 3. dominance ------------------------------------------------------------------

def machine_file(tag, text):
    d = os.path.join(harness.OUT, tag)
    os.makedirs(d, exist_ok=True)
    path = os.path.join(d, "machine")
    with open(path, "w") as fh:
        fh.write(text)
    return path


def run_limits(client, machine, tag, opts=()):
    """run_bw with --bandwidth-limits= the machine file text `machine`."""
    return run_bw(client, list(opts) + ["--bandwidth-limits="
                                        + machine_file(tag, machine)], tag)


HIGH = """# every limit far above any requirement
name: roomy
clock: 1e9
instr-per-cycle: 1
flop-per-cycle: 1000
core<-L1: 1e15
core->L1: 1e15
L1<-LL: 1e15
L1->LL: 1e15
L1<-L1: 1e15
LL<-mem: 1e15
LL->mem: 1e15
LL<-mem all: 1e15
LL->mem all: 1e15
"""


def high_case(client):
    name = "bandwidth/dominance/high/" + client

    def run():
        r, probs = run_limits(client, HIGH, "bw-high-" + client)
        if probs:
            return [(name, probs)]
        bw = read_bandwidth(r.out + ".bandwidth")
        part = cgfile.parse(r.out).parts[0]
        summary = part.summary
        # the written costs too: the block running at exit is dropped
        # with all its events (Ir and BwPk alike)
        if part.totals.get("BwPk") != part.totals["Ir"]:
            probs.append("totals: BwPk %s, Ir %d" % (part.totals.get("BwPk"),
                                                    part.totals["Ir"]))
        for t in bw.cores():
            if t.peak_units != t.units:
                probs.append("thread %s: peak-units %s, units %d"
                             % (t.tid, t.peak_units, t.units))
            for p, block in t.paths.items():
                if block.dom:
                    probs.append("thread %s %s: dom %s" % (t.tid, p, block.dom[:3]))
        if summary.get("BwPk") != summary["Ir"]:
            probs.append("BwPk %s, Ir %d" % (summary.get("BwPk"), summary["Ir"]))
        others = [e for e in summary if e.startswith("Bw") and e != "BwPk"
                  and summary[e]]
        if others:
            probs.append("dominance events %s" % others)
        if len(bw.limits) != 10:
            probs.append("limit: lines for %s" % sorted(bw.limits))
        return [(name, probs + file_problems(bw))]
    return run


LOW = """# limits so low that most units with traffic are dominated
clock: 1e9
instr-per-cycle: 1
flop-per-cycle: 0.001
core<-L1: 1e9
core->L1: 0.5e9
L1<-LL: 0.1e9
L1->LL: 0.5e9
L1<-L1: 0.01e9
LL<-mem: 0.05e9
LL->mem: 0.05e9
LL<-mem all: 0.06e9
LL->mem all: 0.06e9
"""
EVENT = {"core<-L1": "BwCr", "core->L1": "BwCw", "L1<-LL": "BwLr",
         "L1->LL": "BwLw", "L1<-L1": "BwXr", "LL<-mem": "BwMr",
         "LL->mem": "BwMw", "flop": "BwF", "LL<-mem all": "BwMrA",
         "LL->mem all": "BwMwA"}


def low_case(client):
    """Every unit counted once: per thread, peak-units + the dom: counts of
    every path = units; in the profile (summary:), each Bw event = the
    threads' dom: counts of its path, BwPk = their peak-units, and all of
    them together = Ir."""
    name = "bandwidth/dominance/low/" + client

    def run():
        r, probs = run_limits(client, LOW, "bw-low-" + client)
        if probs:
            return [(name, probs)]
        bw = read_bandwidth(r.out + ".bandwidth")
        summary = cgfile.parse(r.out).parts[0].summary
        per_path = dict.fromkeys(EVENT, 0)
        peak = 0
        for t in bw.cores():
            doms = {p: sum(n for _, n in b.dom or [])
                    for p, b in t.paths.items()}
            if t.peak_units + sum(doms.values()) != t.units:
                probs.append("thread %s: peak %d + dominated %d != units %d"
                             % (t.tid, t.peak_units, sum(doms.values()), t.units))
            for p, n in doms.items():
                per_path[p] += n
            peak += t.peak_units
        for p, e in EVENT.items():
            if summary.get(e, 0) != per_path[p]:
                probs.append("%s %d, file's %s dom: %d" % (e, summary.get(e, 0), p,
                                                          per_path[p]))
        if summary.get("BwPk", 0) != peak:
            probs.append("BwPk %d, file's peak-units %d" % (summary.get("BwPk", 0), peak))
        if sum(summary.get(e, 0) for e in list(EVENT.values()) + ["BwPk"]) != summary["Ir"]:
            probs.append("Bw events do not add up to Ir")
        if not any(per_path[p] for p in ("LL<-mem all", "LL->mem all", "L1<-LL")):
            probs.append("nothing dominated by the low limits: %s" % per_path)
        return [(name, probs + file_problems(bw))]
    return run


def dumps_case():
    """Dumps (--dump-every-bb): the running units close before each part
    is written, so in every part the Bw events add up to its Ir."""
    name = "bandwidth/dominance/dumps"

    def run():
        r, probs = run_limits("threads", LOW, "bw-dumps",
                              ["--dump-every-bb=5000"])
        if probs:
            return [(name, probs)]
        parts = [f for f in r.files() if not f.endswith(".bandwidth")]
        if len(parts) < 3:
            probs.append("only %d parts" % len(parts))
        for f in parts:
            t = cgfile.parse(f).parts[0].totals
            bw = sum(t.get(e, 0) for e in list(EVENT.values()) + ["BwPk"])
            if bw != t["Ir"]:
                probs.append("%s: Bw events %d, Ir %d" % (os.path.basename(f), bw, t["Ir"]))
        return [(name, probs)]
    return run


CONST = """clock: 1e9
instr-per-cycle: 1
core<-L1: 2.5e9
"""
W_CONST = 600
L_CONST = 2.5


def const_expect():
    """Dominated units of access_kernel and their window sums, from its
    reads per instruction and the window's definition."""
    reads = [8, 0, 8, 16, 0, 0] * N + [8]
    dom = {}
    s = 0
    for t, r in enumerate(reads):
        s += r - (reads[t - W_CONST] if t >= W_CONST else 0)
        if s > W_CONST * L_CONST:
            dom[s] = dom.get(s, 0) + 1
    return len(reads), dom


def const_case():
    name = "bandwidth/dominance/constant"

    def run():
        r, probs = run_limits("bandwidth_access", CONST, "bw-const",
                              KERNELS + ["--bandwidth-window=%d" % W_CONST])
        if probs:
            return [(name, probs)]
        units, dom = const_expect()
        bw = read_bandwidth(r.out + ".bandwidth")
        t = bw.thread("1")
        c = kernel_fn(cgfile.parse(r.out).parts[0], "access_kernel")
        ndom = sum(dom.values())
        got_dom = dict(t.paths["core<-L1"].dom)
        if got_dom != dom:
            probs.append("dom: %s, want %s" % (sorted(got_dom.items())[:4],
                                               sorted(dom.items())[:4]))
        want = {"units": units, "peak-units": units - ndom, "BwCr": ndom,
                "BwPk": units - ndom}
        got = {"units": t.units, "peak-units": t.peak_units,
               "BwCr": c.get("BwCr", 0), "BwPk": c.get("BwPk", 0)}
        probs += ["%s: %d, want %d" % (k, got[k], want[k]) for k in want
                  if got[k] != want[k]]
        # thesis fig. 4.7: each dominated unit adds s / (W L) - 1 units
        added = sum(n * (s / (W_CONST * L_CONST) - 1) for s, n in got_dom.items())
        hand = sum(n * (s / (W_CONST * L_CONST) - 1) for s, n in dom.items())
        if abs(added - hand) > 1e-6 * max(1, hand):
            probs.append("added time %.3f, want %.3f" % (added, hand))
        if abs(bw.limits.get("core<-L1", 0) - L_CONST) > 1e-6:
            probs.append("limit: core<-L1 %s" % bw.limits.get("core<-L1"))
        return [(name, probs + file_problems(bw))]
    return run


# -- 4. default, errors --------------------------------------------------------------

def default_case():
    name = "bandwidth/default-off"

    def run():
        r = harness.run_tool(harness.OURS, "calls", GEOM + ["--cache-sim=yes"],
                             "bw-off")
        probs = harness.run_problems(r)
        if os.path.exists(r.out + ".bandwidth"):
            probs.append("a .bandwidth file without --bandwidth=yes")
        if not probs and "Flop" in cgfile.parse(r.out).parts[0].events:
            probs.append("event Flop without --bandwidth=yes")
        return [(name, probs)]
    return run


def refusal_case(label, opts, expect):
    """opts refused before the client ran, the error naming `expect`
    (an option or a file:line)."""
    name = "bandwidth/refused/" + label

    def run():
        tag = "bw-bad-" + label
        opts_ = [o.replace("@DIR", os.path.join(harness.OUT, tag)) for o in opts]
        os.makedirs(os.path.join(harness.OUT, tag), exist_ok=True)
        r = harness.run_tool(harness.OURS, "calls", opts_, tag)
        if expect.startswith("--"):
            return [(name, checks.refusal_problems(r, expect))]
        probs = []
        want = expect.replace("@DIR", os.path.join(harness.OUT, tag))
        if r.returncode == 0:
            probs.append("exit status 0")
        lines = r.stderr.strip().splitlines()
        if not any(want in ln for ln in lines):
            probs.append("error does not name %r: %r" % (want, r.stderr.strip()[-200:]))
        if os.path.exists(r.out):
            probs.append("the client ran (profile written)")
        return [(name, probs)]
    return run


def bad_machine(label, text, expect):
    machine_file("bw-bad-" + label, text)
    return refusal_case(label, ["--bandwidth=yes", "--bandwidth-limits=@DIR/machine"],
                        expect)


def cases():
    c = [("bandwidth/identity/" + cl, identity_case(cl)) for cl in SINGLE + THREADED]
    c += [("bandwidth/hand/access", access_case()),
          ("bandwidth/hand/write-back", writeback_case()),
          ("bandwidth/hand/flops-retranslated", smc_case())]
    for kind, per in (("sse", 16), ("avx", 30)):
        for unit in ("instr", "flop"):
            c.append(("bandwidth/hand/flop-%s-%s" % (kind, unit),
                      flop_case(kind, per, unit)))
    c += [("bandwidth/dominance/high/" + cl, high_case(cl))
          for cl in ("calls", "threads")]
    c += [("bandwidth/dominance/low/" + cl, low_case(cl))
          for cl in ("calls", "signal", "threads", "sharing_false")]
    c += [("bandwidth/dominance/dumps", dumps_case()),
          ("bandwidth/dominance/constant", const_case()),
          ("bandwidth/default-off", default_case())]
    bad = [("unit", ["--bandwidth=yes", "--bandwidth-unit=cycle"], "--bandwidth-unit"),
           ("window", ["--bandwidth=yes", "--bandwidth-window=0"], "--bandwidth-window"),
           ("without", ["--bandwidth-window=100"], "--bandwidth-window"),
           ("limits-without", ["--bandwidth-limits=x"], "--bandwidth-limits"),
           ("wb-no", ["--simulate-wb=no", "--bandwidth=yes"], "--simulate-wb"),
           # two levels and demand loads only (docs/differences.md)
           ("L2", ["--bandwidth=yes", "--L2=262144,8,64"], "--L2"),
           ("L2-host", ["--L2=host", "--bandwidth=yes"], "--L2"),
           ("prefetch", ["--bandwidth=yes", "--prefetch=stream"], "--prefetch"),
           ("no-file", ["--bandwidth=yes", "--bandwidth-limits=@DIR/none"],
            "@DIR/none' (--bandwidth-limits): no such file or directory"),
           ("directory", ["--bandwidth=yes", "--bandwidth-limits=@DIR"],
            "@DIR' (--bandwidth-limits): is a directory")]
    c += [("bandwidth/refused/" + label, refusal_case(label, o, e)) for label, o, e in bad]
    c += [("bandwidth/refused/unknown-key",
           bad_machine("unknown-key", "clock: 1e9\ninstr-per-cycle: 4\nL2<-LL: 5\n",
                       "@DIR/machine:3:")),
          ("bandwidth/refused/bad-number",
           bad_machine("bad-number", "# c\nclock: fast\n", "@DIR/machine:2:")),
          ("bandwidth/refused/no-clock",
           bad_machine("no-clock", "instr-per-cycle: 4\n", "@DIR/machine: 'clock' missing")),
          ("bandwidth/refused/no-rate",
           bad_machine("no-rate", "clock: 1e9\nflop-per-cycle: 4\n",
                       "@DIR/machine: 'instr-per-cycle' missing"))]
    return c


def main():
    return harness.run_cases(cases())


if __name__ == "__main__":
    harness.main_guard(main)
