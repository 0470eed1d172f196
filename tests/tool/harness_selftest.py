#!/usr/bin/env python3
"""Tests of the harness itself, with the reference Callgrind only (no
need for our tool): the parser gives the same model whatever the output
options, and every check notices a deliberately broken profile."""

import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "lib"))
os.environ["CGBD_SELFTEST"] = "1"   # only the reference is run here
import annotate_check  # noqa: E402
from cgbd import cgfile          # noqa: E402
import compare         # noqa: E402
import conservation    # noqa: E402
import harness         # noqa: E402

REF = harness.REF


def same_model(a, b, what):
    """Problems if two profiles' models differ (Ir, exact)."""
    mism = compare.compare_profiles(a, b, compare.Options(events=["Ir"]))
    return ["%s: %s" % (what, m) for m in mism[:5]]


def output_options_case():
    """Compression, instruction positions and jump lines change the text,
    never the model."""
    plain = harness.run_tool(REF, "calls", ["--compress-strings=no",
                                            "--compress-pos=no"], "st-plain")
    problems = harness.run_problems(plain)
    for opts, tag in ((["--dump-instr=yes"], "st-instr"),
                      (["--dump-instr=yes", "--dump-line=no"], "st-noline"),
                      (["--collect-jumps=yes", "--dump-instr=yes"], "st-jumps")):
        r = harness.run_tool(REF, "calls", opts, tag)
        problems += harness.run_problems(r) or same_model(
            cgfile.parse(r.out), cgfile.parse(plain.out), " ".join(opts))
    return [("selftest/output-options", problems)]


def parts_case():
    """--combine-dumps: the parts of one file equal the separate dump
    files, and name ids carry over between parts."""
    opts = ["--dump-every-bb=20000"]
    sep = harness.run_tool(REF, "calls", opts, "st-separate")
    comb = harness.run_tool(REF, "calls", opts + ["--combine-dumps=yes"],
                            "st-combined")
    problems = harness.run_problems(sep) + harness.run_problems(comb)
    if problems:
        return [("selftest/parts", problems)]
    files = sorted(sep.files(), key=lambda f: (len(f), f))
    parts = cgfile.parse(comb.out).parts
    if len(files) < 2 or len(parts) != len(files):
        return [("selftest/parts",
                 ["%d files, %d parts" % (len(files), len(parts))])]
    for i, (f, p) in enumerate(zip(files[1:] + files[:1], parts)):
        single = cgfile.parse(f)
        whole = cgfile.Profile(comb.out)
        whole.parts = [p]
        problems += same_model(whole, single, "part %d vs %s" % (i + 1, f))
    return [("selftest/parts", problems)]


def mutate(src, dst, pattern, repl, count=1):
    """Copy src to dst replacing the first match of a regex (per line)."""
    done = 0
    with open(src) as fi, open(dst, "w") as fo:
        for line in fi:
            if done < count and re.search(pattern, line):
                line = re.sub(pattern, repl, line, count=1)
                done += 1
            fo.write(line)
    if not done:
        raise RuntimeError("mutation %r matched nothing" % pattern)


def _bump_after(src, dst, anchor, nth_line, delta):
    """Add delta to the Ir of the nth line after the first line matching
    anchor (e.g. the inclusive cost line following a calls= line). The
    profile has one position column (positions: line), so Ir is the
    second token."""
    lines = open(src).read().split("\n")
    for i, l in enumerate(lines):
        if re.search(anchor, l):
            toks = lines[i + nth_line].split()
            toks[1] = str(int(toks[1]) + delta)
            lines[i + nth_line] = " ".join(toks)
            break
    else:
        raise RuntimeError("anchor %r not found" % anchor)
    with open(dst, "w") as fo:
        fo.write("\n".join(lines))


