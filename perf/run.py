#!/usr/bin/env python3
"""callgrind-bd benchmark harness: speed and memory against the reference.

    perf/run.py              # full run: build, >= 3 interleaved repetitions,
                             # writes perf/RESULTS.md and perf/ratios.png
    perf/run.py --quick      # smoke test: small sizes, 1 repetition, writes
                             # perf/build/RESULTS-quick.md (+ png)

Each benchmark runs natively, under `valgrind --tool=none`, under the
reference Callgrind (--cache-sim=yes; --cache-sim=yes --cacheuse=yes) and
under callgrind-bd (the same two, plus --cacheuse=yes --backdate=no).
Inside one repetition all configurations of a benchmark run back to back,
in an order rotated every repetition, so that a load change on the machine
hits every configuration alike and the ratios stay meaningful even when the
absolute times do not.  Wall time comes from time.perf_counter around the
child, peak memory from the child's own rusage (os.wait4, ru_maxrss).

The table holds medians over the repetitions and their ratios; the
"median" row is the median over benchmarks of each ratio, which is what
the targets of issue 6 are about.  Raw measurements go to
perf/build/raw-<stamp>.json; `--report RAW.json` rewrites the report from
them, `--baseline RAW.json` adds a before/after comparison.

Only the Python standard library is needed; the plot is drawn by
perf/plot.py with matplotlib when some python3 on the machine has it
(Debian: python3-matplotlib), and skipped with a note otherwise.
Timings are never asserted by the test suite.
"""
import argparse
import datetime
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PERF = os.path.join(ROOT, "perf")
BUILD = os.path.join(PERF, "build")
BIN = os.path.join(BUILD, "bin")
OUT = os.path.join(BUILD, "out")

# name -> command line per size: "full" (the reference Callgrind with
# --cacheuse=yes takes 2-6 s on a quiet machine), "medium" (about a third
# of the work, for a loaded machine) and "quick" (smoke test).  {bin} is
# the benchmark build directory, {bench} perf/bench, {data} the generated
# input.
BENCHMARKS = [
    ("matmul-ijk", {"full": ["{bin}/matmul", "ijk", "320"], "medium": ["{bin}/matmul", "ijk", "220"],
                    "quick": ["{bin}/matmul", "ijk", "90"]}),
    ("matmul-ikj", {"full": ["{bin}/matmul", "ikj", "320"], "medium": ["{bin}/matmul", "ikj", "220"],
                    "quick": ["{bin}/matmul", "ikj", "90"]}),
    ("matmul-blocked", {"full": ["{bin}/matmul", "blocked", "320"], "medium": ["{bin}/matmul", "blocked", "224"],
                        "quick": ["{bin}/matmul", "blocked", "96"]}),
    ("transpose-naive", {"full": ["{bin}/transpose", "naive", "1024", "24"],
                         "medium": ["{bin}/transpose", "naive", "1024", "8"],
                         "quick": ["{bin}/transpose", "naive", "512", "2"]}),
    ("transpose-blocked", {"full": ["{bin}/transpose", "blocked", "1024", "20"],
                           "medium": ["{bin}/transpose", "blocked", "1024", "7"],
                           "quick": ["{bin}/transpose", "blocked", "512", "2"]}),
    ("stream+reuse", {"full": ["{bin}/stream", "16", "72"], "medium": ["{bin}/stream", "16", "24"],
                      "quick": ["{bin}/stream", "8", "2"]}),
    ("pointer-chase", {"full": ["{bin}/chase", "400000", "6000000"], "medium": ["{bin}/chase", "200000", "2000000"],
                       "quick": ["{bin}/chase", "100000", "500000"]}),
    ("calltree", {"full": ["{bin}/calltree", "14", "110"], "medium": ["{bin}/calltree", "14", "36"],
                  "quick": ["{bin}/calltree", "10", "20"]}),
    ("threads3", {"full": ["{bin}/threads3", "28"], "medium": ["{bin}/threads3", "9"],
                  "quick": ["{bin}/threads3", "1"]}),
    ("gzip", {"full": ["/usr/bin/gzip", "-6", "-c", "{data}/text-large.txt"],
              "medium": ["/usr/bin/gzip", "-6", "-c", "{data}/text-medium.txt"],
              "quick": ["/usr/bin/gzip", "-6", "-c", "{data}/text-tiny.txt"]}),
    ("perl", {"full": ["/usr/bin/perl", "{bench}/words.pl", "{data}/text-small.txt"],
              "medium": ["/usr/bin/perl", "{bench}/words.pl", "{data}/text-tiny.txt"],
              "quick": ["/usr/bin/perl", "{bench}/words.pl", "{data}/text-tiny.txt"]}),
    ("python3", {"full": ["/usr/bin/python3", "{bench}/work.py", "8000"],
                 "medium": ["/usr/bin/python3", "{bench}/work.py", "2700"],
                 "quick": ["/usr/bin/python3", "{bench}/work.py", "2000"]}),
]

