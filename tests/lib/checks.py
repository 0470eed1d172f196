"""The checks a tool test applies to a pair of runs, as (name, problems)
results for harness.run_cases."""

import os

import annotate_check
import cgfile
import compare
import conservation
import harness


# Extra reference runs made to measure its run-to-run noise.
NOISE_RUNS = 3


def compare_check(name, ours, ref, expect_rc=0, rerun_ref=None, **opts):
    """Exact (or as configured) comparison of ours against the reference.

    rerun_ref(i) reruns the reference identically (returning a Run); when
    the profiles differ only in back-dated events, NOISE_RUNS reruns tell
    the reference's own run-to-run noise from real differences
    (compare.split_noise)."""
    problems = (harness.run_problems(ours, expect_rc)
                + harness.run_problems(ref, expect_rc))
    if problems:
        return (name, problems)
    options = compare.Options(**opts)
    mism = compare.compare_profiles(cgfile.parse(ours.out),
                                    cgfile.parse(ref.out), options)
    problems, notes = compare.describe(mism), []
    if mism and rerun_ref and compare.only_backdated(mism):
        reruns = [rerun_ref(i) for i in range(1, NOISE_RUNS + 1)]
        paths = [r.out for r in reruns if os.path.exists(r.out)]
        problems, notes = compare.compare_files_noted(
            ours.out, ref.out, options, noise_paths=paths)
    if notes and not problems:
        return (name, [], "%d differences within the reference's own "
                "noise, e.g. %s" % (len(notes), notes[0]))
    return (name, problems)


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


def conservation_result(name, run, events=None):
    """DESIGN.md §5: inclusive in = self + inclusive out, off cycles."""
    if not os.path.exists(run.out):
        return (name, ["%s wrote no %s" % (run.tool, run.out)])
    return (name, conservation.check_conservation(run.out, events))


def ends_with_totals(path):
    """The file's last non-empty line is a totals: line."""
    with open(path, encoding="utf-8", errors="replace") as fh:
        lines = [l for l in fh.read().splitlines() if l.strip()]
    return bool(lines) and lines[-1].startswith("totals:")


def parses(path):
    try:
        cgfile.parse(path)
        return []
    except cgfile.FormatError as e:
        return [str(e)]
