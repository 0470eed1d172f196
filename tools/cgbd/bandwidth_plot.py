"""callgrind-bd_bandwidth --plot: the pictures of thesis 4.3.2 and 4.4.3.

One row per thread section (the cores, then `all`), two panels: the read
paths (`<-`, with `flop`) and the write paths (`->`). Each curve is a
path's bandwidth curve: the smoothed requirements s/W sorted ascending
against the reordered time units, drawn as stairs straight from the
histogram, so the area under it is the volume moved. With limits (a
machine file), each path's limit is a dashed line in its colour and the
area above it hatched (thesis figure 4.7: the bytes that cost time). With
dominance histograms, a last panel stacks per thread and for all threads
together the time at peak and the time dominated by each path, in
seconds at the run's peak rate (thesis figures 4.17 and 4.18).

matplotlib is imported here only, with the Agg backend (no display).
"""

from cgbd.bandwidth import (ALL_PATHS, FLOP, BandwidthError, curve,
                            dominance)

# one colour and hatch per path, the same in curves and bars
STYLE = {
    "core<-L1": ("tab:blue", ""), "core->L1": ("tab:blue", ""),
    "L1<-LL": ("tab:orange", "//"), "L1->LL": ("tab:orange", "//"),
    "L1<-L1": ("tab:purple", "xx"),
    "LL<-mem": ("tab:red", "\\\\"), "LL->mem": ("tab:green", "\\\\"),
    "LL<-mem all": ("darkred", ".."), "LL->mem all": ("darkgreen", ".."),
    FLOP: ("tab:gray", "++"),
}


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
    drawn = False
    top = 0
    for name in names:
        path = thread.paths.get(name)
        if path is None or path.hist is None or path.total == 0:
            continue
        color = STYLE[name][0]
        points = curve(path, bwf.window)
        edges = [0]
        for _, n in points:
            edges.append(edges[-1] + n)
        values = [b for b, _ in points]
        ax.stairs(values, edges, baseline=None, color=color, linewidth=1.5,
                  label="%s (%s)" % (name, "flop" if name == FLOP else "B"))
        limit = (limits or {}).get(name)
        if limit is not None:
            ax.axhline(limit, color=color, linestyle="--", linewidth=1)
            above = [max(b, limit) for b in values]
            ax.stairs(above, edges, baseline=limit, fill=True, color=color,
                      alpha=0.25, hatch="//")
        top = max(top, values[-1], limit or 0)
        drawn = True
    if drawn:
        ax.set_ylim(0, top * 1.1 or 1)    # a limit line on top stays visible
    return drawn


def _curve_panels(plt, fig, grid, bwf, limits):
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
            ax.set_xlabel("time units (%s), sorted by requirement" % bwf.unit,
                          fontsize=8)
            ax.set_ylabel("per time unit (window %d)" % bwf.window,
                          fontsize=8)
            ax.tick_params(labelsize=7)


def _bar_panel(fig, grid_cell, bwf):
    """Stacked bars: per thread and all threads summed, in seconds."""
    ax = fig.add_subplot(grid_cell)
    cores = bwf.cores()
    labels = [t.label() for t in cores] + ["sum"]
    parts = {"at peak": [0.0] * len(labels)}
    for i, thread in enumerate(cores):
        rows, _ = dominance(thread, bwf)
        parts["at peak"][i] = (thread.peak_units or 0) / bwf.peak
        for name, units, added in rows:
            parts.setdefault(name, [0.0] * len(labels))
            parts[name][i] = (units + added) / bwf.peak
    for values in parts.values():
        values[-1] = sum(values[:-1])
    bottom = [0.0] * len(labels)
    for name, values in parts.items():
        if not any(values) and name != "at peak":
            continue
        color, hatch = STYLE.get(name, ("white", ""))
        ax.bar(labels, values, bottom=bottom, label=name, color=color,
               hatch=hatch, edgecolor="black", alpha=0.8 if name != "at peak"
               else 1.0)
        bottom = [b + v for b, v in zip(bottom, values)]
    ax.set_ylabel("seconds (peak %.3g units/s)" % bwf.peak, fontsize=8)
    ax.set_title("time per dominant bottleneck (thesis 4.4)", fontsize=9)
    ax.legend(fontsize=7, loc="center left", bbox_to_anchor=(1.0, 0.5))
    ax.tick_params(labelsize=7)


def plot(bwf, limits, out):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.gridspec import GridSpec
    bars = limits is not None and bwf.has_dominance()
    rows = len(bwf.threads) + (1 if bars else 0)
    fig = plt.figure(figsize=(11, 3.2 * rows))
    grid = GridSpec(rows, 2, figure=fig)
    _curve_panels(plt, fig, grid, bwf, limits)
    if bars:
        _bar_panel(fig, grid[rows - 1, :], bwf)
    fig.suptitle("%s (%s)" % (bwf.cmd or bwf.filename, bwf.filename),
                 fontsize=10)
    fig.tight_layout()
    try:
        fig.savefig(out, dpi=80)
    finally:
        plt.close(fig)
