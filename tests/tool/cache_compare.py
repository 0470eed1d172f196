#!/usr/bin/env python3
"""Cache, cache-use and branch simulation: ours against the reference, one
case per option set x single-threaded client.

usage: cache_compare.py [OPTION_SET ...]     (default: DEFAULT_SETS; see
                                             OPTION_SETS)

CACHE_COMPARE_SETS (space-separated set names) replaces the default
(tests/release-checks.sh: the sets run against other Valgrind releases).

Self costs of every event both profiles have, call counts, inclusive
costs of the immediate events, and totals must be equal. Our profile must
read cleanly in callgrind_annotate and, when it has back-dated events
(AcCost/SpLoss, ...), satisfy the conservation rule for them: the
reference writes 0 inclusive costs for those, so conservation is the
oracle wherever it holds for Ir. (Immediate inclusive costs are compared
with the reference directly; the reference itself breaks conservation for
_Exit and the sigreturn trampoline with cache simulation: their last block
never completes, so its cost reaches the caller's arc but no self cost
line. The lines that block loaded do the same with our back-dated costs,
see docs/differences.md.)

The sets without a geometry run on the host's detected caches; each of
them also runs on the two fixed geometries of geometry.FIXED (sets
"-A", "-B", run by tests/tool/cache_geometries.py), so that the suite
means the same on every machine. Where the
reference's write-back / cache-use model loses misses (geometry.py: B,
and hosts with a big LL), the reference runs plain --cache-sim=yes
instead and ours is compared on the events it has (misses included).
The exit summaries on stderr are compared too (checks.compare_check).

Run them alone with `tests/run cache` or
`tests/tool/cache_compare.py geom-wb cacheuse-B`.
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "lib"))
import profiles  # noqa: E402
import checks    # noqa: E402
import compare   # noqa: E402
import geometry  # noqa: E402
import harness   # noqa: E402

GEOM = ["--I1=32768,8,64", "--D1=24576,6,64", "--LL=3145728,12,64"]

# name -> (our options, reference options or None for the same). With
# --cacheuse the reference ignores --simulate-wb/--simulate-hwpref (it
# warns "can not be used with cache usage"); we support the combination,
# so for those sets the reference runs without --cacheuse and we are
# compared on the events it produces (the cache model does not depend on
# cache-use tracking).
OPTION_SETS = {
    "cache": (["--cache-sim=yes"], None),
    "cacheuse": (["--cache-sim=yes", "--cacheuse=yes"], None),
    "geom": (GEOM, None),
    "geom-wb": (GEOM + ["--simulate-wb=yes"], None),
    "geom-hwpref": (GEOM + ["--simulate-hwpref=yes"], None),
    "geom-cacheuse": (GEOM + ["--cacheuse=yes"], None),
    "geom-wb-cacheuse": (GEOM + ["--simulate-wb=yes", "--cacheuse=yes"],
                         GEOM + ["--simulate-wb=yes"]),
    "geom-hwpref-cacheuse": (GEOM + ["--simulate-hwpref=yes", "--cacheuse=yes"],
                             GEOM + ["--simulate-hwpref=yes"]),
    "branch": (["--branch-sim=yes"], None),
}
# The sets above run by default; the following (geometry.FIXED) are run by
# tests/tool/cache_geometries.py, so that each script stays well within
# the runner's time limit on a loaded machine.
DEFAULT_SETS = list(OPTION_SETS)
# The branch summary after the cache lines (their column widths are shared).
OPTION_SETS["branch-cacheuse-A"] = (geometry.FIXED["A"] + [
    "--branch-sim=yes", "--cacheuse=yes"], None)
# The host-geometry sets again on each fixed geometry.
for _g, _geom in geometry.FIXED.items():
    OPTION_SETS["cache-" + _g] = (_geom + ["--cache-sim=yes"], None)
    OPTION_SETS["cacheuse-" + _g] = (_geom + ["--cacheuse=yes"], None)


def reference_options(ours_opts, ref_opts, ours):
    """The reference's options for a set: its own, or its right model
    (plain cache simulation) when its write-back / cache-use tags can lose
    misses on the geometry ours ran with (the same as the reference's:
    given, or detected the same way)."""
    opts = ref_opts or ours_opts
    if geometry.uses_lossy_mode(opts) and os.path.exists(ours.out) and \
            geometry.reference_loses_misses(
                geometry.profile_geometry(ours.out)):
        return geometry.without_lossy_modes(opts)
    return opts


def case(set_name, client):
    ours_opts, ref_opts = OPTION_SETS[set_name]
    name = "cache/%s/%s" % (set_name, client)
    tag = "cache-%s-%s" % (set_name, client)

    def run():
        # shared: miss_modes.py makes the same runs of ours, and sets whose
        # reference options coincide (cacheuse and cache where the
        # reference runs its plain model) the same reference runs
        ours = harness.run_tool(harness.OURS, client, ours_opts, tag,
                                shared=True)
        opts = reference_options(ours_opts, ref_opts, ours)

        def run_ref(i=0):
            if i == 0:
                return harness.run_tool(harness.REF, client, opts, tag,
                                        shared=True)
            return harness.run_tool(harness.REF, client, opts, tag,
                                    "ref-rerun%d.out" % i)
        ref = run_ref()
        # With different reference options, ours must still produce every
        # event the reference does (e.g. ILdmr with --simulate-wb).
        events = profiles.parse(ref.out).parts[0].events \
            if opts != ours_opts and os.path.exists(ref.out) else None
        results = [checks.compare_check(name, ours, ref, rerun_ref=run_ref,
                                        events=events)]
        if os.path.exists(ours.out):
            results.append(checks.annotate_result(name + "/annotate", ours))
            backdated = compare.backdated_events(
                profiles.parse(ours.out).parts[0].events)
            if backdated:
                results.append(checks.conservation_result(
                    name + "/conservation", ours, backdated,
                    where_ir_holds=True))
        return results
    return run


def main(argv):
    sets = argv or os.environ.get("CACHE_COMPARE_SETS", "").split() or \
        DEFAULT_SETS
    unknown = [s for s in sets if s not in OPTION_SETS]
    if unknown:
        print("FAIL cache_compare: unknown option sets %s" % unknown)
        return 1
    cases = [("cache/%s/%s" % (s, c), case(s, c))
             for s in sets for c in harness.EXACT_CLIENTS]
    return harness.run_cases(cases)


if __name__ == "__main__":
    harness.main_guard(lambda: main(sys.argv[1:]))
