#!/usr/bin/env python3
"""callgrind-bd_bandwidth as users run it (the built tools/ script, with
the Python configure found), on the hand-written files of
tests/lib/bandwidth_files.py, whose expected figures are derived there by
hand:

- --summary: per thread and path bytes, units, peak and mean per unit;
  the profile's name reads its companion .bandwidth;
- --limits with limits at or above every requirement: 0 added units;
  with core<-L1's limit halved below the constant requirement: thesis
  figure 4.7's rectangle (units above, added units and seconds);
- --limits on a file with dom: histograms: the dominance breakdown per
  thread (dominated and added units, seconds) and the sum over threads;
- errors (a file breaking the area identity, or cut short at a quarter,
  half, three quarters: "truncated or damaged"; a profile given without
  its .bandwidth: says which option makes one; a machine file with an
  unknown key, an unknown option, a missing file, --plot without
  matplotlib): one line on stderr naming the file (and line), exit 1,
  nothing on stdout;
- --plot writes a PNG; with --limits and dom: one panel more (the bars);
  with several files, one comparison picture; several files' tables
  follow each other;
- perf/bandwidth-bench.c prints a machine file the script reads, with
  every path and the two latencies;
- the tool's own file (--bandwidth=yes with the thesis' limits, a
  threaded client) is read cleanly: every path of every thread, every
  unit at peak or dominated.
"""

import os
import re
import struct
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "lib"))
import bandwidth_files as bf   # noqa: E402
import harness                 # noqa: E402

NAME = "bandwidth_script"
SCRIPT = os.path.join(harness.BUILDDIR, "tools", "callgrind-bd_bandwidth")
PROG = "callgrind-bd_bandwidth: "


def run(args, env=None):
    return subprocess.run([SCRIPT] + args, capture_output=True, text=True,
                          env=env, timeout=120)


def table(stdout, first_column):
    """The table whose header starts with first_column: [{column: cell}]
    (cells are separated by at least two spaces)."""
    rows, header = [], None
    for line in stdout.splitlines():
        if line.startswith("#"):
            header = None           # a comment line ends a table
            continue
        cells = re.split(r"\s{2,}", line.strip())
        if cells[0] == first_column:
            header = cells
        elif header:
            rows.append(dict(zip(header, cells)))
    return rows


def close(text, value):
    return abs(float(text) - value) <= 1e-6 * max(1.0, abs(value))


def ok_run(r, what):
    if r.returncode != 0 or r.stderr:
        return ["%s: exit %d, stderr %r" % (what, r.returncode,
                                             r.stderr.strip()[:200])]
    return []


def case_summary(tmp):
    problems = []
    name = bf.write(tmp, "callgrind.out.1.bandwidth", bf.CONSTANT)
    for args in ([name], ["--summary", name],
                 [os.path.join(tmp, "callgrind.out.1")]):
        r = run(args)
        problems += ok_run(r, " ".join(args))
        rows = [x for x in table(r.stdout, "thread")
                if x["path"] == "core<-L1"]
        if len(rows) != 1:
            problems.append("%s: no one core<-L1 line in %r"
                            % (args, r.stdout))
            continue
        row = rows[0]
        if row["bytes"] != str(bf.CONSTANT_BYTES) or \
                row["units"] != str(bf.CONSTANT_T) or \
                not close(row["peak/unit"], bf.CONSTANT_PEAK) or \
                not close(row["mean/unit"], bf.CONSTANT_BYTES / bf.CONSTANT_T):
            problems.append("%s: core<-L1 line %r" % (args, row))
    r = run([bf.write(tmp, "d.bandwidth", bf.DOMINANCE)])
    rows = {(x["thread"], x["path"]): x for x in table(r.stdout, "thread")}
    want = {("1", "core<-L1"): ("16", 4, 8), ("1", "LL<-mem"): ("8", 4, 4),
            ("2", "LL<-mem"): ("2", 2, 1),
            ("all", "LL<-mem all"): ("10", 4, 5)}
    for key, (volume, units, peak) in want.items():
        row = rows.get(key)
        if not row or row["bytes"] != volume or row["units"] != str(units) \
                or not close(row["peak/unit"], peak):
            problems.append("two threads: %s: %r" % (key, row))
    if ("2", "LL<-mem all") in rows:
        problems.append("a dom-only block has a summary line")
    # several files: the tables of each in turn
    r = run([name, os.path.join(tmp, "d.bandwidth")])
    heads = [x for x in r.stdout.splitlines() if x.startswith("# ")]
    if len(heads) != 2 or name not in heads[0] or \
            "d.bandwidth" not in heads[1]:
        problems.append("two files: headers %r" % heads)
    return [(NAME + "/summary", problems)]


