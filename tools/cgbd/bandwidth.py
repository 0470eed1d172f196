"""callgrind-bd_bandwidth: reading the bandwidth requirements of a run.

The tool (--bandwidth=yes) writes `<profile>.bandwidth`: per thread and
data path, the exact histogram of the window sums s (bytes moved, or
floating-point operations for `flop`, in the W time units ending at a
time unit). The smoothed requirement of a time unit is s/W per unit
(thesis 4.3.1); sorting the units by it gives the bandwidth curve (thesis
4.3.2), which the histogram holds exactly. The format and the machine
file are described in docs/bandwidth-format.md.

Invariants checked on reading (the file is refused, one line naming the
file and line, when one fails):
  - hist: s strictly ascending, s >= 0, n >= 1, integers;
  - sum(n) = units + window (the W units after the thread's last one
    are in the histogram: the window drains);
  - the area identity sum(s*n) = window * total: the area under the
    curve is the volume moved on the path;
  - dom: a sub-histogram of hist for the thread's own paths (a unit is
    dominated by a path at its own window sum).
  - peak-units plus the units dominated by any path is at most
    units + window (it should be units or units + window; anything else
    gets a warning on stderr, since the breakdown then misses units).
Unknown keys are ignored (the tool may add keys; `ignored` lists them
for a caller that wants none); unknown keys in a machine file are an
error (a misspelt path would silently mean "no limit").

Time added by one path with limit L per time unit (thesis 4.3.2, figure
4.7), from its histogram with b = s/W:
    V_L = sum over b > L of n_b * (b - L)     (bytes above the limit)
    T_L = V_L / L                             (added time units)
and the units above L = sum over b > L of n_b. This assumes that path is
the only bottleneck.

Dominance (thesis 4.4): in a dominated unit the path's slowdown factor
f = (s/W) / L exceeds 1 and is the largest of all paths; the unit takes f
units, i.e. f - 1 added. From a path's dom: histogram:
    dominated units D_p = sum n,   added A_p = sum n * ((s/W)/L - 1)
and a thread's estimated time = peak-units + sum_p (D_p + A_p) units,
in seconds divided by the run's `peak:` (time units per second). The
dominance uses the limits the run had (the file's `limit:` lines), not
those of a machine file given to the script.
"""

import os
import sys

PROG = "callgrind-bd_bandwidth"
HEADER = "# callgrind-bd bandwidth requirements"

# the data paths of one core, in the order of the dominance tie rule
CORE_PATHS = ("core<-L1", "core->L1", "L1<-LL", "L1->LL", "L1<-L1",
              "LL<-mem", "LL->mem")
SHARED_PATHS = ("LL<-mem all", "LL->mem all")
FLOP = "flop"
ALL_PATHS = CORE_PATHS + SHARED_PATHS + (FLOP,)
LATENCY_KEYS = ("latency L1<-LL", "latency LL<-mem")
MACHINE_KEYS = ("name", "clock", "instr-per-cycle", "flop-per-cycle") \
    + CORE_PATHS + SHARED_PATHS + LATENCY_KEYS
UNIT_RATE_KEY = {"instr": "instr-per-cycle", "flop": "flop-per-cycle"}

USAGE = """\
usage: %(prog)s [--summary] [--limits MACHINE] [--plot OUT.png] FILE...
       %(prog)s --latency MACHINE PROFILE...

Reads the bandwidth requirements a run with --bandwidth=yes wrote
(FILE: <profile>.bandwidth, or the profile itself). Several FILEs: the
tables of each in turn, and --plot compares them (one curve per file and
path, one bar per file).

  --summary          per thread and data path: bytes moved (operations for
                     flop), time units, peak and mean bytes per time unit
                     (the default when no other action is given)
  --limits MACHINE   a machine file (bandwidth per path, clock, peak rate):
                     per thread and path the time the path's limit adds
                     (thesis figure 4.7); with a run made with
                     --bandwidth-limits, the dominance breakdown per thread
  --plot OUT.png     draw the bandwidth curves (with --limits: the limit
                     lines and the stacked dominance bars); needs matplotlib
  --latency MACHINE  profiles of runs with --latency=yes: per function the
                     time its instructions, its bandwidth and its dependent
                     misses' latency would take on the machine (which needs
                     'latency L1<-LL:' and 'latency LL<-mem:' lines), and
                     which of them bounds it
  -h, --help         this text
  --version          the version
"""


