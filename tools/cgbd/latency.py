"""callgrind-bd_bandwidth --latency: is a function bandwidth- or
latency-bound?

Reads a profile of a run with --latency=yes (events D1dep, DLdep; the
`desc: Latency window:` and `desc: Longest chain:` lines) and a machine
file with latencies, and gives per function (self costs, summed over the
profile's parts) three times, each what would bound the function alone:

  instr      Ir / (clock * instr-per-cycle)
  bandwidth  the slowest data path: (D1mr + D1mw) lines over L1<-LL,
             (DLmr + DLmw) lines over LL<-mem (lines of the profile's
             D1 / LL line size, bytes per second of the machine file)
  latency    the dependent misses, each waiting for the one before:
             (D1dep - DLdep) * latency L1<-LL + DLdep * latency LL<-mem,
             divided at each level by the chains that overlap: a chain
             starts at an independent miss (D1mr - D1dep chains at D1,
             DLmr - DLdep at LL), the function runs Ir / chains
             instructions per chain, and the reorder window (the run's
             --latency-window) holds max(1, window * chains / Ir) of them
             at a time

and says which is the largest (the bound): the three are taken to
overlap fully, the largest is the estimate (docs/manual.md,
"Latency-bound code").
"""

from cgbd import bandwidth as bw
from cgbd import cgfile

LATENCY_KEYS = bw.LATENCY_KEYS
NEEDED = ("D1mr", "D1mw", "DLmr", "DLmw", "D1dep", "DLdep")
TOP = 20


class Totals:
    """One function's self costs and longest chains."""

    def __init__(self, name):
        self.name = name
        self.cost = {}
        self.longest = (0, 0)


def read_profile(filename):
    """(functions {name: Totals}, window, (D1 line, LL line) sizes)."""
    try:
        profile = cgfile.parse(filename)
    except cgfile.FormatError as e:
        raise bw.BandwidthError(str(e))
    events = profile.parts[0].events if profile.parts else []
    missing = [e for e in NEEDED if e not in events]
    if missing:
        raise bw.BandwidthError(
            "%s: no %s events (a run with --latency=yes writes them)"
            % (filename, " ".join(missing)))
    fns, window, lines = {}, None, [64, 64]
    for part in profile.parts:
        for d in part.descs:
            window = _desc_window(d, window)
            _desc_line_size(d, lines)
        chains = _longest_chains(part)
        for name, f in part.fns.items():
            t = fns.setdefault(name, Totals(name))
            for e, v in f.self_cost.items():
                t.cost[e] = t.cost.get(e, 0) + v
            c = chains.get(name, chains.get(name.split("'")[0], (0, 0)))
            t.longest = (max(t.longest[0], c[0]), max(t.longest[1], c[1]))
    if window is None:
        raise bw.BandwidthError("%s: no 'desc: Latency window:' line (a run"
                                " with --latency=yes writes it)" % filename)
    return fns, window, tuple(lines)


def _desc_window(d, window):
    if d.startswith("Latency window: "):
        return int(d.split()[2])
    return window


def _desc_line_size(d, lines):
    """`D1 cache: 49152 B, 64 B, 12-way associative` -> lines[0] = 64."""
    for i, level in enumerate(("D1 cache: ", "LL cache: ")):
        if d.startswith(level) and d.count(",") >= 2:
            lines[i] = int(d.split(",")[1].split()[0])


def _longest_chains(part):
    out = {}
    for d in part.descs:
        if d.startswith("Longest chain: ") and " fn=" in d:
            w = d.split()
            name = d.split(" fn=", 1)[1]
            old = out.get(name, (0, 0))
            out[name] = (max(old[0], int(w[3])), max(old[1], int(w[5])))
    return out


def check_machine(machine):
    missing = [k for k in ("instr-per-cycle", "L1<-LL", "LL<-mem")
               + LATENCY_KEYS if k not in machine]
    if missing:
        raise bw.BandwidthError("%s: no '%s:' line (--latency needs it)"
                                % (machine["file"], missing[0]))


def _overlap(window, chains, ir):
    return max(1.0, window * chains / ir) if ir else 1.0


def times(t, machine, window, lines):
    """(instr, bandwidth, latency) seconds of one function's costs."""
    c = t.cost.get
    ir = c("Ir", 0)
    instr = ir / (machine["clock"] * machine["instr-per-cycle"])
    band = max((c("D1mr", 0) + c("D1mw", 0)) * lines[0] / machine["L1<-LL"],
               (c("DLmr", 0) + c("DLmw", 0)) * lines[1] / machine["LL<-mem"])
    d1_only = c("D1dep", 0) - c("DLdep", 0)
    chains_d1 = c("D1mr", 0) - c("D1dep", 0)
    chains_ll = c("DLmr", 0) - c("DLdep", 0)
    lat = d1_only * machine["latency L1<-LL"] / _overlap(window, chains_d1, ir) \
        + c("DLdep", 0) * machine["latency LL<-mem"] \
        / _overlap(window, chains_ll, ir)
    return instr, band, lat


def latency_lines(filename, machine):
    check_machine(machine)
    fns, window, lines = read_profile(filename)
    rows = []
    for t in fns.values():
        instr, band, lat = times(t, machine, window, lines)
        bound = max((instr, "instr"), (band, "bandwidth"), (lat, "latency"))
        rows.append((bound[0], t, instr, band, lat, bound[1]))
    rows.sort(key=lambda r: (-r[0], r[1].name))
    out = ["# %s: per function (self), machine %s%s, reorder window %d"
           " instructions; seconds" % (filename, machine["file"],
                                       " (%s)" % machine["name"]
                                       if "name" in machine else "", window)]
    table = [("function", "Ir", "D1mr", "DLmr", "D1dep", "DLdep",
              "chains", "longest", "instr s", "bandwidth s", "latency s",
              "bound")]
    for _, t, instr, band, lat, bound in rows[:TOP]:
        c = t.cost.get
        table.append((t.name, str(c("Ir", 0)), str(c("D1mr", 0)),
                      str(c("DLmr", 0)), str(c("D1dep", 0)),
                      str(c("DLdep", 0)), str(c("D1mr", 0) - c("D1dep", 0)),
                      "%d/%d" % t.longest, bw._g(instr), bw._g(band),
                      bw._g(lat), bound))
    out += _columns(table)
    if len(rows) > TOP:
        out.append("# (%d more functions)" % (len(rows) - TOP))
    return out


def _columns(rows):
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    return ["  ".join([r[0].ljust(widths[0])]
                      + [c.rjust(w) for c, w in zip(r[1:-1], widths[1:-1])]
                      + [r[-1]]).rstrip() for r in rows]