def added_rows(tmp, machine_text):
    name = bf.write(tmp, "c.bandwidth", bf.CONSTANT)
    machine = bf.write(tmp, "m.machine", machine_text)
    r = run(["--limits", machine, name])
    return r, {x["path"]: x for x in table(r.stdout, "thread")
               if "added" in x}


def case_limits(tmp):
    problems = []
    r, rows = added_rows(tmp, bf.MACHINE_ABOVE)
    problems += ok_run(r, "limits above")
    if sorted(rows) != ["core->L1", "core<-L1", "flop"]:
        problems.append("limits above: rows %r" % sorted(rows))
    for path, row in rows.items():
        if row["above"] != "0" or not close(row["added"], 0):
            problems.append("limits above: %s adds %r" % (path, row))
    r, rows = added_rows(tmp, bf.MACHINE_HALF)
    problems += ok_run(r, "limit halved")
    row = rows.get("core<-L1")
    if not row or row["above"] != str(bf.HALF_ABOVE) or \
            not close(row["added"], bf.HALF_ADDED) or \
            not close(row["added s"], bf.HALF_ADDED / 1e9):
        problems.append("limit halved: %r, expected %d above, %g added"
                        % (row, bf.HALF_ABOVE, bf.HALF_ADDED))
    if any("bytes" in x for x in table(r.stdout, "thread")):
        problems.append("--limits alone also printed the summary")
    return [(NAME + "/limits", problems)]


def case_dominance(tmp):
    problems = []
    name = bf.write(tmp, "d.bandwidth", bf.DOMINANCE)
    machine = bf.write(tmp, "d.machine", bf.DOMINANCE_MACHINE)
    r = run(["--limits", machine, name])
    problems += ok_run(r, "dominance")
    rows = table(r.stdout, "thread")
    added = {(x["thread"], x["path"]): x for x in rows if "added s" in x}
    for key, (above, units) in bf.DOMINANCE_ADDED.items():
        row = added.get(key)
        if not row or row["above"] != str(above) or \
                not close(row["added"], units):
            problems.append("added by %s: %r, expected %d above, +%g"
                            % (key, row, above, units))
    spent = {(x["thread"], x["time spent"]): x for x in rows
             if "time spent" in x}
    for tid, (paths, total) in bf.DOMINANCE_EXPECTED.items():
        got = {p for (t, p) in spent if t == tid} - {"at peak", "estimated"}
        if got != set(paths):
            problems.append("thread %s: dominating paths %r, expected %r"
                            % (tid, sorted(got), sorted(paths)))
        for path, (units, add) in paths.items():
            row = spent.get((tid, path), {})
            if row.get("units") != str(units) or \
                    not close(row.get("added", "nan"), add) or \
                    not close(row.get("seconds", "nan"), (units + add) / 1e9):
                problems.append("thread %s %s: %r, expected %d units +%g"
                                % (tid, path, row, units, add))
        row = spent.get((tid, "estimated"), {})
        if not close(row.get("units", "nan"), total):
            problems.append("thread %s: estimated %r, expected %g units"
                            % (tid, row, total))
    m = re.search(r"summed over the threads.*: (\S+) s", r.stdout)
    if not m or not close(m.group(1), bf.DOMINANCE_SECONDS):
        problems.append("sum over threads: %r" % (m and m.group(0)))
    return [(NAME + "/dominance", problems)]


def one_line_error(r, mentions):
    lines = r.stderr.splitlines()
    if r.returncode != 1 or len(lines) != 1 or r.stdout:
        return ["exit %d, stderr %r, stdout %r" % (r.returncode, r.stderr,
                                                     r.stdout[:80])]
    if not lines[0].startswith(PROG) or mentions not in lines[0]:
        return ["message %r lacks %r" % (lines[0], mentions)]
    return []