C_PROGRAMS = [("matmul", []), ("transpose", []), ("stream", []), ("chase", []),
              ("calltree", []), ("threads3", ["-pthread"])]

# Configurations: name -> (tool or None for native, options).
CONFIGS = [
    ("native", None, []),
    ("none", "none", []),
    ("ref-sim", "callgrind", ["--cache-sim=yes"]),
    ("ref-use", "callgrind", ["--cache-sim=yes", "--cacheuse=yes"]),
    ("bd-sim", "callgrind-bd", ["--cache-sim=yes"]),
    ("bd-use", "callgrind-bd", ["--cache-sim=yes", "--cacheuse=yes"]),
    ("bd-notree", "callgrind-bd", ["--cache-sim=yes", "--cacheuse=yes", "--backdate=no"]),
]

# Cache geometry given to every simulating run: Valgrind's host detection
# differs between machines (this VM reports a 512 MiB 2-way L3), which would
# make results incomparable and the LL model unrealistic.  --host-caches
# uses the detected geometry instead.
CACHES = ["--I1=32768,8,64", "--D1=32768,8,64", "--LL=8388608,16,64"]

# With --old-vglib DIR, an older build of callgrind-bd (e.g. before an
# optimisation) runs in the same repetitions, interleaved with the others,
# so before/after ratios are measured under the same load.
OLD_CONFIGS = [
    ("old-sim", "callgrind-bd", ["--cache-sim=yes"]),
    ("old-use", "callgrind-bd", ["--cache-sim=yes", "--cacheuse=yes"]),
]

# Run only when named in --configs (not part of the default run): the cost
# of an option against bd-sim. bd-par separates calltree's eight visitors
# by their depth argument, so every call of that benchmark makes a context
# lookup (perf/RESULTS.md, the --separate-par addendum).
OPT_IN_CONFIGS = [
    ("bd-par", "callgrind-bd", ["--cache-sim=yes", "--separate-par=f?:1"]),
    # the helpers called in place instead of the deferred simulation
    # (against bd-sim and bd-use)
    ("nodefer-sim", "callgrind-bd", ["--cache-sim=yes", "--defer-sim=no"]),
    ("nodefer-use", "callgrind-bd", ["--cache-sim=yes", "--cacheuse=yes", "--defer-sim=no"]),
    # issue 18: a third level (against bd-sim; with cache use against
    # bd-use) and the stream prefetcher (against bd-sim)
    ("bd-l2", "callgrind-bd", ["--cache-sim=yes", "--L2=262144,8,64"]),
    ("bd-use-l2", "callgrind-bd", ["--cache-sim=yes", "--cacheuse=yes", "--L2=262144,8,64"]),
    ("bd-pf", "callgrind-bd", ["--cache-sim=yes", "--prefetch=stream"]),
]