class BandwidthError(Exception):
    """A problem with an input; its text is the one-line message."""


class PathData:
    """One `path:` block: the volume and the two histograms."""

    def __init__(self, name, line):
        self.name = name
        self.line = line            # where the block starts, for messages
        self.total = None
        self.hist = None            # [(s, n)] ascending s
        self.hist_line = None
        self.dom = None
        self.dom_line = None

    def peak_sum(self):
        return self.hist[-1][0] if self.hist else 0


class ThreadData:
    """One `thread:` section."""

    def __init__(self, tid, line):
        self.tid = tid              # "1", "2", ... or "all"
        self.line = line
        self.units = None
        self.units_line = line
        self.peak_units = None
        self.paths = {}             # name -> PathData, in file order

    def label(self):
        return "all threads" if self.tid == "all" else "thread " + self.tid


class BandwidthFile:
    def __init__(self, filename):
        self.filename = filename
        self.version = None
        self.cmd = ""
        self.pid = ""
        self.unit = None
        self.window = None
        self.limits_file = None
        self.peak = None            # time units per second (with limits)
        self.limits = {}            # path -> limit per time unit
        self.threads = []           # ThreadData in file order
        self.warnings = []
        self.ignored = []           # "file:line: key" of unknown keys

    def cores(self):
        return [t for t in self.threads if t.tid != "all"]

    def thread(self, tid):
        """The section `thread: tid` ("1", ..., "all"), or None."""
        return next((t for t in self.threads if t.tid == tid), None)

    def has_dominance(self):
        return any(p.dom is not None for t in self.threads
                   for p in t.paths.values())


# ---------------------------------------------------------------- reading

def _int(text, what, where):
    try:
        value = int(text)
    except ValueError:
        raise BandwidthError("%s: %s '%s' is not an integer"
                             % (where, what, text))
    if value < 0:
        raise BandwidthError("%s: %s %d is negative" % (where, what, value))
    return value


def _number(text, what, where):
    try:
        value = float(text)
    except ValueError:
        raise BandwidthError("%s: %s '%s' is not a number"
                             % (where, what, text))
    if not value > 0 or value == float("inf"):
        raise BandwidthError("%s: %s %s must be a positive number"
                             % (where, what, text))
    return value


def _histogram(text, key, where):
    """`s n s n ...` -> [(s, n)], s strictly ascending, n >= 1."""
    words = text.split()
    if len(words) % 2:
        raise BandwidthError("%s: %s: an odd number of values (pairs s n)"
                             % (where, key))
    pairs = []
    for i in range(0, len(words), 2):
        s = _int(words[i], key + " window sum", where)
        n = _int(words[i + 1], key + " count", where)
        if n == 0:
            raise BandwidthError("%s: %s: count 0 for window sum %d"
                                 % (where, key, s))
        if pairs and s <= pairs[-1][0]:
            raise BandwidthError("%s: %s: window sums not ascending (%d after"
                                 " %d)" % (where, key, s, pairs[-1][0]))
        pairs.append((s, n))
    return pairs


def _set_once(obj, attr, value, key, where):
    if getattr(obj, attr) is not None:
        raise BandwidthError("%s: %s given twice" % (where, key))
    setattr(obj, attr, value)


def parse(filename):
    """Reads and checks a .bandwidth file; BandwidthError on a problem.
    Past its version line the file is one, so a problem there says it is
    truncated or damaged (the tool writes whole files)."""
    bwf = BandwidthFile(filename)
    try:
        return _parse(bwf, filename)
    except BandwidthError as e:
        if bwf.version is None:
            raise
        raise BandwidthError(_damaged(str(e), filename))


