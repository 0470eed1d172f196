#!/usr/bin/env python3
"""Cost of --L2 and --prefetch (issue 18) from a perf/run.py raw file:

    perf/run.py --size medium --configs bd-sim,bd-l2,bd-pf,bd-use,bd-use-l2 ...
    perf/l2pf_ratios.py perf/build/raw-<stamp>.json

prints, per benchmark and as the median over benchmarks, the ratios of
median wall time, CPU time and peak memory: bd-l2 / bd-sim (an L2),
bd-pf / bd-sim (the stream prefetcher), bd-use-l2 / bd-use (an L2 with
cache use and back-dating). Each pair ran in the same repetitions,
interleaved (perf/run.py), so the ratios hold under a changing load.
"""
import json
import statistics
import sys

PAIRS = [("L2", "bd-l2", "bd-sim"), ("prefetch", "bd-pf", "bd-sim"),
         ("L2+use", "bd-use-l2", "bd-use")]
KINDS = [("wall", "wall"), ("cpu", "CPU"), ("rss_kib", "mem")]


def med(runs, key):
    return statistics.median(r[key] for r in runs)


def main(path):
    with open(path) as fh:
        data = json.load(fh)
    res = data["results"]
    head = ["benchmark"] + ["%s %s" % (p, k) for p, _, _ in PAIRS
                            for _, k in KINDS]
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    cols = {h: [] for h in head[1:]}
    for bench, confs in res.items():
        row = [bench]
        for p, num, den in PAIRS:
            for key, k in KINDS:
                if num in confs and den in confs and confs[num] and confs[den]:
                    v = med(confs[num], key) / med(confs[den], key)
                    cols["%s %s" % (p, k)].append(v)
                    row.append("%.2f" % v)
                else:
                    row.append("-")
        print("| " + " | ".join(row) + " |")
    print("| **median** | " + " | ".join(
        "**%.2f**" % statistics.median(cols[h]) if cols[h] else "-"
        for h in head[1:]) + " |")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: l2pf_ratios.py RAW.json")
    main(sys.argv[1])
