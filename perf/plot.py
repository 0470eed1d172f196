#!/usr/bin/env python3
"""Draws perf/ratios.png from the raw data of perf/run.py (needs matplotlib).

    plot.py RAW.json OUT.png [wall|cpu]

Top: per benchmark, ours / reference (wall time at --cache-sim=yes and at
--cacheuse=yes, peak memory at --cacheuse=yes) and tree on / off, with the
parity line at 1.  Bottom: slowdown against the native run (log scale) of
valgrind --tool=none, the reference and ours at --cacheuse=yes.  Times are
wall time, or the children's CPU time with "cpu" (run.py picks that when
the machine was loaded).
"""
import json
import os
import sys

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import run  # noqa: E402  (the harness: medians and ratios, stdlib only)


def main():
    raw, png = sys.argv[1], sys.argv[2]
    field = sys.argv[3] if len(sys.argv) > 3 else "wall"
    with open(raw) as f:
        data = json.load(f)
    med = run.medians(data["results"])
    table, _ = run.ratio_table(med, field)
    benches = list(table)
    x = range(len(benches))
    fig, (top, bottom) = plt.subplots(2, 1, figsize=(13, 9), sharex=True)

    series = [("sim", "time ours/ref, --cache-sim=yes"), ("use", "time ours/ref, --cacheuse=yes"),
              ("tree", "time tree on/off"), ("memuse", "peak memory ours/ref, --cacheuse=yes")]
    width = 0.8 / len(series)
    for i, (key, label) in enumerate(series):
        vals = [table[b].get(key, 0) for b in benches]
        top.bar([p + (i - (len(series) - 1) / 2) * width for p in x], vals, width, label=label)
    top.axhline(1.0, color="black", linewidth=0.8)
    top.set_ylabel("ratio (lower is better)")
    top.set_title("callgrind-bd vs reference Callgrind, %s time (%s, %s)"
                  % ("CPU" if field == "cpu" else "wall", data["meta"]["date"], data["meta"]["cpu"]))
    top.legend(fontsize=8, ncol=2)

    slow = [("none", "valgrind --tool=none"), ("ref-use", "reference --cacheuse=yes"),
            ("bd-use", "callgrind-bd --cacheuse=yes")]
    width = 0.8 / len(slow)
    for i, (cfg, label) in enumerate(slow):
        vals = [med[b][cfg][field] / max(med[b]["native"][field], 1e-3)
                if cfg in med[b] and "native" in med[b] else 0 for b in benches]
        bottom.bar([p + (i - (len(slow) - 1) / 2) * width for p in x], vals, width, label=label)
    bottom.set_yscale("log")
    bottom.set_ylabel("slowdown vs native")
    bottom.legend(fontsize=8)
    bottom.set_xticks(list(x))
    bottom.set_xticklabels(benches, rotation=30, ha="right")
    fig.tight_layout()
    fig.savefig(png, dpi=90)


if __name__ == "__main__":
    main()
