#!/usr/bin/env python3
"""A process that replaces itself with execve keeps the profile of what
ran before: it is dumped as a part (`desc: Trigger: execve <path>`) just
before the exec, because Valgrind runs no exit code of the tool then
(docs/manual.md, "Faults and write errors"). exec.c calls before_exec()
once, tries an exec of a missing file (must not dump: it cannot succeed),
then execs itself to call after_exec() twice.

  - without --trace-children: exactly one part, holding before_exec and
    not after_exec, with the trigger, and no empty plain file beside it;
    the client's output is complete;
  - with --trace-children=yes: that part, and the new program's own
    profile (after_exec called twice, no before_exec) in the plain file;
  - with --trace-children=yes --sharing=yes: the false sharing reports
    of the run before the exec beside its part (`<part>.sharing`,
    `.sharing.txt`, their command the one before the exec, the trigger
    the part's: execve <path>), the new
    program's under the plain name (before: both went to the plain name,
    the new program's overwrote the first);
  - the reference Callgrind, for contrast, writes nothing before the exec
    (its plain file stays empty): checked so that this test notices if
    it ever stops being a difference.
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "lib"))
from cgbd import cgfile    # noqa: E402
import checks    # noqa: E402
import harness   # noqa: E402


def calls_to(path, fn):
    part = cgfile.parse(path).merged()
    return sum(a.calls for (_, callee), a in part.arcs.items()
               if callee == fn)


def check_before_part(run):
    part1 = run.out + ".1"
    if not os.path.exists(part1):
        return ["no part written before the exec (%s)"
                % sorted(os.path.basename(f) for f in run.files())]
    problems = checks.parses(part1)
    if problems:
        return problems
    if os.path.exists(run.out + ".2"):
        problems.append("a second part: the failing exec dumped too")
    t = checks.trigger(part1)
    if not t or not t.startswith("execve ") or not t.endswith("exec"):
        problems.append("trigger %r, expected 'execve <path of exec>'" % t)
    if calls_to(part1, "before_exec") != 1:
        problems.append("before_exec called %d times in the part, expected 1"
                        % calls_to(part1, "before_exec"))
    if calls_to(part1, "after_exec") != 0:
        problems.append("after_exec in the part before the exec")
    return problems


def plain_case():
    run = harness.run_tool(harness.OURS, "exec", [], "exec-plain")
    # The plain file, made empty at start, is removed: the profile is the
    # part written before the exec.
    problems = [p for p in harness.run_problems(run, expect_rc=0)
                if "wrote no" not in p]
    if os.path.exists(run.out):
        problems.append("the empty plain file was left beside the part")
    problems += check_before_part(run)
    if "before " not in run.stdout:
        problems.append("client output lost: %r" % run.stdout)
    results = [("exec/plain", problems)]
    if not problems:
        results.append(checks.annotate_result("exec/plain/annotate", run))
    return results


def children_case():
    run = harness.run_tool(harness.OURS, "exec", ["--trace-children=yes"],
                           "exec-children")
    problems = harness.run_problems(run, expect_rc=0)
    problems += check_before_part(run)
    if not problems:
        problems += checks.parses(run.out)
    if not problems:
        if calls_to(run.out, "after_exec") != 2:
            problems.append("after_exec called %d times in the new program's"
                            " profile, expected 2"
                            % calls_to(run.out, "after_exec"))
        if calls_to(run.out, "before_exec") != 0:
            problems.append("before_exec in the new program's profile")
    if "after " not in run.stdout:
        problems.append("the exec'd program did not run: %r"
                        % run.stdout)
    return [("exec/trace-children", problems)]


def command_of(path):
    """The command line a file names (`cmd:` or `Command:`), or None."""
    if not os.path.exists(path):
        return None
    with open(path, errors="replace") as f:
        for line in f:
            if line.startswith(("cmd:", "Command:")):
                return line.split(":", 1)[1].strip()
    return None


def sharing_children_case():
    run = harness.run_tool(harness.OURS, "exec",
                           ["--trace-children=yes", "--sharing=yes"],
                           "exec-children-sharing")
    problems = harness.run_problems(run, expect_rc=0)
    for suffix in (".sharing", ".sharing.txt"):
        before = command_of(run.out + ".1" + suffix)
        after = command_of(run.out + suffix)
        if before is None or before.endswith("after"):
            problems.append("%s: command %r, expected the run before the exec"
                            % (os.path.basename(run.out + ".1" + suffix), before))
        if after is None or not after.endswith("after"):
            problems.append("%s: command %r, expected the exec'd program"
                            % (os.path.basename(run.out + suffix), after))
    if not problems:
        problems += checks.parses(run.out + ".1.sharing")
    got, want = checks.trigger(run.out + ".1.sharing"), checks.trigger(run.out + ".1")
    if not problems and got != want:
        problems.append("the part's .sharing trigger %r, the part's %r" % (got, want))
    return [("exec/trace-children/sharing", problems)]


def reference_case():
    run = harness.run_tool(harness.REF, "exec", [], "exec-ref")
    written = [f for f in run.files() if os.path.getsize(f) > 0]
    if written:
        return [("exec/reference-loses-it",
                 ["the reference now writes %s: update docs/differences.md"
                  % [os.path.basename(f) for f in written]])]
    return [("exec/reference-loses-it", [])]


def main():
    return harness.run_cases([("exec-plain", plain_case),
                              ("exec-children", children_case),
                              ("exec-children-sharing", sharing_children_case),
                              ("exec-ref", reference_case)])


if __name__ == "__main__":
    harness.main_guard(main)
