#!/usr/bin/env python3
"""callgrind-bd_merge on real profiles (serial; tests/tool/mpi.py runs MPI
programs and the MPI mode).

- repeated runs (calls, cache-use with the back-dating oracle's events):
  --stat=sum equals the sum of the inputs function by function, arc by
  arc, totals and summary; the merge keeps conservation of inclusive
  costs and the oracle (immediate = back-dated per arc); callgrind_annotate
  reads it cleanly;
- threads of --separate-threads=yes (threads client): sum as above;
  max/min/mean/imbalance per function and arc of the program equal the
  statistic over the worker threads' files, derived from the inputs;
- dumps: separate part files (--dump-every-bb) give OUT.1, OUT.2 ... and
  OUT, each the sum of its part; --combine-dumps files give one file with
  the parts, each the sum of its part;
- errors: profiles cut short (at several byte and line offsets, inside a
  later part of a --combine-dumps file) or with a cost changed: refused,
  naming the file (and part); different programs, different events, a malformed file, a
  missing file, a bad option: one line on stderr, exit 1, no output file
  and no temporary file left."""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "lib"))
import annotate_check   # noqa: E402
from cgbd import cgfile  # noqa: E402
import checks           # noqa: E402
import conservation     # noqa: E402
import harness          # noqa: E402
import mergecheck       # noqa: E402

CACHE = mergecheck.CACHE_OPTS


def run(client, opts, tag):
    r = harness.run_tool(harness.OURS, client, opts, tag)
    problems = harness.run_problems(r)
    if problems:
        raise RuntimeError("%s: %s" % (tag, problems[0]))
    return r


def merged_checks(name, out, inputs, oracle=True):
    """sum = inputs, conservation where Ir holds, oracle, annotate."""
    merged = cgfile.parse(out)
    parts = [cgfile.parse(p).parts[0] for p in inputs]
    results = [(name, mergecheck.sum_problems(merged.parts[0], parts)),
               (name + "/conservation", conservation.check_conservation(
                   out, [e for e in mergecheck.BD_EVENTS if e in parts[0].events],
                   where_ir_holds=True)),
               (name + "/annotate", annotate_check.check_annotate(out))]
    if oracle:
        results.append((name + "/oracle", checks.backdate_arc_problems(out)))
    return results


def two_runs_merged(opts, tag):
    """calls run twice with opts, all files of both merged into merged*."""
    a = run("calls", opts, tag + "-a")
    b = run("calls", opts, tag + "-b")
    out = os.path.join(os.path.dirname(a.out), "merged")
    return a, b, mergecheck.merge_to(out, a.files() + b.files())


def case_runs():
    a, b, out = two_runs_merged(CACHE, "merge-run")
    return merged_checks("merge/runs", out, [a.out, b.out])


def case_threads():
    t = run("threads", CACHE + ["--separate-threads=yes"], "merge-threads")
    # (and an empty file under the plain name, as the reference writes)
    files = [f for f in t.files() if os.path.getsize(f) > 0]
    results = []
    if len(files) < 3:
        return [("merge/threads", ["%d thread files" % len(files)])]
    for stat in mergecheck.STATS_CHECKED:
        # statistics over the workers (-02 ...: worker() and spin() with
        # different counts in each; the main thread's file has neither)
        inputs = files if stat == "sum" else files[1:]
        out = mergecheck.merge_to(os.path.join(os.path.dirname(t.out),
                                               "merged." + stat), inputs, stat)
        name = "merge/threads/" + stat
        if stat == "sum":
            results += merged_checks(name, out, files)
        else:
            results.append((name, mergecheck.stat_problems(
                stat, out, inputs, "/threads", ["Ir", "Dr", "AcCost1",
                                               "SpLoss1"])))
            results.append((name + "/annotate",
                            annotate_check.check_annotate(out)))
    return results


def parts_of(files):
    """part number -> model Part, over files."""
    parts = {}
    for f in files:
        for p in cgfile.parse(f).parts:
            parts.setdefault(int(p.info.get("part", p.number)), []).append(p)
    return parts


def case_dumps():
    a, b, out = two_runs_merged(["--dump-every-bb=10000"], "merge-dumps")
    want = parts_of(a.files() + b.files())
    problems = []
    if len(want) < 3:
        problems.append("only %d parts: no dumps" % len(want))
    last = max(want)
    for number, parts in sorted(want.items()):
        name = out if number == last else "%s.%d" % (out, number)
        if not os.path.exists(name):
            problems.append("part %d: no %s" % (number, name))
            continue
        got = cgfile.parse(name).parts
        if len(got) != 1 or int(got[0].info.get("part", 0)) != number:
            problems.append("%s: not exactly part %d" % (name, number))
            continue
        problems += ["part %d: %s" % (number, p)
                     for p in mergecheck.sum_problems(got[0], parts)]
    return [("merge/dumps", problems)]