def _damaged(msg, filename):
    """msg ("FILE[:LINE]: what") with "truncated or damaged: " before what."""
    rest = msg[len(filename):] if msg.startswith(filename) else ""
    cut = rest.find(": ")
    if cut < 0:
        return "%s: truncated or damaged: %s" % (filename, msg)
    at = len(filename) + cut + 2
    return msg[:at] + "truncated or damaged: " + msg[at:]


def _parse(bwf, filename):
    thread = path = None
    with open(filename, encoding="utf-8", errors="replace") as f:
        for number, raw in enumerate(f, 1):
            line = raw.strip()
            if not line or line.startswith("#"):
                continue
            where = "%s:%d" % (filename, number)
            key, sep, value = line.partition(":")
            if not sep:
                raise BandwidthError("%s: not a 'key: value' line: %s"
                                     % (where, line[:60]))
            key, value = key.strip(), value.strip()
            if bwf.version is None and key != "version":
                raise BandwidthError("%s: not a bandwidth file (no 'version:'"
                                     " first)" % where)
            if key == "thread":
                _close_thread(bwf, thread, path)
                thread, path = _open_thread(bwf, value, where, number), None
            elif key == "path":
                if thread is None:
                    raise BandwidthError("%s: path: before any thread:"
                                         % where)
                _close_path(bwf, thread, path)
                path = _open_path(thread, value, where, number)
            elif path is not None and key in ("total", "hist", "dom"):
                _path_key(path, key, value, where, number)
            elif thread is not None and key in ("units", "peak-units"):
                if path is not None:
                    raise BandwidthError("%s: %s: inside a path: block"
                                         % (where, key))
                attr = "units" if key == "units" else "peak_units"
                _set_once(thread, attr, _int(value, key, where), key, where)
                if key == "units":
                    thread.units_line = number
            elif thread is None:
                _header_key(bwf, key, value, where)
            elif key in ("total", "hist", "dom"):
                raise BandwidthError("%s: %s: outside a path: block"
                                     % (where, key))
            else:               # ignored: the tool may add keys
                bwf.ignored.append("%s: %s" % (where, key))
    if bwf.version is None:
        raise BandwidthError("%s: empty, not a bandwidth file" % filename)
    _close_thread(bwf, thread, path)
    for key, value in (("unit", bwf.unit), ("window", bwf.window)):
        if value is None:
            raise BandwidthError("%s: no '%s:' line" % (filename, key))
    if not bwf.threads:
        raise BandwidthError("%s: no thread: section" % filename)
    if bwf.has_dominance() and bwf.peak is None:
        raise BandwidthError("%s: dom: histograms but no 'peak:' line"
                             % filename)
    return bwf


def _header_key(bwf, key, value, where):
    if key == "version":
        if bwf.version is not None:
            raise BandwidthError("%s: version given twice" % where)
        if value != "1":
            raise BandwidthError("%s: unsupported version '%s' (this script"
                                 " reads version 1)" % (where, value))
        bwf.version = 1
    elif key == "cmd":
        bwf.cmd = value
    elif key == "pid":
        bwf.pid = value
    elif key == "unit":
        if value not in UNIT_RATE_KEY:
            raise BandwidthError("%s: unit '%s' is neither instr nor flop"
                                 % (where, value))
        _set_once(bwf, "unit", value, key, where)
    elif key == "window":
        window = _int(value, "window", where)
        if window == 0:
            raise BandwidthError("%s: window 0" % where)
        _set_once(bwf, "window", window, key, where)
    elif key == "limits":
        bwf.limits_file = value
    elif key == "peak":
        _set_once(bwf, "peak", _number(value, "peak", where), key, where)
    elif key == "limit":
        name, _, amount = value.rpartition(" ")
        name = name.strip()
        if name not in ALL_PATHS:
            raise BandwidthError("%s: limit: unknown path '%s'"
                                 % (where, name or value))
        if name in bwf.limits:
            raise BandwidthError("%s: limit: %s given twice" % (where, name))
        bwf.limits[name] = _number(amount, "limit of " + name, where)
    else:
        bwf.ignored.append("%s: %s" % (where, key))