def case_errors(tmp):
    good = bf.write(tmp, "c.bandwidth", bf.CONSTANT)
    machine = bf.write(tmp, "m.machine", bf.MACHINE_HALF)
    profile = bf.write(tmp, "p.out", "# callgrind format\nversion: 1\n"
                       "events: Ir\nfn=main\n1 10\ntotals: 10\n")
    bad = bf.write(tmp, "bad.bandwidth",
                   bf.replace_line(bf.CONSTANT, "total: 8000", "total: 7000"))
    unknown = bf.write(tmp, "unknown.machine",
                       bf.MACHINE_HALF + "L3<-L2: 1e9\n")
    fake = os.path.join(tmp, "fake")     # a matplotlib that fails to import
    os.makedirs(os.path.join(fake, "matplotlib"))
    bf.write(os.path.join(fake, "matplotlib"), "__init__.py",
             "raise ImportError('no matplotlib here')\n")
    env = dict(os.environ, PYTHONPATH=fake)
    cases = [
        ("area", [bad], {}, bad + ":12: truncated or damaged: path core<-L1 "
         "of thread 1: area"),
        ("profile-alone", [profile], {},
         profile + ": a profile without p.out.bandwidth beside it (the run "
         "needs --bandwidth=yes"),
        ("machine-key", ["--limits", unknown, good], {},
         unknown + ":4: unknown key 'L3<-L2'"),
        ("option", ["--bogus", good], {}, "unknown option '--bogus'"),
        ("missing", [os.path.join(tmp, "none.bandwidth")], {},
         os.path.join(tmp, "none.bandwidth")),
        ("no-file", ["--summary"], {}, "no FILE given"),
        ("limits-arg", [good, "--limits"], {}, "--limits needs a file name"),
        ("no-matplotlib", ["--plot", os.path.join(tmp, "x.png"), good], env,
         "--plot needs matplotlib"),
    ]
    # cut short at several places: past the version line, each names the
    # file and says so
    for k in (3, 2, 1):
        cut = bf.write(tmp, "cut%d.bandwidth" % k,
                       bf.CONSTANT[:len(bf.CONSTANT) * k // 4])
        cases.append(("cut-%d-of-4" % k, [cut], {}, cut + ":"))
        cases.append(("cut-%d-of-4-says" % k, [cut], {}, "truncated or damaged"))
    results = []
    for what, args, extra_env, mentions in cases:
        r = run(args, env=extra_env or None)
        results.append((NAME + "/error/" + what, one_line_error(r, mentions)))
    # without --plot the fake matplotlib does not matter
    r = run(["--limits", machine, good], env=env)
    results.append((NAME + "/error/no-matplotlib-no-plot",
                    ok_run(r, "without --plot")))
    return results


def png_size(name):
    with open(name, "rb") as f:
        head = f.read(24)
    if head[:8] != b"\x89PNG\r\n\x1a\n":
        return None
    return struct.unpack(">II", head[16:24])


def case_plot(tmp):
    name = bf.write(tmp, "d.bandwidth", bf.DOMINANCE)
    machine = bf.write(tmp, "d.machine", bf.DOMINANCE_MACHINE)
    curves, bars = os.path.join(tmp, "c.png"), os.path.join(tmp, "b.png")
    r = run(["--plot", curves, name])
    if r.returncode == 1 and "--plot needs matplotlib" in r.stderr:
        return [(NAME + "/plot", [], "skipped: the tools' Python has no"
                 " matplotlib")]
    problems = ok_run(r, "--plot")
    r = run(["--plot", bars, "--limits", machine, name])
    problems += ok_run(r, "--plot --limits")
    sizes = [png_size(f) if os.path.exists(f) else None
             for f in (curves, bars)]
    if None in sizes:
        problems.append("not PNG files: %r" % sizes)
    elif not sizes[1][1] > sizes[0][1]:
        problems.append("--limits with dom: adds no panel (heights %d, %d)"
                        % (sizes[0][1], sizes[1][1]))
    if "thread" not in r.stdout:
        problems.append("--plot --limits printed no limits table")
    if not r.stdout.rstrip().endswith("# wrote %s" % bars):
        problems.append("--plot does not say which file it wrote: %r"
                        % r.stdout[-120:])
    # several files: one comparison picture
    compared = os.path.join(tmp, "cmp.png")
    other = bf.write(tmp, "e.bandwidth", bf.DOMINANCE)
    r = run(["--plot", compared, "--limits", machine, name, other])
    problems += ok_run(r, "--plot of two files")
    if not os.path.exists(compared) or png_size(compared) is None:
        problems.append("two files: no PNG")
    return [(NAME + "/plot", problems)]


def case_bench(tmp):
    """perf/bandwidth-bench.c's output is a machine file with every key
    (its figures are this machine's, not checked: no timing in tests)."""
    exe = os.path.join(tmp, "bench")
    build = subprocess.run(["gcc", "-O2", "-pthread", "-o", exe,
                            os.path.join(harness.TOP, "perf",
                                         "bandwidth-bench.c")],
                           capture_output=True, text=True)
    if build.returncode:
        return [(NAME + "/bench", ["gcc: " + build.stderr[:200]])]
    r = subprocess.run([exe, "--quick", "--mem-mb=32", "--threads=2"],
                       capture_output=True, text=True, timeout=300)
    if r.returncode:
        return [(NAME + "/bench", ["exit %d: %s" % (r.returncode, r.stderr)])]
    machine = bf.write(tmp, "measured.machine", r.stdout)
    keys = {line.split(":")[0] for line in r.stdout.splitlines()
            if line and not line.startswith("#")}
    want = {"name", "clock", "instr-per-cycle", "flop-per-cycle", "core<-L1",
            "core->L1", "L1<-LL", "L1->LL", "L1<-L1", "LL<-mem", "LL->mem",
            "LL<-mem all", "LL->mem all", "latency L1<-LL", "latency LL<-mem"}
    problems = [] if keys == want else ["keys %r" % sorted(keys ^ want)]
    rr = run(["--limits", machine, bf.write(tmp, "c.bandwidth", bf.CONSTANT)])
    problems += ok_run(rr, "--limits with the measured machine file")
    return [(NAME + "/bench", problems)]


def case_model():
    """The other half of issue 17: the tool's own file of a threaded
    client (tests/clients/threads.c), with the thesis' limits, read
    without error or warning (so its identities hold), every core thread
    listing every path, and the dominance accounting for every unit:
    peak-units + dominated units = units."""
    machine = os.path.join(harness.TOP, "tools", "machines",
                           "ivybridge-thesis.machine")
    r = harness.run_tool(harness.OURS, "threads",
                         ["--bandwidth=yes", "--bandwidth-limits=" + machine],
                         "bwscript-model")
    problems = harness.run_problems(r)
    if problems:
        return [(NAME + "/model", problems)]
    rr = run(["--summary", "--limits", machine, r.out + ".bandwidth"])
    problems = ok_run(rr, "the tool's file")
    rows = table(rr.stdout, "thread")
    summary = [x for x in rows if "bytes" in x]
    cores = sorted({x["thread"] for x in summary} - {"all"})
    for tid in cores:
        paths = {x["path"] for x in summary if x["thread"] == tid}
        missing = set(bandwidth_paths()) - paths
        if missing:
            problems.append("thread %s lacks %s" % (tid, sorted(missing)))
        spent = [x for x in rows if x.get("thread") == tid
                 and "time spent" in x and x["time spent"] != "estimated"]
        units = int([x for x in summary if x["thread"] == tid][0]["units"])
        counted = sum(int(x["units"]) for x in spent)
        if counted != units:
            problems.append("thread %s: %d units at peak or dominated, %d"
                            " units" % (tid, counted, units))
    if len(cores) < 2:
        problems.append("threads %r" % cores)
    return [(NAME + "/model", problems)]


def bandwidth_paths():
    return ["core<-L1", "core->L1", "L1<-LL", "L1->LL", "L1<-L1",
            "LL<-mem", "LL->mem", "flop"]


def main():
    if not os.access(SCRIPT, os.X_OK):
        print("FAIL %s: %s not built (make)" % (NAME, SCRIPT))
        return 1
    with harness.case_dirs("bwscript-") as in_own_dir:
        return harness.run_cases([
            (NAME + "/summary", in_own_dir(case_summary)),
            (NAME + "/limits", in_own_dir(case_limits)),
            (NAME + "/dominance", in_own_dir(case_dominance)),
            (NAME + "/error", in_own_dir(case_errors)),
            (NAME + "/plot", in_own_dir(case_plot)),
            (NAME + "/bench", in_own_dir(case_bench)),
            (NAME + "/model", case_model)])


if __name__ == "__main__":
    harness.main_guard(main)
