"""Cache geometries of the tests, and when the reference's write-back and
cache-use models can be trusted on one (issue 14, items 5 and 6).

The reference's --simulate-wb and --cacheuse lookups start with tag 0 in
every way and mask tags to 32 bits, so a line whose address is below
2^(line bits + set bits) of a cache "hits" that cache's empty way on its
first access (docs/differences.md). Valgrind maps a program no lower than
0x108000 (a PIE executable; ld.so and libraries far above), so the bug
cannot trigger when every cache's sets x line size is at most 1 MiB. It
can on many hosts: the 64 MiB 64-way L3 of some machines is just at the
limit, a 32 MiB 16-way LL is above it, and the 512 MiB 2-way LL that
Valgrind detects on AMD EPYC hosts puts everything below 256 MiB there.
(The 32-bit mask also lets lines 4 GiB apart alias; a small client keeps
no two such lines in one set, which the exact comparisons would show.)

So a comparison with the reference under --simulate-wb or --cacheuse is
made only on geometries where the bug cannot trigger; elsewhere the
reference runs plain --cache-sim=yes (its right model) and ours is
compared on the events that run has.

The suite must mean the same on every machine: comparisons that would
otherwise run on the host's detected geometry also run on FIXED (two
realistic geometries); tests/tool/miss_modes.py adds EPYC.
"""

import re

import profiles

# Two realistic machines: 32 KiB 8-way L1s with an 8 MiB 16-way LL, and a
# 48 KiB 12-way D1 with a 32 MiB 16-way LL (the reference's write-back
# and cache-use models lose misses on the second).
FIXED = {
    "A": ["--I1=32768,8,64", "--D1=32768,8,64", "--LL=8388608,16,64"],
    "B": ["--I1=32768,8,64", "--D1=49152,12,64", "--LL=33554432,16,64"],
}
# What Valgrind detects as the LL of an AMD EPYC host.
EPYC = ["--I1=32768,8,64", "--D1=32768,8,64", "--LL=536870912,2,64"]

# Highest sets x line size (bytes) of a cache on which no line of a
# program run by Valgrind is below 2^(line bits + set bits).
SAFE_SPAN = 1 << 20

# Options under which the reference uses its lossy tags.
LOSSY_MODES = ("--simulate-wb=yes", "--cacheuse=yes")

_DESC = re.compile(r"^(I1|D1|LL) cache: (\d+) B, (\d+) B, "
                   r"(?:(\d+)-way associative|direct-mapped)$")


def profile_geometry(path):
    """{cache: (size, assoc, line)} from a profile's desc: lines."""
    geom = {}
    for d in profiles.parse(path).parts[0].descs:
        m = _DESC.match(d)
        if m:
            geom[m.group(1)] = (int(m.group(2)), int(m.group(4) or 1),
                                int(m.group(3)))
    return geom


def reference_loses_misses(geom):
    """True if the reference's write-back / cache-use tags can make a
    first access hit on this geometry ({cache: (size, assoc, line)})."""
    return any(size // assoc > SAFE_SPAN for size, assoc, _ in geom.values())


def uses_lossy_mode(opts):
    return any(o in LOSSY_MODES for o in opts)


def without_lossy_modes(opts):
    """The reference options of its right model: the same without
    --simulate-wb / --cacheuse (plain --cache-sim=yes)."""
    kept = [o for o in opts if o not in LOSSY_MODES]
    if "--cache-sim=yes" not in kept:
        kept.append("--cache-sim=yes")
    return kept
