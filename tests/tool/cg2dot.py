#!/usr/bin/env python3
"""tools/cg2dot.py on a real profile (the calls client, --cache-sim=yes
--cacheuse=yes): every call arc above the threshold becomes an edge whose
label is the arc's inclusive cost as the test suite's parser reads it;
main's node shows the inclusive cost of the arc calling it; an unknown
event is refused with exit 1; and, if Graphviz is installed, `dot
-Tsvg` accepts the output."""

import os
import re
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "lib"))
from cgbd import cgfile        # noqa: E402
import harness       # noqa: E402

CG2DOT = os.path.join(harness.TOP, "tools", "cg2dot.py")
EDGE_RE = re.compile(r'^\s*"([^"]*) \[[^"]*\]" -> "([^"]*) \[[^"]*\]" '
                     r'\[label="(\d+)\\n(\d+)x"')
NODE_RE = re.compile(r'^\s*"main \[[^"]*\]" \[label="[^"]*\\nincl (\d+) ')


def cg2dot(*args):
    return subprocess.run([sys.executable, CG2DOT] + list(args),
                          capture_output=True, text=True)


def edge_problems(dot_text, merged, event):
    """Edges summed over objects (cg2dot keeps "fstat [ld.so]" and
    "fstat [libc.so.6]" apart, cgfile merges them) equal the arcs."""
    sums, edges = {}, 0
    for line in dot_text.splitlines():
        m = EDGE_RE.match(line)
        if not m:
            continue
        edges += 1
        key = (m.group(1), m.group(2))
        cost, calls = sums.get(key, (0, 0))
        sums[key] = (cost + int(m.group(3)), calls + int(m.group(4)))
    problems = [] if edges >= 3 else ["only %d edges" % edges]
    for (caller, callee), (cost, calls) in sorted(sums.items()):
        arc = merged.arcs.get((caller, callee))
        if arc is None:
            problems.append("edge %s -> %s is no arc" % (caller, callee))
        elif (arc.inclusive.get(event, 0), arc.calls) != (cost, calls):
            problems.append("edge %s -> %s: %d, %dx; profile %d, %dx"
                            % (caller, callee, cost, calls,
                               arc.inclusive.get(event, 0), arc.calls))
    return problems


def main_node_problems(dot_text, merged, event):
    into_main = sum(a.inclusive.get(event, 0)
                    for (c, f), a in merged.arcs.items() if f == "main")
    for line in dot_text.splitlines():
        m = NODE_RE.match(line)
        if m:
            return ([] if int(m.group(1)) == into_main else
                    ["main incl %s, arcs into main %d"
                     % (m.group(1), into_main)])
    return ["no node for main"]


def run():
    ours = harness.run_tool(harness.OURS, "calls",
                            ["--cache-sim=yes", "--cacheuse=yes"], "cg2dot")
    probs = harness.run_problems(ours)
    if probs:
        return [("tools/cg2dot", probs)]
    merged = cgfile.parse(ours.out).merged()
    results = []
    for event in ("Ir", "SpLoss1"):
        r = cg2dot("--event=" + event, "--threshold=0", ours.out)
        if r.returncode != 0:
            results.append(("tools/cg2dot/" + event,
                            ["exit %d: %s" % (r.returncode, r.stderr)]))
            continue
        p = edge_problems(r.stdout, merged, event)
        p += main_node_problems(r.stdout, merged, event)
        if shutil.which("dot"):
            d = subprocess.run(["dot", "-Tsvg"], input=r.stdout,
                               capture_output=True, text=True)
            if d.returncode != 0 or "<svg" not in d.stdout:
                p.append("dot -Tsvg failed: %s" % d.stderr.strip())
        results.append(("tools/cg2dot/" + event, p))
    bad = cg2dot("--event=NoSuchEvent", ours.out)
    results.append(("tools/cg2dot/unknown-event",
                    [] if bad.returncode == 1 and "NoSuchEvent" in bad.stderr
                    and not bad.stdout else
                    ["exit %d, stderr %r" % (bad.returncode, bad.stderr)]))
    return results


if __name__ == "__main__":
    harness.main_guard(lambda: harness.run_cases([("tools/cg2dot", run)]))
