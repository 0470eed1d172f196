"""Sum the tool runs' gcov counters and print line coverage per folder.

usage: lines.py TREE RUNS-DIR   (called by coverage.sh)

RUNS-DIR holds the runs' .gcda files, each named <pid>@<its path in the
build with '/' written as '#'> (gcov_dump.c). They are summed with
`gcov-tool merge` into TREE's build, then gcov reads every object of the
tool and of the unit tests; a source line counts as run when any object
ran it, and as counted when any object has code for it."""

import gzip
import json
import os
import shutil
import subprocess
import sys
import tempfile

FOLDERS = ["callgrind", "cachesim", "backdate"]


def by_run(runs, scratch):
    """Each run's files moved into a directory of their own."""
    dirs = {}
    for f in os.listdir(runs):
        pid, name = f.split("@", 1)
        d = dirs.setdefault(pid, os.path.join(scratch, "run-" + pid))
        os.makedirs(d, exist_ok=True)
        shutil.move(os.path.join(runs, f), os.path.join(d, name))
    return sorted(dirs.values())


def merge_runs(runs, scratch):
    """One directory holding the sum of every run's counters."""
    acc = None
    for n, path in enumerate(by_run(runs, scratch)):
        if acc is None:
            acc = os.path.join(scratch, "sum0")
            shutil.copytree(path, acc)
            continue
        out = os.path.join(scratch, "sum%d" % (n + 1))
        subprocess.run(["gcov-tool", "merge", "-o", out, acc, path],
                       check=True, capture_output=True)
        # a file only one side has is not written by merge: keep it
        for side in (acc, path):
            for f in os.listdir(side):
                if not os.path.exists(os.path.join(out, f)):
                    shutil.copy(os.path.join(side, f), out)
        shutil.rmtree(acc)
        acc = out
    return acc


def place(summed):
    """The summed files where gcov looks for them: beside their objects."""
    for f in os.listdir(summed):
        shutil.copy(os.path.join(summed, f), f.replace("#", "/"))


def lines_of(gcno, tree):
    """{(source, line): run?} of one object, from gcov's JSON."""
    out = {}
    d = os.path.dirname(gcno)
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run(["gcov", "-j", "-o", d, gcno], cwd=tmp, check=True,
                       capture_output=True)
        for f in os.listdir(tmp):
            if not f.endswith(".gcov.json.gz"):
                continue
            with gzip.open(os.path.join(tmp, f)) as fh:
                data = json.load(fh)
            for fi in data["files"]:
                src = os.path.normpath(os.path.join(tree, fi["file"]))
                for ln in fi["lines"]:
                    key = (src, ln["line_number"])
                    out[key] = out.get(key, False) or ln["count"] > 0
    return out


def main(tree, runs):
    tree = os.path.abspath(tree)
    with tempfile.TemporaryDirectory() as scratch:
        summed = merge_runs(runs, scratch)
        if summed:
            place(summed)
    lines = {}
    for folder in FOLDERS + [os.path.join("tests", "unit")]:
        for root, _, files in os.walk(os.path.join(tree, folder)):
            for f in files:
                if f.endswith(".gcno"):
                    for key, ran in lines_of(os.path.join(root, f), tree).items():
                        lines[key] = lines.get(key, False) or ran
    for folder in FOLDERS:
        top = os.path.join(tree, folder) + os.sep
        mine = [ran for (src, _), ran in lines.items() if src.startswith(top)]
        print("%-10s %6d/%-6d %5.1f%%" % (folder, sum(mine), len(mine),
              100.0 * sum(mine) / max(1, len(mine))))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