# Ratio columns: (key, header, numerator, denominator, kind).
RATIOS = [
    ("sim", "ours/ref sim", "bd-sim", "ref-sim", "time"),
    ("use", "ours/ref use", "bd-use", "ref-use", "time"),
    ("tree", "tree on/off", "bd-use", "bd-notree", "time"),
    ("none", "ours/none", "bd-use", "none", "time"),
    ("native", "ours/native", "bd-use", "native", "time"),
    ("refnative", "ref/native", "ref-use", "native", "time"),
    ("memsim", "mem ours/ref sim", "bd-sim", "ref-sim", "mem"),
    ("memuse", "mem ours/ref use", "bd-use", "ref-use", "mem"),
]
TARGETS = [("use", 1.00, "ours --cacheuse=yes / reference --cacheuse=yes <= 1.00 (aim 0.80)"),
           ("sim", 1.00, "ours --cache-sim=yes / reference --cache-sim=yes <= 1.00"),
           ("tree", 1.05, "tree on / tree off <= 1.05"),
           ("memuse", 1.10, "peak memory ours / reference (--cacheuse=yes) <= 1.10"),
           ("memsim", 1.10, "peak memory ours / reference (--cache-sim=yes) <= 1.10")]


def log(msg):
    print(msg, file=sys.stderr, flush=True)


def die(msg):
    log("perf/run.py: " + msg)
    sys.exit(1)


def loadavg():
    with open("/proc/loadavg") as f:
        return " ".join(f.read().split()[:3])


def cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return "unknown CPU"


def command_output(cmd):
    try:
        return subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT).stdout.strip()
    except OSError:
        return ""


# ---------------------------------------------------------------------------
# Building

def build_tool():
    if not os.path.exists(os.path.join(ROOT, "Makefile")):
        die("no Makefile: run ./setup.sh --build first")
    log("== make (the tool)")
    r = subprocess.run(["make", "-j2"], cwd=ROOT, capture_output=True, text=True)
    if r.returncode != 0:
        sys.stderr.write(r.stdout[-3000:] + r.stderr[-3000:])
        die("make failed")
    if not os.path.exists(os.path.join(ROOT, "vglib", "callgrind-bd-amd64-linux")):
        die("vglib/callgrind-bd-amd64-linux missing after make")


def build_benchmarks():
    os.makedirs(BIN, exist_ok=True)
    for name, extra in C_PROGRAMS:
        src = os.path.join(PERF, "bench", name + ".c")
        exe = os.path.join(BIN, name)
        if os.path.exists(exe) and os.path.getmtime(exe) >= os.path.getmtime(src):
            continue
        log("== gcc %s" % name)
        r = subprocess.run(["gcc", "-O2", "-g", "-o", exe, src] + extra,
                           capture_output=True, text=True)
        if r.returncode != 0:
            sys.stderr.write(r.stderr)
            die("cannot build %s" % src)


def make_text(path, size, seed):
    """Deterministic English-like text: words of a fixed random vocabulary."""
    if os.path.exists(path) and os.path.getsize(path) >= size:
        return
    import random
    rnd = random.Random(seed)
    letters = "etaoinshrdlucmfwypvbgkjqxz"
    vocab = ["".join(rnd.choice(letters[:rnd.randint(8, 26)])
                     for _ in range(rnd.randint(2, 9))) for _ in range(5000)]
    parts, n = [], 0
    while n < size:
        line = " ".join(rnd.choice(vocab) for _ in range(12)) + ".\n"
        parts.append(line)
        n += len(line)
    with open(path, "w") as f:
        f.write("".join(parts))


def make_data():
    os.makedirs(BIN, exist_ok=True)
    make_text(os.path.join(BIN, "text-large.txt"), 1536 * 1024, 1)
    make_text(os.path.join(BIN, "text-medium.txt"), 512 * 1024, 4)
    make_text(os.path.join(BIN, "text-small.txt"), 320 * 1024, 2)
    make_text(os.path.join(BIN, "text-tiny.txt"), 112 * 1024, 3)


# ---------------------------------------------------------------------------
# Running

def bench_argv(template):
    subst = {"bin": BIN, "bench": os.path.join(PERF, "bench"), "data": BIN}
    return [a.format(**subst) for a in template]


def config_argv(config, bench, argv, host_caches):
    name, tool, opts = config
    if tool is None:
        return argv
    cmd = ["valgrind", "--tool=" + tool] + opts
    if "--cache-sim=yes" in opts and not host_caches:
        cmd += CACHES
    if tool.startswith("callgrind"):
        cmd.append("--callgrind-out-file=%s/%s.%s.cg" % (OUT, bench, name))
    return cmd + argv


