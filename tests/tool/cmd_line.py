#!/usr/bin/env python3
"""The cmd: header line with arguments holding a newline, a backslash, a
tab and a carriage return (e.g. `python3 -c SCRIPT`): it must stay one
line, written exactly as the reference writes it (newline as \\n,
backslash as \\\\), and the profile must parse and pass
callgrind_annotate."""

import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "lib"))
import annotate_check   # noqa: E402
from cgbd import cgfile           # noqa: E402
import harness          # noqa: E402

ARGS = ["x\\y\tt", "c\rr", "first line\nsecond line", "plain"]


def cmd_line(tool, outdir):
    out = os.path.join(outdir, tool + ".out")
    env = dict(os.environ, VALGRIND_LIB=harness.vglib())
    proc = subprocess.run(["valgrind", "--tool=" + tool,
                           "--callgrind-out-file=" + out, "/bin/echo"] + ARGS,
                          env=env, capture_output=True,
                          timeout=harness.RUN_TIMEOUT)
    if proc.returncode != 0:
        raise RuntimeError("%s exited %d" % (tool, proc.returncode))
    with open(out, "rb") as fh:
        lines = [l for l in fh.read().split(b"\n") if l.startswith(b"cmd:")]
    return out, lines


def run():
    outdir = os.path.join(harness.OUT, "cmd-line")
    os.makedirs(outdir, exist_ok=True)
    ours, ours_lines = cmd_line(harness.OURS, outdir)
    _, ref_lines = cmd_line(harness.REF, outdir)
    problems = []
    if len(ours_lines) != 1 or ours_lines != ref_lines:
        problems.append("cmd: lines %r, reference %r"
                        % (ours_lines, ref_lines))
    try:
        cgfile.parse(ours)
    except cgfile.FormatError as e:
        problems.append(str(e))
    problems += annotate_check.check_annotate(ours)
    return [("cmd-line/escaped", problems)]


if __name__ == "__main__":
    harness.main_guard(lambda: harness.run_cases([("cmd-line", run)]))
