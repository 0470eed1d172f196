"""The checks a tool test applies to a pair of runs, as (name, problems)
results for harness.run_cases."""

import os

import annotate_check
from cgbd import cgfile
import profiles
import compare
import conservation
import exit_summary
import harness


# Extra reference runs made to measure its run-to-run noise.
NOISE_RUNS = 3


def compare_check(name, ours, ref, expect_rc=0, rerun_ref=None,
                  summary=True, **opts):
    """Exact (or as configured) comparison of ours against the reference:
    the profiles, and (summary) the exit summaries on stderr.

    Differences only in back-dated self costs of functions the reference
    itself varies in are forgiven (compare.split_noise); when others
    remain, rerun_ref(i) reruns the reference identically (returning a
    Run) NOISE_RUNS times to find further functions that vary."""
    problems = (harness.run_problems(ours, expect_rc)
                + harness.run_problems(ref, expect_rc))
    if problems:
        return (name, problems)
    options = compare.Options(**opts)
    ref_profile = profiles.parse(ref.out)
    ours_profile = profiles.parse(ours.out)
    mism = compare.compare_profiles(ours_profile, ref_profile, options)
    mism, forgiven = compare.split_noise_profiles(mism, ref_profile, [],
                                                  options)
    if mism and rerun_ref and compare.only_backdated(mism):
        reruns = [rerun_ref(i) for i in range(1, NOISE_RUNS + 1)]
        noise = [profiles.parse(r.out) for r in reruns if os.path.exists(r.out)]
        mism = compare.compare_profiles(ours_profile, ref_profile, options)
        mism, forgiven = compare.split_noise_profiles(mism, ref_profile,
                                                      noise, options)
    problems = compare.describe(mism) if mism else []
    if summary:
        problems += exit_summary.summary_problems(
            ours.stderr, ref.stderr,
            (ours_profile.merged().totals or {},
             ref_profile.merged().totals or {}))
    if problems:
        return (name, problems)
    if forgiven:
        return (name, [], "%d differences within the reference's own "
                "noise, e.g. %s" % (len(forgiven), forgiven[0]))
    return (name, [])


def annotate_result(name, run):
    """callgrind_annotate reads our profile(s) cleanly."""
    files = run.files()
    if not files:
        return (name, ["%s wrote no profile" % run.tool])
    problems = []
    for f in files:
        problems += ["%s: %s" % (os.path.basename(f), p)
                     for p in annotate_check.check_annotate(f)]
    return (name, problems)


def conservation_result(name, run, events=None, where_ir_holds=False):
    """DESIGN.md §5: inclusive in = self + inclusive out, off cycles."""
    if not os.path.exists(run.out):
        return (name, ["%s wrote no %s" % (run.tool, run.out)])
    return (name, conservation.check_conservation(
        run.out, events, where_ir_holds=where_ir_holds))


def ends_with_totals(path):
    """The file's last non-empty line is a totals: line."""
    with open(path, encoding="utf-8", errors="replace") as fh:
        lines = [l for l in fh.read().splitlines() if l.strip()]
    return bool(lines) and lines[-1].startswith("totals:")


def trigger(path):
    """What the file's first `desc: Trigger:` line says (None: no such
    line or no such file)."""
    if not os.path.exists(path):
        return None
    with open(path, errors="replace") as f:
        for line in f:
            if line.startswith("desc: Trigger:"):
                return line.split(":", 2)[2].strip()
    return None


def parses(path):
    try:
        profiles.parse(path)
        return []
    except cgfile.FormatError as e:
        return [str(e)]


# The back-dating oracle's pairs: lines counted at load time (immediate)
# and at eviction (through the tree), with --backdate-check=yes.
# (With --L2 also the L2's pair; absent events count 0 on both sides.)
BACKDATE_PAIRS = (("L1ld", "L1ldB"), ("L2ld", "L2ldB"), ("LLld", "LLldB"))


def backdate_arc_problems(path):
    """DESIGN.md section 5: every arc has the same inclusive cost for the
    immediate and the back-dated count, and so have the totals. Over all
    parts: a line counted at load in one dump is counted at eviction in
    the same or a later one."""
    problems = []
    merged = profiles.parse(path).merged()
    for (caller, callee), arc in sorted(merged.arcs.items()):
        for imm, bd in BACKDATE_PAIRS:
            a, b = arc.inclusive.get(imm, 0), arc.inclusive.get(bd, 0)
            if a != b:
                problems.append("arc %s -> %s: %s %d != %s %d"
                                % (caller, callee, imm, a, bd, b))
    tot = merged.totals or {}
    for imm, bd in BACKDATE_PAIRS:
        if tot.get(imm, 0) != tot.get(bd, 0):
            problems.append("totals: %s %d != %s %d"
                            % (imm, tot.get(imm, 0), bd, tot.get(bd, 0)))
    if tot.get("L1ld", 0) == 0:
        problems.append("no lines counted: the oracle would pass vacuously")
    return problems


def refusal_problems(run, opt):
    """Problems with a run that must have refused the option `opt` (the
    last one given) before the client ran: a non-zero exit, an error that
    names the option, no profile."""
    problems = []
    if run.returncode == 0:
        problems.append("%s: exit status 0" % opt)
    if opt.split("=")[0] not in run.stderr:
        problems.append("%s: error does not name the option: %r"
                        % (opt, run.stderr.strip()[-200:]))
    if os.path.exists(run.out):
        problems.append("%s: the client ran (profile written)" % opt)
    return problems
