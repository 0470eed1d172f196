#!/usr/bin/env python3
"""Write errors of the files beside the profile (docs/robustness.md; the
profile's own: tests/tool/faults.py). Each run has every analysis that
writes a file at the end: --paths, --objects, --sharing (.sharing and
.sharing.txt), --bandwidth, on clients/thread_fault.c (two threads, the
second calls exit(4)).

  blocked/<suffix>   a directory where the file must go: refused before
                     the client runs, one error line naming the file and
                     the reason, exit 1 (each was lost after the whole
                     run but .objects, refused so before)
  too-long           a profile name the file system takes whose
                     companions' names are too long: refused so
  dev-full/<suffix>  the file is a link to /dev/full: one message naming
                     it as incomplete, the client's exit status kept, the
                     other files complete
  tmpfs-full         all files in a 64 KiB tmpfs (root only, else
                     skipped): each file cut short is named, the client's
                     exit status kept
  part-blocked       a directory where a --dump-every-bb part must go
                     (known only when the part comes): one message naming
                     it and the reason, the other parts and the final
                     profile complete, the client's exit status kept
"""

import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "lib"))
import checks            # noqa: E402
import harness           # noqa: E402

CLIENT = "thread_fault"
ANALYSES = ["--paths=yes", "--objects=yes", "--sharing=yes",
            "--bandwidth=yes"]
COMPANIONS = {".paths": "paths file", ".objects": "objects profile",
              ".sharing": "sharing profile",
              ".sharing.txt": "sharing report",
              ".bandwidth": "bandwidth file"}
CLIENT_LINE = "second thread ends the process"
EXIT_STATUS = 4


def run(out, opts=ANALYSES):
    exe = harness.build_client(CLIENT)
    env = dict(os.environ, VALGRIND_LIB=harness.vglib())
    return subprocess.run(["valgrind", "--tool=" + harness.OURS,
                           "--callgrind-out-file=" + out] + opts
                          + [exe, "exit"], env=env, capture_output=True,
                          text=True, timeout=harness.RUN_TIMEOUT)


def error_lines(stderr):
    return [l for l in stderr.splitlines()
            if l.startswith("valgrind: ") and "Use --help" not in l]


def refused_problems(r, name, reason):
    """Refused before the client ran: one error line naming the file."""
    problems = []
    if r.returncode != 1:
        problems.append("exit %d, expected 1" % r.returncode)
    if CLIENT_LINE in r.stdout:
        problems.append("the client ran")
    errs = error_lines(r.stderr)
    if len(errs) != 1 or name not in errs[0] or reason not in errs[0]:
        problems.append("expected one error line naming %s (%s), got %r"
                        % (os.path.basename(name), reason,
                           errs or r.stderr.strip().splitlines()[-2:]))
    return problems


def blocked(suffix):
    def check(tmp):
        out = os.path.join(tmp, "p.out")
        os.mkdir(out + suffix)
        return [("output-errors/blocked/" + suffix,
                 refused_problems(run(out), out + suffix, "is a directory"))]
    return check


def too_long(tmp):
    """A profile name of 250 characters is fine; with .sharing.txt it is
    over the 255 of the usual file systems."""
    out = os.path.join(tmp, "p" * 250)
    r = run(out, ["--sharing=yes"])
    return [("output-errors/too-long",
             refused_problems(r, out + ".sharing.txt", "file name too long"))]


def write_error_lines(stderr):
    return [l for l in stderr.splitlines() if "error writing" in l]


def status_problems(r):
    """A write error keeps the client's exit status."""
    if r.returncode != EXIT_STATUS:
        return ["exit %d, the client's %d" % (r.returncode, EXIT_STATUS)]
    return []


def complete_problems(path):
    if path.endswith((".sharing.txt", ".bandwidth", ".paths")):
        return [] if os.path.getsize(path) > 0 else ["%s is empty" % path]
    problems = checks.parses(path)
    if not checks.ends_with_totals(path):
        problems.append("%s does not end with totals:"
                        % os.path.basename(path))
    return problems


def dev_full(suffix):
    def check(tmp):
        out = os.path.join(tmp, "p.out")
        os.symlink("/dev/full", out + suffix)
        r = run(out)
        problems = status_problems(r)
        msgs = write_error_lines(r.stderr)
        want = "error writing %s '%s': it is incomplete" % (
            COMPANIONS[suffix], out + suffix)
        if len(msgs) != 1 or want not in msgs[0]:
            problems.append("expected one message %r, got %r" % (want, msgs))
        for other in [""] + [s for s in COMPANIONS if s != suffix]:
            problems += complete_problems(out + other)
        return [("output-errors/dev-full/" + suffix, problems)]
    return check


def tmpfs_full(tmp):
    d = os.path.join(tmp, "small")
    os.mkdir(d)
    if os.geteuid() != 0 or subprocess.run(
            ["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", d],
            capture_output=True).returncode != 0:
        return [("output-errors/tmpfs-full", [],
                 "skipped: may not mount a tmpfs")]
    try:
        out = os.path.join(d, "p.out")
        r = run(out)
        problems = status_problems(r)
        msgs = write_error_lines(r.stderr)
        if not msgs:
            problems.append("no write error reported: %r"
                            % r.stderr.strip().splitlines()[-3:])
        for m in msgs:
            if "incomplete" not in m or "'%s" % out not in m:
                problems.append("message names no file: %s" % m)
        # every file not named is complete
        named = [m.split("'")[1] for m in msgs if "'" in m]
        for f in sorted(os.listdir(d)):
            path = os.path.join(d, f)
            if path not in named:
                problems += complete_problems(path)
        return [("output-errors/tmpfs-full", problems,
                 "%d files cut short" % len(msgs))]
    finally:
        subprocess.run(["umount", d])


def part_blocked(tmp):
    out = os.path.join(tmp, "p.out")
    os.mkdir(out + ".2")
    r = run(out, ["--fair-sched=yes", "--dump-every-bb=50000"])
    problems = status_problems(r)
    msgs = [l for l in r.stderr.splitlines() if "callgrind-bd:" in l]
    want = "cannot create profile '%s.2': is a directory" % out
    if len(msgs) != 1 or want not in msgs[0]:
        problems.append("expected one message %r, got %r" % (want, msgs))
    parts = [f for f in sorted(os.listdir(tmp)) if f != "p.out.2"]
    if "p.out" not in parts or "p.out.1" not in parts:
        problems.append("parts written: %s" % parts)
    for f in parts:
        problems += complete_problems(os.path.join(tmp, f))
    return [("output-errors/part-blocked", problems)]


def main():
    with harness.case_dirs("cgbd-output-errors-") as in_own_dir:
        cases = [("output-errors/blocked/" + s, in_own_dir(blocked(s)))
                 for s in COMPANIONS]
        cases.append(("output-errors/too-long", in_own_dir(too_long)))
        cases += [("output-errors/dev-full/" + s, in_own_dir(dev_full(s)))
                  for s in COMPANIONS]
        cases.append(("output-errors/tmpfs-full", in_own_dir(tmpfs_full)))
        cases.append(("output-errors/part-blocked", in_own_dir(part_blocked)))
        return harness.run_cases(cases)


if __name__ == "__main__":
    harness.main_guard(main)