def mutations_case():
    """Each deliberate change of a reference profile must be reported by
    compare.py (and, where relevant, the other checks)."""
    r = harness.run_tool(REF, "calls", ["--compress-strings=no"], "st-mutate")
    problems = harness.run_problems(r)
    if problems:
        return [("selftest/mutations", problems)]
    d = os.path.dirname(r.out)
    ref = r.out
    opts = compare.Options(events=["Ir"])
    if compare.compare_files(ref, ref, opts):
        problems.append("a profile differs from itself")
    cases = {
        "self cost": lambda p: _bump_after(ref, p, r"^fn=leaf_b$", 1, 1),
        "call count": lambda p: mutate(ref, p, r"^calls=50 ", "calls=49 "),
        "inclusive cost": lambda p: _bump_after(ref, p, r"^calls=50 ", 1, 7),
        "missing function": lambda p: mutate(ref, p, r"^fn=square$",
                                             "fn=square_renamed"),
        "totals": lambda p: mutate(ref, p, r"^totals: (\d+)",
                                   lambda m: "totals: %d" % (int(m.group(1)) + 1)),
    }
    for what, make in cases.items():
        path = os.path.join(d, "mutant.out")
        make(path)
        if not compare.compare_files(path, ref, opts):
            problems.append("compare.py missed a changed %s" % what)
    # Conservation: more inclusive cost on main -> middle than middle has.
    path = os.path.join(d, "mutant.out")
    _bump_after(ref, path, r"^calls=50 ", 1, 7)
    if not conservation.check_conservation(path, ["Ir"]):
        problems.append("conservation.py missed a changed inclusive cost")
    if conservation.check_conservation(ref, ["Ir"]):
        problems.append("conservation.py rejects the reference profile")
    # Annotate: a malformed body line.
    mutate(ref, path, r"^(fn=leaf_b)$", "\\1\nnot a cost line")
    if not annotate_check.check_annotate(path):
        problems.append("annotate_check.py missed a malformed line")
    if annotate_check.check_annotate(ref):
        problems.append("annotate_check.py rejects the reference profile")
    return [("selftest/mutations", problems)]


def noise_case():
    """Known reference noise (strcspn's AcCost) is forgiven, the same
    change on another function is not."""
    r = harness.run_tool(REF, "calls", ["--cache-sim=yes", "--cacheuse=yes",
                                        "--compress-strings=no"], "st-noise")
    problems = harness.run_problems(r)
    if problems:
        return [("selftest/noise", problems)]
    d = os.path.dirname(r.out)
    opts = compare.Options()
    ref = cgfile.parse(r.out)
    events = ref.parts[0].events
    k = events.index("AcCost1")

    def bump(fn, delta):
        """Copy with fn's first AcCost1 cost and the totals raised."""
        path = os.path.join(d, "noise-%s.out" % fn)
        lines = open(r.out).read().split("\n")
        in_fn = bumped = False
        npos = len(ref.parts[0].positions)
        for i, l in enumerate(lines):
            if l.startswith("fn="):
                in_fn = l == "fn=" + fn
            elif in_fn and not bumped and l and l[0] in "0123456789+-*":
                toks = l.split()
                if len(toks) > npos + k and int(toks[npos + k]) > 0:
                    toks[npos + k] = str(int(toks[npos + k]) + delta)
                    lines[i] = " ".join(toks)
                    bumped = True
            elif l.startswith("totals:"):
                toks = l.split()
                toks[1 + k] = str(int(toks[1 + k]) + delta)
                lines[i] = " ".join(toks)
        if not bumped:
            raise RuntimeError("no AcCost1 cost in %s" % fn)
        open(path, "w").write("\n".join(lines))
        return path

    if compare.compare_files(bump("strcspn", 3), r.out, opts):
        problems.append("noise in strcspn AcCost1 (+3) not forgiven")
    # beyond the known noise's bound (compare.KNOWN_NOISE_FRACTION of the
    # function's largest back-dated value), twice over
    own = ref.parts[0].fns["strcspn"].self_cost
    scale = max(own.get(e, 0) for e in compare.backdated_events(events))
    large = int(2 * compare.KNOWN_NOISE_FRACTION * scale) + compare.KNOWN_NOISE_FLOOR + 1
    if not compare.compare_files(bump("strcspn", large), r.out, opts):
        problems.append("a large strcspn difference (+%d) was forgiven" % large)
    if not compare.compare_files(bump("main", 3), r.out, opts):
        problems.append("a difference in main's AcCost1 was forgiven")
    # The reference's summary: lacks AcCost/SpLoss, which makes
    # callgrind_annotate print Perl warnings on stderr.
    if not annotate_check.check_annotate(r.out):
        problems.append("annotate_check.py missed callgrind_annotate's "
                        "warnings on a summary: without AcCost")
    return [("selftest/noise", problems)]


def main():
    return harness.run_cases([
        ("selftest/output-options", output_options_case),
        ("selftest/parts", parts_case),
        ("selftest/mutations", mutations_case),
        ("selftest/noise", noise_case),
    ])


if __name__ == "__main__":
    harness.main_guard(main)
