#!/usr/bin/env python3
"""--inline-hits=yes (callgrind/sim_inline.c) changes no profile.

The option only moves the L1 MRU hits of a flush from the simulation
helpers into generated code, which must leave the model's state and every
count exactly as the helpers do (sim_inline.c states why).  So for every
single-threaded client that exits normally -- including zeroing, dumps and
collection toggles (clreq), instrumentation switches (missclass_switch)
and atomics -- the run with --inline-hits=yes must write the same files
as the run with --inline-hits=no: every event equal per function, per arc
and in the totals, under --cache-sim=yes, with --cacheuse=yes (and the
back-dating oracle's events), and with --private-caches=yes (the running
core's caches are switched with the thread, a store needs its line in
the core's owned filter).  The multi-threaded clients interleave their
threads differently from run to run (a futex wait or not), so two of
their runs cannot be compared; under private caches with the option on,
they must keep the back-dating oracle and the conservation of the
events, as in private_caches.py.  Forgiven, as in private_caches.py: only the
back-dated events of the loader functions whose AcCost varies between
identical runs (compare.KNOWN_NOISY_FNS), with one more pair of runs
when a pair fails on that noise alone.  Configurations the option
does not apply to (write-back) must be unchanged all the more; one such
run checks it.
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "lib"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import checks           # noqa: E402
import harness          # noqa: E402
import private_caches   # noqa: E402  (same_profiles_problems, GEOM)

SINGLE_THREADED = harness.EXACT_CLIENTS + [
    "atomics", "clreq", "marker", "missclass_switch", "transpose_naive"]
OPTION_SETS = {
    "sim": ["--cache-sim=yes"],
    "cacheuse": ["--cacheuse=yes", "--backdate-check=yes"],
    "private": ["--cacheuse=yes", "--private-caches=yes"],
}


def case(client, label, extra):
    name = "inline/%s/%s" % (label, client)

    def run():
        tag = "inline-%s-%s" % (label, client)
        return [(name, private_caches.same_profiles_problems(
            client, tag, private_caches.GEOM + extra,
            ["--inline-hits=no"], ["--inline-hits=yes"], new=[]))]
    return run


def threaded_case(client):
    name = "inline/threads/" + client

    def run():
        opts = private_caches.GEOM + private_caches.PRIVATE + [
            "--cacheuse=yes", "--backdate-check=yes", "--inline-hits=yes"]
        r = harness.run_tool(harness.OURS, client, opts, "inline-" + client)
        probs = harness.run_problems(r)
        if probs:
            return [(name, probs)]
        return [(name + "/oracle", checks.backdate_arc_problems(r.out)),
                checks.conservation_result(name + "/conservation", r,
                                           private_caches.NEW, where_ir_holds=True)]
    return run


def main():
    cases = []
    for label, extra in OPTION_SETS.items():
        for c in SINGLE_THREADED:
            cases.append(("inline/%s/%s" % (label, c), case(c, label, extra)))
    for c in ("threads", "zero_threads"):
        cases.append(("inline/threads/" + c, threaded_case(c)))
    cases.append(("inline/wb/cacheuse", case("cacheuse", "wb", ["--simulate-wb=yes"])))
    return harness.run_cases(cases)


if __name__ == "__main__":
    harness.main_guard(main)