def _open_thread(bwf, tid, where, number):
    if tid != "all" and not tid.isdigit():
        raise BandwidthError("%s: thread '%s' is neither a number nor 'all'"
                             % (where, tid))
    if any(t.tid == tid for t in bwf.threads):
        raise BandwidthError("%s: thread %s given twice" % (where, tid))
    thread = ThreadData(tid, number)
    bwf.threads.append(thread)
    return thread


def _open_path(thread, name, where, number):
    if name not in ALL_PATHS:
        raise BandwidthError("%s: unknown path '%s'" % (where, name))
    if name in thread.paths:
        raise BandwidthError("%s: path %s given twice in %s"
                             % (where, name, thread.label()))
    path = PathData(name, number)
    thread.paths[name] = path
    return path


def _path_key(path, key, value, where, number):
    if key == "total":
        _set_once(path, "total", _int(value, "total", where), key, where)
    else:
        _set_once(path, key, _histogram(value, key, where), key, where)
        setattr(path, key + "_line", number)


def _close_path(bwf, thread, path):
    """The identities of one path block (see the module's comment)."""
    if path is None:
        return
    where = "%s:%d" % (bwf.filename, path.line)
    what = "path %s of %s" % (path.name, thread.label())
    dom_only = path.name in SHARED_PATHS and thread.tid != "all"
    if dom_only:
        if path.dom is None:
            raise BandwidthError("%s: %s: no dom: line" % (where, what))
        return
    if path.total is None or path.hist is None:
        raise BandwidthError("%s: %s: no %s: line" % (
            where, what, "total" if path.total is None else "hist"))
    if thread.units is None:
        raise BandwidthError("%s: %s: no units: line before its paths"
                             % (bwf.filename + ":%d" % thread.line,
                                thread.label()))
    where = "%s:%d" % (bwf.filename, path.hist_line)
    count = sum(n for _, n in path.hist)
    if count != thread.units + bwf.window:
        raise BandwidthError(
            "%s: %s: the histogram counts %d time units, not units + window"
            " = %d" % (where, what, count, thread.units + bwf.window))
    area = sum(s * n for s, n in path.hist)
    if area != bwf.window * path.total:
        raise BandwidthError(
            "%s: %s: area sum(s*n) = %d is not window * total = %d (the area"
            " under the curve must be the volume moved)"
            % (where, what, area, bwf.window * path.total))
    if path.dom is not None:
        _check_sub_histogram(bwf, path, what)


def _check_sub_histogram(bwf, path, what):
    where = "%s:%d" % (bwf.filename, path.dom_line)
    counts = dict(path.hist)
    for s, n in path.dom:
        if n > counts.get(s, 0):
            raise BandwidthError(
                "%s: %s: dom: %d units at window sum %d, hist: has %d"
                % (where, what, n, s, counts.get(s, 0)))


def _close_thread(bwf, thread, path):
    if thread is None:
        return
    _close_path(bwf, thread, path)
    where = "%s:%d" % (bwf.filename, thread.line)
    if thread.units is None:
        raise BandwidthError("%s: %s: no units: line"
                             % (where, thread.label()))
    dominated = sum(n for p in thread.paths.values() if p.dom
                    for _, n in p.dom)
    if dominated and thread.peak_units is None:
        raise BandwidthError("%s: %s: dom: histograms but no peak-units:"
                             % (where, thread.label()))
    accounted = dominated + (thread.peak_units or 0)
    if accounted > thread.units + bwf.window:
        raise BandwidthError(
            "%s: %s: peak-units + dominated units = %d, more than units +"
            " window = %d" % (where, thread.label(), accounted,
                              thread.units + bwf.window))
    if thread.peak_units is not None and accounted not in (
            thread.units, thread.units + bwf.window):
        bwf.warnings.append(
            "%s: %s: peak-units + dominated units = %d, neither units (%d)"
            " nor units + window" % (where, thread.label(), accounted,
                                     thread.units))


