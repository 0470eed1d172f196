#!/usr/bin/env python3
"""The reader of .bandwidth files and machine files (tools/cgbd/bandwidth.py)
as a module, on hand-written files (tests/lib/bandwidth_files.py, where
every expected figure is derived by hand):

- a file is read with its header, threads, paths and histograms; unknown
  keys are ignored; the bandwidth curve's area (sum of b*n) is the volume;
- thesis figure 4.7: limits at or above every requirement add 0; the
  limit halved below a constant requirement adds the rectangle's units;
- machine files: limits per time unit = bytes/s / (clock x rate), the
  flop limit flop-per-cycle / instr-per-cycle;
- dominance: per thread the dominated and added units and the time;
- the identities are enforced: a histogram whose area is not window x
  total, or whose counts are not units + window, a dom: that is not a
  sub-histogram, unsorted sums, a missing line: BandwidthError naming the
  file and line.
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "lib"))
import bandwidth_files as bf   # noqa: E402
import harness                 # noqa: E402
from cgbd import bandwidth     # noqa: E402

NAME = "bandwidth_reader"


def close(a, b):
    return abs(a - b) <= 1e-9 * max(1.0, abs(a), abs(b))


def case_read(tmp):
    problems = []
    bwf = bandwidth.parse(bf.write(tmp, "c.bandwidth", bf.CONSTANT))
    if (bwf.unit, bwf.window, bwf.cmd) != ("instr", 4, "./constant"):
        problems.append("header read as %r" % ((bwf.unit, bwf.window,
                                                bwf.cmd),))
    if [t.tid for t in bwf.threads] != ["1"]:
        problems.append("threads %r" % [t.tid for t in bwf.threads])
    path = bwf.threads[0].paths["core<-L1"]
    area = sum(b * n for b, n in bandwidth.curve(path, bwf.window))
    if not close(area, bf.CONSTANT_BYTES):
        problems.append("area under the curve %g, not %d bytes"
                        % (area, bf.CONSTANT_BYTES))
    if path.peak_sum() / bwf.window != bf.CONSTANT_PEAK:
        problems.append("peak %g per unit" % (path.peak_sum() / bwf.window))
    return [(NAME + "/read", problems)]


def added(tmp, machine_text, path_name="core<-L1"):
    bwf = bandwidth.parse(bf.write(tmp, "c.bandwidth", bf.CONSTANT))
    machine = bandwidth.parse_machine(bf.write(tmp, "m.machine",
                                               machine_text))
    limits = bandwidth.limits_per_unit(machine, "instr")
    return bandwidth.added_by_limit(bwf.threads[0].paths[path_name],
                                    bwf.window, limits[path_name]), limits


def case_limits(tmp):
    problems = []
    (above, volume, units), limits = added(tmp, bf.MACHINE_ABOVE)
    if (above, volume, units) != (0, 0, 0):
        problems.append("limits above every requirement: %d units above,"
                        " %g added" % (above, units))
    if limits.get("flop") != 1.0 or limits.get("core->L1") != 100.0:
        problems.append("limits per unit %r" % limits)
    (above, volume, units), _ = added(tmp, bf.MACHINE_HALF)
    if above != bf.HALF_ABOVE or not close(units, bf.HALF_ADDED):
        problems.append("halved limit: %d units above, %g added; expected"
                        " %d, %g" % (above, units, bf.HALF_ABOVE,
                                     bf.HALF_ADDED))
    if not close(volume, units * 4.0):
        problems.append("V_L %g is not T_L x L = %g" % (volume, units * 4))
    # time unit flop: the rate is flop-per-cycle, the flop path's limit 1
    machine = bandwidth.parse_machine(bf.write(tmp, "f.machine",
                                               bf.MACHINE_ABOVE))
    flop = bandwidth.limits_per_unit(machine, "flop")
    if flop["flop"] != 1.0 or flop["core<-L1"] != 8.0:
        problems.append("unit flop: limits %r" % flop)
    return [(NAME + "/limits", problems)]


def case_dominance(tmp):
    problems = []
    bwf = bandwidth.parse(bf.write(tmp, "d.bandwidth", bf.DOMINANCE))
    if bwf.warnings:
        problems.append("warnings: %s" % bwf.warnings[0])
    seconds = 0.0
    for thread in bwf.cores():
        rows, total = bandwidth.dominance(thread, bwf)
        want, want_total = bf.DOMINANCE_EXPECTED[thread.tid]
        got = {name: (units, added) for name, units, added in rows if units}
        if set(got) != set(want) or any(
                got[p][0] != want[p][0] or not close(got[p][1], want[p][1])
                for p in want):
            problems.append("thread %s: %r, expected %r"
                            % (thread.tid, got, want))
        if not close(total, want_total):
            problems.append("thread %s: time %g units, expected %g"
                            % (thread.tid, total, want_total))
        seconds += total / bwf.peak
    if not close(seconds, bf.DOMINANCE_SECONDS):
        problems.append("%g s over the threads, expected %g"
                        % (seconds, bf.DOMINANCE_SECONDS))
    machine = bandwidth.parse_machine(bf.write(tmp, "d.machine",
                                               bf.DOMINANCE_MACHINE))
    limits = bandwidth.limits_per_unit(machine, "instr")
    for (tid, name), (above, units) in sorted(bf.DOMINANCE_ADDED.items()):
        thread = [t for t in bwf.threads if t.tid == tid][0]
        got = bandwidth.added_by_limit(thread.paths[name], bwf.window,
                                       limits[name])
        if got[0] != above or not close(got[2], units):
            problems.append("thread %s %s: %d above, %g added; expected %d,"
                            " %g" % (tid, name, got[0], got[2], above, units))
    return [(NAME + "/dominance", problems)]


# broken variants of the files: (what, file text, expected in the message)
def broken_files():
    c, d = bf.CONSTANT, bf.DOMINANCE
    hist = "hist: 0 1 8 2 16 2 24 2 32 997"
    return [
        ("area", bf.replace_line(c, "total: 8000", "total: 8001"),
         ":12: truncated or damaged: path core<-L1 of thread 1: area"),
        ("counts", bf.replace_line(c, hist, "hist: 0 2 8 2 16 2 24 2 32 997"),
         ":12: truncated or damaged: path core<-L1 of thread 1: the histogram counts 1005"),
        ("unsorted",
         bf.replace_line(c, hist, "hist: 0 1 16 2 8 2 24 2 32 997"),
         ":12: truncated or damaged: hist: window sums not ascending"),
        ("odd", bf.replace_line(c, hist, "hist: 0 1 8"), ":12: truncated or damaged: hist: an odd"),
        ("negative", bf.replace_line(c, "units: 1000", "units: -3"),
         ":9: truncated or damaged: units -3 is negative"),
        ("no-hist", bf.replace_line(c, hist, "# no histogram"),
         ":10: truncated or damaged: path core<-L1 of thread 1: no hist"),
        ("version", bf.replace_line(c, "version: 1", "version: 2"),
         ":2: unsupported version '2'"),
        ("no-version", c.replace("version: 1\n", ""),
         ":2: not a bandwidth file"),
        ("not-key", bf.replace_line(c, "units: 1000", "units 1000"),
         ":9: truncated or damaged: not a 'key: value' line"),
        ("unknown-path", bf.replace_line(c, "path: core->L1", "path: L2<-L1"),
         ":13: truncated or damaged: unknown path 'L2<-L1'"),
        ("dom-not-sub", bf.replace_line(d, "dom: 4 2 8 1", "dom: 4 3 8 1"),
         ":24: truncated or damaged: path LL<-mem of thread 1: dom: 3 units at window sum 4"),
        ("dom-no-limit", bf.replace_line(d, "limit: core<-L1 4", "# none"),
         "dom: for path core<-L1, which has no limit"),
        ("no-peak", bf.replace_line(d, "peak: 1e9", "# none"),
         "dom: histograms but no 'peak:' line"),
    ]


def case_errors(tmp):
    results = []
    for what, text, expected in broken_files():
        name = bf.write(tmp, what + ".bandwidth", text)
        try:
            bwf = bandwidth.parse(name)
            for thread in bwf.cores():
                bandwidth.dominance(thread, bwf)
            problems = ["accepted"]
        except bandwidth.BandwidthError as e:
            message = str(e)
            problems = [] if message.startswith(name) and expected in message \
                else ["message %r lacks %r" % (message, expected)]
        results.append((NAME + "/error/" + what, problems))
    return results


def broken_machines():
    m = bf.MACHINE_HALF
    return [
        ("unknown-key", m + "L2<-L1: 3e9\n", ":4: unknown key 'L2<-L1'"),
        ("no-clock", bf.replace_line(m, "clock: 1e9", ""), "no 'clock:' line"),
        ("not-number", bf.replace_line(m, "core<-L1: 4e9", "core<-L1: fast"),
         ":3: core<-L1 'fast' is not a number"),
        ("zero", bf.replace_line(m, "core<-L1: 4e9", "core<-L1: 0"),
         ":3: core<-L1 0 must be a positive number"),
        ("twice", m + "clock: 2e9\n", ":4: clock given twice"),
    ]


def case_machine_errors(tmp):
    results = []
    for what, text, expected in broken_machines():
        name = bf.write(tmp, what + ".machine", text)
        try:
            bandwidth.parse_machine(name)
            problems = ["accepted"]
        except bandwidth.BandwidthError as e:
            problems = [] if str(e).startswith(name) and expected in str(e) \
                else ["message %r lacks %r" % (str(e), expected)]
        results.append((NAME + "/machine-error/" + what, problems))
    # no rate for the unit in use: refused when the limits are derived
    name = bf.write(tmp, "norate.machine", "clock: 1e9\ncore<-L1: 1e9\n")
    try:
        bandwidth.limits_per_unit(bandwidth.parse_machine(name), "instr")
        problems = ["accepted without instr-per-cycle"]
    except bandwidth.BandwidthError as e:
        problems = [] if "no 'instr-per-cycle:' line" in str(e) else [str(e)]
    results.append((NAME + "/machine-error/no-rate", problems))
    return results


def main():
    with harness.case_dirs("bwreader-") as in_own_dir:
        return harness.run_cases([
            (NAME + "/read", in_own_dir(case_read)),
            (NAME + "/limits", in_own_dir(case_limits)),
            (NAME + "/dominance", in_own_dir(case_dominance)),
            (NAME + "/error", in_own_dir(case_errors)),
            (NAME + "/machine-error", in_own_dir(case_machine_errors))])


if __name__ == "__main__":
    harness.main_guard(main)
