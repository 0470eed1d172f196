#!/usr/bin/env python3
"""The host-geometry option sets of cache_compare.py (cache, cacheuse) on
the two fixed geometries of tests/lib/geometry.py (A: 32 KiB 8-way L1s,
8 MiB 16-way LL; B: 48 KiB 12-way D1, 32 MiB 16-way LL), and the branch
summary after the cache lines (branch-cacheuse-A), against the reference,
every single-threaded client (issue 14, item 6). On B the reference's
cache-use model loses misses, so ours is compared with its plain run
there (cache_compare.reference_options).

usage: cache_geometries.py [OPTION_SET ...]    (default: all of them)
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cache_compare  # noqa: E402
import harness        # noqa: E402

SETS = [s for s in cache_compare.OPTION_SETS
        if s not in cache_compare.DEFAULT_SETS]


if __name__ == "__main__":
    harness.main_guard(lambda: cache_compare.main(sys.argv[1:] or SETS))
