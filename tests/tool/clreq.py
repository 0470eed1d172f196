#!/usr/bin/env python3
"""Every client request of <valgrind/callgrind.h> (tests/clients/clreq.c:
DUMP_STATS, DUMP_STATS_AT, ZERO_STATS, TOGGLE_COLLECT, STOP/START
_INSTRUMENTATION, and an unknown request code of the family).

Against the reference with the same options: the same dump files, per
file the same self costs, call counts and immediate inclusive costs, the
same Timerange/Trigger lines. Ours alone: the back-dating oracle summed
over all parts holds across the dumps, the zero, the toggles and the
instrumentation switches; the unknown request is warned about once.
"""

import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "lib"))
import checks      # noqa: E402
import dumpcheck   # noqa: E402
import harness     # noqa: E402

GEOM = ["--I1=32768,8,64", "--D1=32768,8,64", "--LL=262144,8,64"]
IMMEDIATE_CACHE = "Ir Dr Dw I1mr D1mr D1mw ILmr DLmr DLmw".split()
# The part clreq.c writes just before its CALLGRIND_ZERO_STATS.
ZERO_AFTER = "Client Request: before zero"


# By design (docs/differences.md): part 4 holds phase_d, run with
# collection off, and phase_e; the reference also counts phase_d's calls
# (phase calls inner 3 times, inner calls touch once), we do not.
EXPECTED = {(".4", "arc phase -> inner calls"): -3,
            (".4", "arc inner -> touch calls"): -3}


def compare_case(label, opts, events=None):
    def run():
        name = "clreq/%s" % label
        ours, ref = harness.run_both("clreq", opts, "clreq-" + label)
        problems = harness.run_problems(ours) + harness.run_problems(ref)
        if problems:
            return [(name, problems)]
        results = [(name, dumpcheck.compare_runs(ours, ref, events,
                                                 expected=EXPECTED))]
        if label == "default":
            warned = dumpcheck.stderr_lines(
                ours, "unknown callgrind client request")
            results.append(("clreq/unknown-request-warned-once",
                            [] if len(warned) == 1 else
                            ["%d warnings: %s" % (len(warned), warned)]))
            results.append(checks.annotate_result(name + "/annotate", ours))
        return results
    return run


def oracle_case(label, extra, conservation=True):
    """The oracle over all parts; extra options add dumps and zeros at
    function entries and exits, inside running calls, and after the
    instrumentation switch (where a return from the emptied stack fakes a
    call that lasts since the last dump or zero). Conservation of the
    back-dated events is not checked then: a line loaded before that dump
    and evicted after it is a self cost of main but on no arc
    (docs/manual.md, "What a dump contains")."""
    def run():
        name = "clreq/%s" % label
        ours = harness.run_tool(harness.OURS, "clreq",
                                ["--cacheuse=yes", "--backdate-check=yes"]
                                + GEOM + extra, "clreq-" + label)
        problems = harness.run_problems(ours)
        if problems:
            return [(name, problems)]
        cons = []
        for f in ours.files():
            r = checks.conservation_result(name, type("R", (), {
                "out": f, "tool": ours.tool})(),
                ["AcCost1", "SpLoss1", "L1ldB"], where_ir_holds=True)
            cons += ["%s: %s" % (os.path.basename(f), p) for p in r[1]]
        if not conservation:
            return [(name, dumpcheck.oracle_problems(ours, ZERO_AFTER))]
        return [(name, dumpcheck.oracle_problems(ours, ZERO_AFTER)),
                (name + "/conservation", cons)]
    return run


def restart_names_case():
    """tests/clients/instr_restart.c with --instr-atstart=no: the function
    running when instrumentation starts is main in every part (the
    reference's main'2, docs/differences.md); with that one name mapped,
    the runs agree as compare_case's do."""
    def run():
        name = "clreq/instr-restart-names"
        ours, ref = harness.run_both("instr_restart", ["--instr-atstart=no"],
                                     "clreq-instr-restart")
        problems = harness.run_problems(ours) + harness.run_problems(ref)
        if problems:
            return [(name, problems)]
        ref_text = "".join(open(f).read() for f in ref.files())
        ours_text = "".join(open(f).read() for f in ours.files())
        if "main'2" not in ref_text:
            problems.append("the reference no longer writes main'2: "
                            "docs/differences.md's row is stale")
        if "'2" in ours_text or not re.search(r"^fn=\(\d+\) main$",
                                              ours_text, re.M):
            problems.append("ours does not name the running function main")
        for f in ref.files():        # the reference with the name mapped
            with open(f) as fh:
                text = fh.read().replace("main'2", "main")
            with open(f, "w") as fh:
                fh.write(text)
        problems += dumpcheck.compare_runs(ours, ref)
        return [(name, problems)]
    return run


def main():
    return harness.run_cases([
        ("clreq/instr-restart-names", restart_names_case()),
        ("clreq/default", compare_case("default", [])),
        ("clreq/cache", compare_case("cache", ["--cache-sim=yes"] + GEOM,
                                     IMMEDIATE_CACHE)),
        ("clreq/cacheuse", compare_case("cacheuse", ["--cacheuse=yes"] + GEOM,
                                        IMMEDIATE_CACHE)),
        ("clreq/oracle", oracle_case("oracle", [])),
        ("clreq/oracle-more-dumps",
         oracle_case("oracle-more-dumps",
                     ["--dump-every-bb=3000", "--dump-before=touch",
                      "--dump-after=inner", "--separate-callers=1"],
                     conservation=False)),
    ])


if __name__ == "__main__":
    harness.main_guard(main)
