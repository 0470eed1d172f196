"""callgrind-bd_bandwidth --plot: the pictures of thesis 4.3.2 and 4.4.3.

One row per thread section (the cores, then `all`), two panels: the read
paths (`<-`, with `flop`) and the write paths (`->`). Each curve is a
path's bandwidth curve: the smoothed requirements s/W sorted ascending
against the reordered time units, drawn as stairs straight from the
histogram, so the area under it is the volume moved. With limits (a
machine file), each path's limit is a dashed line in its colour and the
area above it hatched (thesis figure 4.7: the bytes that cost time); with
dominance histograms the part of that area in units the path dominated
is grey (thesis figure 4.16: only that part costs time), and a last
panel stacks per thread and for all threads together the time at peak
and the time dominated by each path, in seconds at the run's peak rate
(thesis figures 4.17 and 4.18).

matplotlib is imported here only, with the Agg backend (no display).
"""

import os

from cgbd.bandwidth import (ALL_PATHS, FLOP, SHARED_PATHS, BandwidthError,
                            curve, dominance, limits_per_unit)

# one colour and hatch per path, the same in curves and bars; the shared
# paths far from their core's colours (they are drawn next to them)
STYLE = {
    "core<-L1": ("tab:blue", ""), "core->L1": ("tab:blue", ""),
    "L1<-LL": ("tab:orange", "//"), "L1->LL": ("tab:orange", "//"),
    "L1<-L1": ("tab:purple", "xx"),
    "LL<-mem": ("tab:red", "\\\\"), "LL->mem": ("tab:green", "\\\\"),
    "LL<-mem all": ("magenta", ".."), "LL->mem all": ("goldenrod", ".."),
    FLOP: ("tab:gray", "++"),
}
# and a dash pattern per path: curves that coincide (core<-L1 and L1<-LL
# in a loop that misses at every load) stay told apart
DASH = {
    "core<-L1": "-", "core->L1": "-", "L1<-LL": "--", "L1->LL": "--",
    "L1<-L1": "-.", "LL<-mem": "-", "LL->mem": "-",
    "LL<-mem all": ":", "LL->mem all": ":", FLOP: "-.",
}


def _axes_for_curves(ax, unit, window):
    """x: the share of the time units, sorted by requirement; y: symlog,
    so that the bulk of the units and the few peaks both show."""
    ax.set_yscale("symlog", linthresh=1.0)
    ax.set_xlim(0, 100)
    ax.set_xlabel("share of the time units (%s), sorted by requirement (%%)"
                  % unit, fontsize=8)
    ax.set_ylabel("per time unit (window %d, symlog)" % window, fontsize=8)


def _percent_edges(points):
    """The stairs' edges of a curve, as shares of its units (%)."""
    total = sum(n for _, n in points) or 1
    edges, at = [0.0], 0
    for _, n in points:
        at += n
        edges.append(100.0 * at / total)
    return edges


def check_matplotlib():
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot  # noqa: F401
    except ImportError:
        raise BandwidthError("--plot needs matplotlib, which is not installed"
                             " (Debian: apt-get install python3-matplotlib)")


def _is_write(name):
    return "->" in name


def _draw_curves(ax, thread, bwf, limits, names):
    drawn = 0
    top = 0
    for name in names:
        path = thread.paths.get(name)
        if path is None or path.hist is None or path.total == 0:
            continue
        color = STYLE[name][0]
        points = curve(path, bwf.window)
        edges = _percent_edges(points)
        values = [b for b, _ in points]
        # the first drawn widest: a curve drawn over it leaves it showing
        ax.stairs(values, edges, baseline=None, color=color,
                  linestyle=DASH[name], linewidth=max(3.0 - 0.6 * drawn, 1.0),
                  label="%s (%s)" % (name, "flop" if name == FLOP else "B"))
        limit = (limits or {}).get(name)
        if limit is not None:
            ax.axhline(limit, color=color, linestyle="--", linewidth=1)
            above = [max(b, limit) for b in values]
            ax.stairs(above, edges, baseline=limit, fill=True, color=color,
                      alpha=0.25, hatch="//")
            if path.dom:
                ax.stairs(_dominated(path, values, limit), edges,
                          baseline=limit, fill=True, color="dimgray",
                          alpha=0.7)
        top = max(top, values[-1], limit or 0)
        drawn += 1
    if drawn:
        ax.set_ylim(0, top * 1.5 or 1)    # a limit line on top stays visible
    return drawn > 0