def run_once(cmd, env, log_base, timeout):
    """Runs cmd; returns (wall s, peak RSS KiB, CPU s). Dies on failure."""
    with open(log_base + ".out", "wb") as out, open(log_base + ".err", "wb") as err:
        t0 = time.perf_counter()
        p = subprocess.Popen(cmd, stdout=out, stderr=err, stdin=subprocess.DEVNULL,
                             env=env, cwd=BUILD)
        killer = threading.Timer(timeout, p.kill)
        killer.start()
        _, status, ru = os.wait4(p.pid, 0)   # blocking: exact end time
        wall = time.perf_counter() - t0
        killer.cancel()
        p.returncode = os.waitstatus_to_exitcode(status)
    if p.returncode != 0:
        if wall >= timeout:
            die("timeout after %d s: %s" % (timeout, " ".join(cmd)))
        die("exit %d: %s (see %s.err)" % (p.returncode, " ".join(cmd), log_base))
    return wall, ru.ru_maxrss, ru.ru_utime + ru.ru_stime


def backdate_stats(cg_path):
    """Tree statistics from the profile's desc: lines (see callgrind/sim.c)."""
    stats = {}
    try:
        with open(cg_path, errors="replace") as f:
            for line in f:
                m = re.match(r"desc: Backdate: trees (\d+), nodes now (\d+), max (\d+), average (\d+)", line)
                if m:
                    stats.update(nodes_max=int(m.group(3)), nodes_avg=int(m.group(4)))
                m = re.match(r"desc: Backdate: nodes created (\d+), pruned (\d+), calls (\d+), arcs (\d+)", line)
                if m:
                    stats.update(nodes_created=int(m.group(1)), calls=int(m.group(3)),
                                 arcs=int(m.group(4)))
                if line.startswith(("summary:", "totals:")) and "summary" not in stats:
                    stats["summary"] = line.split(":", 1)[1].split()
                if line.startswith("fn=") or line.startswith("fl="):
                    break
    except OSError:
        pass
    return stats


def first_total(cg_path):
    """The summary's first number (Ir), to spot a broken build."""
    try:
        with open(cg_path, errors="replace") as f:
            for line in f:
                if line.startswith("summary:"):
                    return int(line.split()[1])
    except (OSError, ValueError, IndexError):
        pass
    return None


def run_all(args, benches, configs):
    env = dict(os.environ)
    env["VALGRIND_LIB"] = os.path.abspath(args.vglib)
    old_env = dict(env)
    if args.old_vglib:
        old_env["VALGRIND_LIB"] = os.path.abspath(args.old_vglib)
    env["PYTHONHASHSEED"] = "0"
    env.pop("PYTHONPATH", None)
    os.makedirs(OUT, exist_ok=True)
    logdir = os.path.join(BUILD, "log")
    os.makedirs(logdir, exist_ok=True)
    results = {b[0]: {c[0]: [] for c in configs} for b in benches}
    extra = {b[0]: {} for b in benches}
    total = args.reps * len(benches) * len(configs)
    done = 0
    t_start = time.time()
    for rep in range(args.reps):
        for bi, (bench, sizes) in enumerate(benches):
            argv = bench_argv(sizes[args.size])
            shift = (rep + bi) % len(configs)
            order = configs[shift:] + configs[:shift]
            for config in order:
                cmd = config_argv(config, bench, argv, args.host_caches)
                wall, rss, cpu = run_once(cmd, old_env if config[0].startswith("old-") else env,
                                          os.path.join(logdir, "%s.%s" % (bench, config[0])),
                                          args.timeout)
                results[bench][config[0]].append({"wall": wall, "rss_kib": rss, "cpu": cpu})
                done += 1
                log("[%3d/%d] rep %d %-18s %-9s %7.2f s (cpu %6.2f s) %8.1f MiB  (load %s)"
                    % (done, total, rep + 1, bench, config[0], wall, cpu, rss / 1024.0, loadavg()))
            if rep == 0:
                bd = backdate_stats("%s/%s.bd-use.cg" % (OUT, bench))
                extra[bench].update({k: v for k, v in bd.items() if k != "summary"})
                ref_ir = first_total("%s/%s.ref-use.cg" % (OUT, bench))
                our_ir = first_total("%s/%s.bd-use.cg" % (OUT, bench))
                extra[bench]["ir_ref"], extra[bench]["ir_ours"] = ref_ir, our_ir
    return results, extra, time.time() - t_start