def parse_machine(filename):
    """A machine file -> {key: value} (name: text, others: numbers)."""
    machine = {}
    with open(filename, encoding="utf-8", errors="replace") as f:
        for number, raw in enumerate(f, 1):
            line = raw.split("#", 1)[0].strip()
            if not line:
                continue
            where = "%s:%d" % (filename, number)
            if raw.lstrip().startswith("name:"):
                line = raw.strip()          # a name may contain '#'
            key, sep, value = line.partition(":")
            key, value = key.strip(), value.strip()
            if not sep:
                raise BandwidthError("%s: not a 'key: value' line: %s"
                                     % (where, line[:60]))
            if key not in MACHINE_KEYS:
                raise BandwidthError("%s: unknown key '%s'" % (where, key))
            if key in machine:
                raise BandwidthError("%s: %s given twice" % (where, key))
            machine[key] = value if key == "name" else \
                _number(value, key, where)
    if "clock" not in machine:
        raise BandwidthError("%s: no 'clock:' line" % filename)
    machine["file"] = filename
    return machine


def unit_rate(machine, unit):
    """Time units per second of the machine's peak (clock x rate)."""
    key = UNIT_RATE_KEY[unit]
    if key not in machine:
        raise BandwidthError("%s: no '%s:' line (the rate of time unit %s)"
                             % (machine["file"], key, unit))
    return machine["clock"] * machine[key]


def limits_per_unit(machine, unit):
    """{path: limit per time unit} from a machine file (bytes per second
    / (clock x rate of the unit); flop: flop per unit)."""
    rate = unit_rate(machine, unit)
    limits = {p: machine[p] / rate for p in CORE_PATHS + SHARED_PATHS
              if p in machine}
    if unit == "flop":
        limits[FLOP] = 1.0
    elif "flop-per-cycle" in machine:
        limits[FLOP] = machine["flop-per-cycle"] / machine["instr-per-cycle"]
    return limits


# ------------------------------------------------------------- the model

def curve(path, window):
    """The bandwidth curve: [(b, n)] with b = s/W ascending."""
    return [(s / window, n) for s, n in path.hist]


def added_by_limit(path, window, limit):
    """(units above the limit, bytes above it V_L, added units T_L)."""
    above = volume = 0
    for s, n in path.hist:
        b = s / window
        if s > window * limit:          # (the tool's compare, exact for s)
            above += n
            volume += n * (b - limit)
    return above, volume, volume / limit


def dominance(thread, bwf):
    """A thread's breakdown: [(name, dominated units, added units)] for
    every path with a dom: histogram (in the tie order), and its
    estimated time in units."""
    rows = []
    for name in ALL_PATHS:
        path = thread.paths.get(name)
        if path is None or path.dom is None:
            continue
        if name not in bwf.limits:
            raise BandwidthError("%s:%d: %s: dom: for path %s, which has no"
                                 " limit: line" % (bwf.filename, path.dom_line,
                                                   thread.label(), name))
        limit = bwf.limits[name]
        units = sum(n for _, n in path.dom)
        added = sum(n * (s / bwf.window / limit - 1) for s, n in path.dom)
        rows.append((name, units, added))
    total = (thread.peak_units or 0) + sum(u + a for _, u, a in rows)
    return rows, total


# ---------------------------------------------------------------- output

def _g(value):
    return "%.6g" % value


def summary_lines(bwf):
    rows = [("thread", "path", "bytes", "units", "peak/unit", "mean/unit")]
    for thread in bwf.threads:
        for path in thread.paths.values():
            if path.hist is None:
                continue
            rows.append((thread.tid, path.name, str(path.total),
                         str(thread.units),
                         _g(path.peak_sum() / bwf.window),
                         _g(path.total / thread.units) if thread.units
                         else "0"))
    head = "# %s: time unit %s, window %d%s" % (
        bwf.filename, bwf.unit, bwf.window,
        ", cmd: " + bwf.cmd if bwf.cmd else "")
    return [head] + _columns(rows)