def case_combined():
    a, b, out = two_runs_merged(["--dump-every-bb=10000",
                                 "--combine-dumps=yes"], "merge-comb")
    want = parts_of([a.out, b.out])
    got = cgfile.parse(out).parts
    problems = []
    if len(got) != len(want) or len(got) < 3:
        problems.append("%d parts merged, inputs have %d" % (len(got), len(want)))
    for part in got:
        problems += ["part %s: %s" % (part.info.get("part"), p) for p in
                     mergecheck.sum_problems(part, want.get(
                         int(part.info.get("part", 0)), []))]
    return [("merge/combined", problems)]


def error_problems(args, cwd, expect_in_message, out):
    r = mergecheck.run_merge(args + ["-o", out], cwd=cwd)
    lines = r.stderr.strip().splitlines()
    problems = []
    if r.returncode != 1:
        problems.append("exit %d, expected 1" % r.returncode)
    if len(lines) != 1 or not lines[0].startswith("callgrind-bd_merge: ") \
            or expect_in_message not in lines[0]:
        problems.append("stderr %r: not one line naming %r"
                        % (r.stderr, expect_in_message))
    left = [f for f in os.listdir(cwd) if f.startswith(os.path.basename(out))]
    if left:
        problems.append("output left behind: %s" % left)
    return problems


def truncations(path):
    """(name, bytes) of profiles cut short or damaged, from a whole one:
    cut at a quarter, half and nine tenths of its bytes (mid-line), one
    inside the last number (`totals:`'s), before its last line, after 10
    lines (inside the header), and one cost line's last cost raised by
    one."""
    with open(path, "rb") as fh:
        data = fh.read()
    lines = data.splitlines(True)
    cuts = [("cut-%d-of-%d.out" % (k, n), data[:len(data) * k // n])
            for k, n in ((1, 4), (1, 2), (9, 10))]
    cuts.append(("cut-in-totals.out", data[:-2]))
    cuts.append(("cut-before-totals.out", b"".join(lines[:-1])))
    cuts.append(("head-10.out", b"".join(lines[:10])))
    for i, line in enumerate(lines):
        words = line.split()
        if len(words) >= 2 and words[0][:1].isdigit() and i > 0 \
                and not lines[i - 1].startswith(b"calls="):
            words[-1] = b"%d" % (int(words[-1]) + 1)    # a cost, whatever the positions
            damaged = lines[:i] + [b" ".join(words) + b"\n"] + lines[i + 1:]
            cuts.append(("damaged-cost.out", b"".join(damaged)))
            break
    return cuts


def case_errors():
    a = run("calls", CACHE, "merge-err-a")
    plain = run("calls", [], "merge-err-plain")
    other = run("recursion", CACHE, "merge-err-other")
    d = os.path.dirname(a.out)
    bad = os.path.join(d, "malformed.out")
    with open(a.out) as fh, open(bad, "w") as out:
        lines = fh.read().splitlines(True)
        out.writelines(lines[:40] + ["fn=(999)\n"] + lines[40:])
    cases = {}
    for name, data in truncations(a.out):
        path = os.path.join(d, name)
        with open(path, "wb") as fh:
            fh.write(data)
        cases[name] = ([a.out, path], name)
    dumps = run("calls", CACHE + ["--dump-every-bb=2000", "--combine-dumps=yes"],
                "merge-err-dumps")
    with open(dumps.out, "rb") as fh:
        whole = fh.read()
    second, third = whole.index(b"\npart: 2\n"), whole.index(b"\npart: 3\n")
    middle = whole.index(b"\n", (second + third) // 2) + 1    # a whole line
    cut = os.path.join(d, "cut-in-part-2.out")
    with open(cut, "wb") as fh:
        fh.write(whole[:middle])
    cases["cut-in-part-2"] = ([dumps.out, cut], "cut-in-part-2.out, part 2")
    out = os.path.join(d, "never")
    cases.update({
        "programs": ([a.out, other.out], "different programs"),
        "events": ([a.out, plain.out], "events"),
        "malformed": ([a.out, bad], "malformed.out:41"),
        "missing": ([a.out, os.path.join(d, "nonexistent")], "nonexistent"),
        "option": (["--stat=median", a.out], "--stat=median"),
        "no-files": ([], "no input files"),
    })
    return [("merge/error/" + n, error_problems(args, d, msg, out))
            for n, (args, msg) in sorted(cases.items())]


def main():
    return harness.run_cases([
        ("merge/runs", case_runs),
        ("merge/threads", case_threads),
        ("merge/dumps", case_dumps),
        ("merge/combined", case_combined),
        ("merge/error", case_errors),
    ])


if __name__ == "__main__":
    harness.main_guard(main)