# ---------------------------------------------------------------------------
# Report

def medians(results):
    med = {}
    for bench, per in results.items():
        med[bench] = {}
        for config, runs in per.items():
            if runs:
                med[bench][config] = {"wall": statistics.median(r["wall"] for r in runs),
                                      "rss_kib": statistics.median(r["rss_kib"] for r in runs),
                                      "cpu": statistics.median(r.get("cpu", r["wall"]) for r in runs),
                                      # the fastest repetition: other processes only add time
                                      "cpu_min": min(r.get("cpu", r["wall"]) for r in runs)}
    return med


def ratio_table(med, time_field="wall"):
    """Per benchmark ratios (time from wall or cpu), and their medians."""
    table = {}
    for bench, per in med.items():
        row = {}
        for key, _, num, den, kind in RATIOS:
            if num in per and den in per:
                field = time_field if kind == "time" else "rss_kib"
                if per[den][field] > 0:
                    row[key] = per[num][field] / per[den][field]
        table[bench] = row
    summary = {}
    for key, *_ in RATIOS:
        vals = [row[key] for row in table.values() if key in row]
        if vals:
            summary[key] = statistics.median(vals)
    return table, summary


def fmt(x, digits=2):
    if x is None:
        return "-"
    if x >= 100:
        return "%.0f" % x
    return "%.*f" % (digits, x)


def markdown_ratios(table, summary, extra):
    cols = [h for _, h, *_ in RATIOS]
    lines = ["| benchmark | " + " | ".join(cols) + " | tree nodes max | tree nodes avg |",
             "|---" * (len(cols) + 3) + "|"]
    for bench, row in table.items():
        ex = extra.get(bench, {})
        lines.append("| %s | %s | %s | %s |" % (
            bench, " | ".join(fmt(row.get(k)) for k, *_ in RATIOS),
            ex.get("nodes_max", "-"), ex.get("nodes_avg", "-")))
    lines.append("| **median** | %s | | |" % " | ".join("**%s**" % fmt(summary.get(k)) for k, *_ in RATIOS))
    return lines


def markdown_absolute(med, configs):
    names = [c[0] for c in configs]
    lines = ["| benchmark | " + " | ".join("%s s" % n for n in names) + " | "
             + " | ".join("%s MiB" % n for n in names if n != "native") + " |",
             "|---" * (1 + 2 * len(names) - (1 if "native" in names else 0)) + "|"]
    for bench, per in med.items():
        t = [fmt(per[n]["wall"], 2) if n in per else "-" for n in names]
        m = [fmt(per[n]["rss_kib"] / 1024.0, 0) if n in per else "-" for n in names if n != "native"]
        lines.append("| %s | %s | %s |" % (bench, " | ".join(t), " | ".join(m)))
    return lines


def markdown_targets(summaries):
    """Targets on the median benchmark, one column per measure: wall-time
    ratios (the targets' measure), and for reference CPU-time ratios of the
    median and of the fastest repetition; before/after where known.
    summaries: (measure name, after, before or None) in column order."""
    heads, met_heads = [], []
    for name, _, before in summaries:
        if before is not None:
            heads.append(name + " before")
        heads.append(name)
        met_heads.append("met (%s)" % name)
    lines = ["| target (median benchmark) | " + " | ".join(heads + met_heads) + " |",
             "|---" * (1 + len(heads) + len(met_heads)) + "|"]
    for key, limit, text in TARGETS:
        if key not in summaries[0][1]:
            continue
        cols, met = [], []
        for _, after, before in summaries:
            if before is not None:
                cols.append(fmt(before.get(key)))
            cols.append(fmt(after.get(key)))
            met.append("yes" if after.get(key) is not None and after[key] <= limit else "**no**")
        lines.append("| %s | %s |" % (text, " | ".join(cols + met)))
    return lines