def _dominated(path, values, limit):
    """Thesis figure 4.16: of the span b - L above the limit at each
    requirement b, the share of its units in which this path dominated
    (dom n / hist n), drawn from L up."""
    dom = dict(path.dom)
    return [limit + max(b - limit, 0) * dom.get(s, 0) / n
            for b, (s, n) in zip(values, path.hist)]


def _curve_panels(fig, grid, bwf, limits):
    for row, thread in enumerate(bwf.threads):
        names = [n for n in ALL_PATHS if n in thread.paths]
        for col, writes in enumerate((False, True)):
            ax = fig.add_subplot(grid[row, col])
            chosen = [n for n in names if _is_write(n) == writes]
            if not _draw_curves(ax, thread, bwf, limits, chosen):
                ax.text(0.5, 0.5, "nothing moved", ha="center",
                        transform=ax.transAxes)
            else:
                ax.legend(fontsize=7, loc="upper left")
            ax.set_title("%s: %s" % (thread.label(),
                                     "writes" if writes else "reads"),
                         fontsize=9)
            _axes_for_curves(ax, bwf.unit, bwf.window)
            ax.tick_params(labelsize=7)


def _thread_seconds(bwf, thread):
    """{"at peak" or path: seconds} of one thread's breakdown."""
    seconds = {"at peak": (thread.peak_units or 0) / bwf.peak}
    rows, _ = dominance(thread, bwf)
    for name, units, added in rows:
        seconds[name] = (units + added) / bwf.peak
    return seconds


def _stack(ax, labels, columns):
    """Stacked bars, one per label; columns: [{part: seconds}]."""
    parts = {"at peak": [0.0] * len(labels)}
    for i, column in enumerate(columns):
        for name, value in column.items():
            parts.setdefault(name, [0.0] * len(labels))
            parts[name][i] += value
    bottom = [0.0] * len(labels)
    tallest = max(sum(column.values()) for column in columns) if columns else 0
    for name, values in parts.items():
        # a part thinner than a pixel would only crowd the legend
        if name != "at peak" and max(values) < 0.003 * tallest:
            continue
        color, hatch = STYLE.get(name, ("white", ""))
        ax.bar(range(len(labels)), values, bottom=bottom, label=name,
               color=color, hatch=hatch, edgecolor="black",
               alpha=0.8 if name != "at peak" else 1.0)
        bottom = [b + v for b, v in zip(bottom, values)]
    ax.set_xticks(range(len(labels)), labels)
    ax.legend(fontsize=7, loc="center left", bbox_to_anchor=(1.0, 0.5))
    ax.tick_params(labelsize=7)


def _bar_panel(fig, grid_cell, bwf):
    """Stacked bars: per thread and all threads summed, in seconds."""
    ax = fig.add_subplot(grid_cell)
    columns = [_thread_seconds(bwf, t) for t in bwf.cores()]
    total = {}
    for column in columns:
        for name, value in column.items():
            total[name] = total.get(name, 0.0) + value
    _stack(ax, [t.label() for t in bwf.cores()] + ["sum"], columns + [total])
    ax.set_ylabel("seconds (peak %.3g units/s)" % bwf.peak, fontsize=8)
    ax.set_title("time per dominant bottleneck (thesis 4.4)", fontsize=9)