def _columns(rows):
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    out = []
    for r in rows:
        cells = [r[0].ljust(widths[0]), r[1].ljust(widths[1])] + \
            [c.rjust(w) for c, w in zip(r[2:], widths[2:])]
        out.append("  ".join(cells).rstrip())
    return out


def limits_lines(bwf, machine):
    """Per thread and path with a limit: thesis figure 4.7's added time."""
    limits = limits_per_unit(machine, bwf.unit)
    rate = unit_rate(machine, bwf.unit)
    out = ["# %s: limits of %s%s: %s time units per second" % (
        bwf.filename, machine["file"], " (%s)" % machine["name"]
        if "name" in machine else "", _g(rate))]
    rows = [("thread", "path", "limit/unit", "units", "above", "added",
             "added s", "added %")]
    for thread in bwf.threads:
        for path in thread.paths.values():
            if path.hist is None or path.name not in limits:
                continue
            limit = limits[path.name]
            above, _, added = added_by_limit(path, bwf.window, limit)
            share = 100.0 * added / thread.units if thread.units else 0.0
            rows.append((thread.tid, path.name, _g(limit), str(thread.units),
                         str(above), _g(added), _g(added / rate),
                         "%.1f" % share))
    return out + _columns(rows)


def dominance_lines(bwf, machine_limits):
    """The dominance breakdown per thread (run's limits, peak rate)."""
    out = ["# %s: dominance with the run's limits (%s), %s time units per"
           " second" % (bwf.filename, bwf.limits_file
                        or "the file's limit: lines", _g(bwf.peak))]
    if machine_limits is not None:
        differ = sorted(p for p in set(bwf.limits) | set(machine_limits)
                        if not _close(bwf.limits.get(p),
                                      machine_limits.get(p)))
        if differ:
            out.append("# (the machine file's limits differ on %s: the"
                       " dominance is the run's)" % ", ".join(differ))
    rows = [("thread", "time spent", "units", "added", "seconds", "share %")]
    all_seconds = 0.0
    for thread in bwf.cores():
        paths, total = dominance(thread, bwf)
        peak = thread.peak_units or 0
        share = (lambda u: "%.1f" % (100.0 * u / total) if total else "0")
        rows.append((thread.tid, "at peak", str(peak), "0",
                     _g(peak / bwf.peak), share(peak)))
        for name, units, added in paths:
            if not units:
                continue                # (the path never dominated)
            rows.append((thread.tid, name, str(units), _g(added),
                         _g((units + added) / bwf.peak),
                         share(units + added)))
        rows.append((thread.tid, "estimated", _g(total),
                     _g(sum(added for _, _, added in paths)),
                     _g(total / bwf.peak), "100.0"))
        all_seconds += total / bwf.peak
    out += _columns(rows)
    out.append("# %s: estimated time summed over the threads (user time):"
               " %s s" % (bwf.filename, _g(all_seconds)))
    return out


def _close(a, b):
    """Limits equal up to the 6 decimals the tool writes them with."""
    if a is None or b is None:
        return a is None and b is None
    return abs(a - b) <= 1e-6 * max(1.0, abs(a), abs(b))


# ------------------------------------------------------------ the command