def before_medians(med):
    """The medians with the old build (old-*) in place of ours (bd-*)."""
    out = {}
    for bench, per in med.items():
        if "old-use" not in per:
            return None
        row = {k: v for k, v in per.items() if not k.startswith(("bd-", "old-"))}
        row["bd-use"] = per["old-use"]
        if "old-sim" in per:
            row["bd-sim"] = per["old-sim"]
        out[bench] = row
    return out


def write_report(path, data, base, plot_path, plot_field="wall"):
    med = medians(data["results"])
    same_run_before = before_medians(med)
    if same_run_before is not None:
        base = {"med": same_run_before, "extra": {},   # tree statistics: of the new build only
                "title": "Before: the build in %s (%s), same run, interleaved"
                         % (data["meta"].get("old_vglib"), data["meta"].get("old_commit") or "?")}
    elif base:
        base = {"med": medians(base["results"]), "extra": base["extra"],
                "title": "Before (baseline file: %s, %s; load average then: start %s, end %s)"
                         % (base["meta"]["commit"], base["meta"]["date"],
                            base["meta"]["load_start"], base["meta"]["load_end"])}
    table, summary = ratio_table(med)
    configs = [c for c in CONFIGS + OLD_CONFIGS + OPT_IN_CONFIGS if c[0] in data["configs"]]
    meta = data["meta"]
    L = ["# callgrind-bd performance results", "",
         "Written by `perf/run.py%s` (see the perf section of README.md); "
         "timings are medians of %d interleaved repetition(s)." % (" --quick" if meta["quick"] else "", meta["reps"]),
         "",
         "- date: %s" % meta["date"],
         "- CPU: %s, %s cores online" % (meta["cpu"], meta["cores"]),
         "- load average (1/5/15 min) at start: %s; at end: %s" % (meta["load_start"], meta["load_end"]),
         "- %s; callgrind-bd at %s" % (meta["valgrind"], meta["commit"]),
         "- benchmark sizes: %s (see BENCHMARKS in perf/run.py); run time: %.0f s"
         % (meta.get("size", "quick" if meta["quick"] else "full"), meta["elapsed"]),
         "- simulated caches: %s" % meta.get("caches", "?"),
         ""]
    if meta.get("note"):
        L += [meta["note"], ""]
    L += ["Configurations: `native`; `none` = `valgrind --tool=none`; `ref-sim`, `ref-use` = "
          "the reference `valgrind --tool=callgrind` with `--cache-sim=yes`, and with "
          "`--cache-sim=yes --cacheuse=yes`; `bd-sim`, `bd-use` = callgrind-bd with the same "
          "options (bd-use: back-dating tree on, the default); `bd-notree` = callgrind-bd "
          "`--cache-sim=yes --cacheuse=yes --backdate=no`.", "",
          "Ratios of median wall time (and of median peak RSS for `mem`): "
          "`ours/ref sim` = bd-sim/ref-sim, `ours/ref use` = bd-use/ref-use, "
          "`tree on/off` = bd-use/bd-notree, `ours/none` = bd-use/none, "
          "`ours/native` and `ref/native` = slowdown of bd-use and ref-use. "
          "Tree nodes: maximum live nodes, and their mean sampled at every call, "
          "from the profile's `desc: Backdate:` line. The median row is the median "
          "over benchmarks of each column.", ""]
    L += ["## Targets", ""]
    base_med = base["med"] if base else None
    L += markdown_targets([(field_name, ratio_table(med, field)[1],
                            ratio_table(base_med, field)[1] if base else None)
                           for field, field_name in (("wall", "wall"), ("cpu", "CPU"),
                                                     ("cpu_min", "CPU min"))])
    L += ["", "`CPU min`: the ratio of each configuration's fastest repetition (CPU "
          "time), whose noise is smaller: other processes on the machine only add "
          "time. The targets are read on wall time."]
    L += ["", "## Ratios (wall time)", ""]
    L += markdown_ratios(table, summary, data["extra"])
    ctable, csummary = ratio_table(med, "cpu")
    L += ["", "## Ratios (CPU time: user + system of the child)", "",
          "Less sensitive than wall time to other processes on a loaded machine "
          "(the tools are single-threaded; Valgrind serialises threads).", ""]
    L += markdown_ratios(ctable, csummary, data["extra"])
    if base:
        btable, bsummary = ratio_table(base_med)
        L += ["", "## " + base["title"], "", "Wall time:", ""]
        L += markdown_ratios(btable, bsummary, base["extra"])
        btable, bsummary = ratio_table(base_med, "cpu")
        L += ["", "CPU time:", ""]
        L += markdown_ratios(btable, bsummary, base["extra"])
    L += ["", "## Median wall time (s) and peak memory (MiB)", ""]
    L += markdown_absolute(med, configs)
    mismatch = [b for b, ex in data["extra"].items()
                if ex.get("ir_ref") is not None and ex.get("ir_ref") != ex.get("ir_ours")]
    if mismatch:
        L += ["", "Note: total Ir differs between the reference and ours for: %s "
              "(nondeterministic programs, e.g. threads, differ from run to run)." % ", ".join(mismatch)]
    if plot_path:
        L += ["", "## Plot", "",
              "Ratios of %s time (CPU time is plotted when the load average exceeded the core count)."
              % ("CPU" if plot_field == "cpu" else "wall"), "",
              "![ratios per benchmark](%s)" % os.path.relpath(plot_path, os.path.dirname(path))]
    else:
        L += ["", "(No plot: no python3 with matplotlib found; `apt-get install python3-matplotlib`.)"]
    L += kept_soak_block(path) + kept_addenda(path)
    with open(path, "w") as f:
        f.write("\n".join(L) + "\n")
    return table, summary