def plot(bwf, limits, out):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.gridspec import GridSpec
    bars = limits is not None and bwf.has_dominance()
    rows = len(bwf.threads) + (1 if bars else 0)
    fig = plt.figure(figsize=(11, 3.2 * rows))
    grid = GridSpec(rows, 2, figure=fig)
    _curve_panels(fig, grid, bwf, limits)
    if bars:
        _bar_panel(fig, grid[rows - 1, :], bwf)
    fig.suptitle("%s (%s)" % (_short_cmd(bwf.cmd) or bwf.filename,
                              os.path.basename(bwf.filename)), fontsize=10)
    fig.tight_layout()
    try:
        fig.savefig(out, dpi=80)
    finally:
        plt.close(fig)


def _short_cmd(cmd):
    """The command without the program's directory."""
    words = cmd.split()
    return " ".join([os.path.basename(words[0])] + words[1:]) if words else ""


def _file_labels(files):
    """The command of each run, or its file name where commands repeat."""
    cmds = [_short_cmd(f.cmd) for f in files]
    return [c if c and cmds.count(c) == 1 else os.path.basename(f.filename)
            for c, f in zip(cmds, files)]


def compare(files, machine, out):
    """Several runs: per path one panel with each file's curve (thread 1,
    or the `all` section for the shared paths), and with --limits and
    dominance in every file one bar per file, summed over its threads
    (thesis figures 4.18, 4.19)."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    names = [n for n in ALL_PATHS if any(
        _compare_path(f, n) is not None for f in files)]
    bars = machine is not None and all(f.has_dominance() for f in files)
    panels = len(names) + (1 if bars else 0)
    cols = 3
    rows = max(1, (panels + cols - 1) // cols)
    fig = plt.figure(figsize=(13, 3.0 * rows))
    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    labels = _file_labels(files)
    for i, name in enumerate(names):
        ax = fig.add_subplot(rows, cols, i + 1)
        top = 0
        for j, bwf in enumerate(files):
            path = _compare_path(bwf, name)
            if path is None:
                continue
            points = curve(path, bwf.window)
            ax.stairs([b for b, _ in points], _percent_edges(points),
                      baseline=None, color=colors[j % len(colors)],
                      linestyle=("-", "--", "-.", ":")[j % 4],
                      linewidth=max(3.0 - 0.6 * j, 1.0), label=labels[j])
            top = max(top, points[-1][0])
            if machine is not None:
                limit = limits_per_unit(machine, bwf.unit).get(name)
                if limit is not None and j == 0:
                    ax.axhline(limit, color="black", linestyle="--",
                               linewidth=1, label="limit")
                    top = max(top, limit)
        _axes_for_curves(ax, files[0].unit, files[0].window)
        ax.set_ylim(0, top * 1.5 or 1)
        ax.set_title("%s%s" % (name, "" if name in SHARED_PATHS
                                else " (thread 1)"), fontsize=9)
        ax.set_ylabel("%s per time unit (symlog)" % ("flop" if name == FLOP
                                                     else "bytes"), fontsize=8)
        ax.legend(fontsize=6, loc="upper left")
        ax.tick_params(labelsize=7)
    if bars:
        ax = fig.add_subplot(rows, cols, panels)
        columns = []
        for bwf in files:
            total = {}
            for thread in bwf.cores():
                for part, value in _thread_seconds(bwf, thread).items():
                    total[part] = total.get(part, 0.0) + value
            columns.append(total)
        _stack(ax, labels, columns)
        ax.set_ylabel("seconds, summed over threads", fontsize=8)
        ax.set_title("time per dominant bottleneck", fontsize=9)
        ax.tick_params(axis="x", labelrotation=20)
    fig.tight_layout()
    try:
        fig.savefig(out, dpi=80)
    finally:
        plt.close(fig)


def _compare_path(bwf, name):
    """The path block a comparison draws: thread 1's, or all's."""
    tid = "all" if name in SHARED_PATHS else None
    for thread in bwf.threads:
        if (tid and thread.tid == tid) or (not tid and thread.tid != "all"):
            path = thread.paths.get(name)
            if path is not None and path.hist is not None and path.total:
                return path
            return None
    return None