def parse_args(argv):
    opts = {"summary": False, "limits": None, "plot": None, "latency": None}
    files = []
    i = 0
    while i < len(argv):
        arg = argv[i]
        if arg in ("-h", "--help"):
            return None, []
        if arg == "--version":
            return "version", []
        if arg == "--summary":
            opts["summary"] = True
        elif arg.split("=", 1)[0] in ("--limits", "--plot", "--latency"):
            name, eq, value = arg.partition("=")
            if not eq:
                i += 1
                if i == len(argv):
                    raise BandwidthError("%s needs a file name" % name)
                value = argv[i]
            if not value:
                raise BandwidthError("%s needs a file name" % name)
            opts[name[2:]] = value
        elif arg.startswith("-") and arg != "-":
            raise BandwidthError("unknown option '%s' (see --help)" % arg)
        else:
            files.append(arg)
        i += 1
    if not files:
        raise BandwidthError("no FILE given (see --help)")
    if opts["latency"] and (opts["summary"] or opts["limits"]
                            or opts["plot"]):
        raise BandwidthError("--latency reads profiles: it cannot be combined"
                             " with --summary, --limits or --plot")
    if not opts["limits"] and not opts["plot"] and not opts["latency"]:
        opts["summary"] = True
    return opts, files


def input_name(name):
    """FILE, or for a profile its companion FILE.bandwidth."""
    companion = name + ".bandwidth"
    if not name.endswith(".bandwidth") and os.path.isfile(companion) \
            and not _looks_like_bandwidth(name):
        return companion
    if _looks_like_profile(name):
        raise BandwidthError("%s: a profile without %s beside it (the run "
                             "needs --bandwidth=yes to write it)"
                             % (name, os.path.basename(companion)))
    return name


def _head(name, n):
    """The first n lines of a file ([] if it cannot be read)."""
    try:
        with open(name, encoding="utf-8", errors="replace") as f:
            return [f.readline() for _ in range(n)]
    except OSError:
        return []


def _looks_like_profile(name):
    """A Callgrind-format file: its first line as both tools write it, or
    an `events:` line near the top (a bandwidth file has none)."""
    head = _head(name, 64)
    return bool(head) and (head[0].strip() == "# callgrind format"
                           or any(line.startswith("events:") for line in head))


def _looks_like_bandwidth(name):
    head = _head(name, 1)
    return bool(head) and head[0].strip() == HEADER


def main(argv, version="?"):
    try:
        opts, names = parse_args(argv)
        if opts is None:
            sys.stdout.write(USAGE % {"prog": PROG})
            return 0
        if opts == "version":
            print("%s-%s" % (PROG, version))
            return 0
        if opts["latency"]:
            from cgbd import latency
            machine = parse_machine(opts["latency"])
            lines = []
            for name in names:
                lines += latency.latency_lines(name, machine)
            sys.stdout.write("".join(line + "\n" for line in lines))
            return 0
        if opts["plot"]:
            from cgbd import bandwidth_plot
            bandwidth_plot.check_matplotlib()
        files = [parse(input_name(name)) for name in names]
        machine = parse_machine(opts["limits"]) if opts["limits"] else None
        lines = []
        for bwf in files:
            for warning in bwf.warnings:
                print("%s: warning: %s" % (PROG, warning), file=sys.stderr)
            lines += report_lines(bwf, opts["summary"], machine)
        if opts["plot"] and len(files) == 1:
            limits = limits_per_unit(machine, files[0].unit) if machine \
                else None
            bandwidth_plot.plot(files[0], limits, opts["plot"])
        elif opts["plot"]:
            bandwidth_plot.compare(files, machine, opts["plot"])
        sys.stdout.write("".join(line + "\n" for line in lines))
        if opts["plot"]:
            print("# wrote %s" % opts["plot"])
        return 0
    except BandwidthError as e:
        print("%s: %s" % (PROG, e), file=sys.stderr)
        return 1
    except OSError as e:
        print("%s: %s: %s" % (PROG, e.filename or "?", e.strerror or e),
              file=sys.stderr)
        return 1


def report_lines(bwf, summary, machine):
    """The tables of one file: summary, limits, dominance."""
    lines = summary_lines(bwf) if summary else []
    if machine:
        lines += limits_lines(bwf, machine)
        if bwf.has_dominance():
            lines += dominance_lines(bwf, limits_per_unit(machine, bwf.unit))
        else:
            lines.append("# %s: no dominance histograms (a run with"
                         " --bandwidth-limits=MACHINE has them)"
                         % bwf.filename)
    return lines