def old_report(path):
    """The report being rewritten, or "" when there is none."""
    try:
        with open(path) as f:
            return f.read()
    except OSError:
        return ""


def kept_soak_block(path):
    """perf/soak.py's table, between its markers, survives a rewrite."""
    old = old_report(path)
    m = re.search(r"<!-- soak:begin -->.*?<!-- soak:end -->", old, re.S)
    return ["", m.group(0)] if m else []


ADDENDA_MARK = "<!-- addenda: from here on the file survives perf/run.py's rewrite -->"


def kept_addenda(path):
    """Everything from the addenda marker on (notes of earlier runs and
    other measurements) survives a rewrite."""
    old = old_report(path)
    at = old.find(ADDENDA_MARK)
    return ["", old[at:].rstrip("\n")] if at >= 0 else []


def find_plot_python():
    for py in [sys.executable, "/usr/bin/python3"]:
        if py and os.path.exists(py) and subprocess.run(
                [py, "-c", "import matplotlib"], capture_output=True).returncode == 0:
            return py
    return None


def plot_time_field(data):
    """CPU time when the machine was loaded (1-minute load average above
    the number of cores at start or end), else wall time."""
    meta = data["meta"]
    cores = meta.get("cores") or 1
    loads = [float(meta[k].split()[0]) for k in ("load_start", "load_end") if meta.get(k)]
    has_cpu = all("cpu" in r for per in data["results"].values() for runs in per.values() for r in runs)
    return "cpu" if has_cpu and loads and max(loads) > cores else "wall"


def draw_plot(raw_path, png_path, field):
    py = find_plot_python()
    if not py:
        log("note: no python3 with matplotlib, plot skipped (apt-get install python3-matplotlib)")
        return None
    r = subprocess.run([py, os.path.join(PERF, "plot.py"), raw_path, png_path, field],
                       capture_output=True, text=True)
    if r.returncode != 0:
        log("note: plot failed: " + r.stderr.strip()[-500:])
        return None
    return png_path


def print_summary(table, summary, extra):
    print("\n".join(markdown_ratios(table, summary, extra)))


# ---------------------------------------------------------------------------

