#!/usr/bin/env python3
"""Show what varies between identical runs of the reference Callgrind.

usage: reference_noise.py [-n RUNS] CLIENT [VALGRIND_OPTION ...]

Runs the reference RUNS times (default 8) on a client of tests/clients
with the same options and environment and prints, per differing quantity
(self cost, arc, totals), the values seen. This is the evidence behind
compare.KNOWN_NOISY_FNS.
"""

import argparse
import os
import sys
from concurrent.futures import ThreadPoolExecutor

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cgbd import cgfile    # noqa: E402
import compare   # noqa: E402
import harness   # noqa: E402


def main(argv):
    ap = argparse.ArgumentParser(usage=__doc__.split("\n\n")[1])
    ap.add_argument("-n", type=int, default=8)
    ap.add_argument("client", choices=sorted(harness.CLIENT_BUILD))
    a, vg_opts = ap.parse_known_args(argv)
    if not os.environ.get("CGBD_OUT"):
        harness.OUT = os.path.join(harness.BUILD, "out", "noise")

    def run(i):
        r = harness.run_tool(harness.REF, a.client, vg_opts, a.client,
                             "ref%d.out" % i)
        return cgfile.parse(r.out)

    with ThreadPoolExecutor(int(os.environ.get("CGBD_JOBS", "2"))) as pool:
        profiles = list(pool.map(run, range(a.n)))
    values = {}                 # quantity -> values seen
    for p in profiles[1:]:
        for m in compare.compare_profiles(p, profiles[0], compare.Options()):
            values.setdefault(m.what, set()).update((m.ours, m.ref))
    for what in sorted(values):
        print("%s: %s" % (what, " ".join(map(str, sorted(values[what],
                                                          key=str)))))
    if not values:
        print("no differences in %d runs" % a.n)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
