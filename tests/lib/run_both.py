#!/usr/bin/env python3
"""Run a test client under our tool and under the reference Callgrind with
the same options, environment and working directory, print the two
profile paths and compare them.

usage: run_both.py [--events Ir,...] [--allow-missing-fn REGEX]
                   [--tag NAME] CLIENT [VALGRIND_OPTION ...]

CLIENT is a client of tests/clients (calls, recursion, cacheuse, ...; it
is built if needed). Example:
    tests/lib/run_both.py cacheuse --cache-sim=yes --cacheuse=yes
Profiles go to $CGBD_OUT/<tag>/ (see harness.py for CGBD_OUT, CGBD_VGLIB,
CGBD_SELFTEST). Exit status: 0 equal, 1 different, 2 a run failed.
"""

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import checks    # noqa: E402
import harness   # noqa: E402


def main(argv):
    ap = argparse.ArgumentParser(usage=__doc__.split("\n\n")[1])
    ap.add_argument("--events")
    ap.add_argument("--allow-missing-fn")
    ap.add_argument("--tag")
    ap.add_argument("client", choices=sorted(harness.CLIENT_BUILD))
    a, vg_opts = ap.parse_known_args(argv)
    if not os.environ.get("CGBD_OUT"):
        harness.OUT = os.path.join(harness.BUILD, "out", "manual")
    tag = a.tag or a.client
    ours, ref = harness.run_both(a.client, vg_opts, tag)
    print("ours: %s\nref:  %s" % (ours.out, ref.out))
    failed = harness.run_problems(ours) + harness.run_problems(ref)
    if failed:
        print("\n".join(failed))
        return 2
    result = checks.compare_check(
        tag, ours, ref,
        rerun_ref=lambda i: harness.run_tool(harness.REF, a.client, vg_opts,
                                             tag, "ref-rerun%d.out" % i),
        events=a.events.split(",") if a.events else None,
        allow_missing=a.allow_missing_fn)
    harness.report(*result)
    return 1 if result[1] else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