def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="small sizes, 1 repetition (smoke test): "
                    "--size quick --reps 1")
    ap.add_argument("--size", choices=["full", "medium", "quick"], default="full",
                    help="benchmark sizes (default full; medium: about a third of the work, "
                    "for a loaded machine)")
    ap.add_argument("--reps", type=int, help="repetitions (default 3, 1 with --quick)")
    ap.add_argument("--only", help="regular expression: run only matching benchmarks")
    ap.add_argument("--configs", help="comma-separated subset of configurations "
                    "(also the opt-in ones: bd-par, nodefer-sim, nodefer-use, bd-l2, "
                    "bd-use-l2, bd-pf)")
    ap.add_argument("--no-build", action="store_true", help="do not run make first")
    ap.add_argument("--results", help="report path (default perf/RESULTS.md, "
                    "perf/build/RESULTS-quick.md with --quick)")
    ap.add_argument("--report", metavar="RAW.json", help="only rewrite the report from saved data")
    ap.add_argument("--baseline", metavar="RAW.json", help="add a before/after comparison")
    ap.add_argument("--note", help="a sentence added to the report (e.g. what changed)")
    ap.add_argument("--vglib", default=os.path.join(ROOT, "vglib"),
                    help="VALGRIND_LIB holding callgrind-bd (default: the build tree's vglib/); "
                    "e.g. a saved copy of an older build, for a before/after run")
    ap.add_argument("--old-vglib", metavar="DIR",
                    help="also run the callgrind-bd in DIR (an older build, as VALGRIND_LIB) "
                    "with --cache-sim=yes and with --cacheuse=yes, interleaved: the report "
                    "then compares before/after from the same run")
    ap.add_argument("--old-commit", help="what the --old-vglib build is (for the report)")
    ap.add_argument("--host-caches", action="store_true",
                    help="simulate the caches Valgrind detects instead of %s" % " ".join(CACHES))
    ap.add_argument("--timeout", type=int, default=900, help="seconds per run (default 900)")
    args = ap.parse_args()

    base = None
    if args.baseline:
        with open(args.baseline) as f:
            base = json.load(f)

    if args.report:
        with open(args.report) as f:
            data = json.load(f)
        raw_path = args.report
        quick = data["meta"]["quick"]
    else:
        if args.quick:
            args.size = "quick"
        if args.reps is None:
            args.reps = 1 if args.quick else 3
        if shutil.which("valgrind") is None:
            die("valgrind not found")
        benches = [b for b in BENCHMARKS if not args.only or re.search(args.only, b[0])]
        if not benches:
            die("no benchmark matches --only %s" % args.only)
        configs = CONFIGS + (OLD_CONFIGS if args.old_vglib else [])
        if args.configs:
            configs += OPT_IN_CONFIGS
            wanted = args.configs.split(",")
            unknown = [w for w in wanted if w not in [c[0] for c in configs]]
            if unknown:
                die("unknown configuration(s): %s" % ", ".join(unknown))
            configs = [c for c in configs if c[0] in wanted]
        if not args.no_build:
            build_tool()
        build_benchmarks()
        make_data()
        meta = {"date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
                "cpu": cpu_model(), "cores": os.cpu_count(), "load_start": loadavg(),
                "valgrind": command_output(["valgrind", "--version"]),
                "commit": command_output(["git", "describe", "--always", "--dirty"]),
                "quick": args.quick, "size": args.size, "reps": args.reps, "note": args.note,
                "caches": "host-detected" if args.host_caches else " ".join(CACHES),
                "old_vglib": args.old_vglib, "old_commit": args.old_commit}
        results, extra, elapsed = run_all(args, benches, configs)
        meta["load_end"] = loadavg()
        meta["elapsed"] = elapsed
        data = {"meta": meta, "configs": [c[0] for c in configs], "results": results, "extra": extra}
        stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
        raw_path = os.path.join(BUILD, "raw-%s%s.json" % (stamp, "-quick" if args.quick else ""))
        with open(raw_path, "w") as f:
            json.dump(data, f, indent=1)
        log("raw data: %s" % raw_path)
        quick = args.quick

    report = args.results or (os.path.join(BUILD, "RESULTS-quick.md") if quick
                              else os.path.join(PERF, "RESULTS.md"))
    png = os.path.splitext(report)[0].replace("RESULTS", "ratios") + ".png"
    if os.path.basename(png) == os.path.basename(report):
        png = report + ".png"
    field = plot_time_field(data)
    plot = draw_plot(raw_path, png, field)
    table, summary = write_report(report, data, base, plot, field)
    print_summary(table, summary, data["extra"])
    log("report: %s%s" % (report, (", plot: %s" % plot) if plot else ""))


if __name__ == "__main__":
    main()
