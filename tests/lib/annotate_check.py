#!/usr/bin/env python3
"""Check that callgrind_annotate reads a profile cleanly.

usage: annotate_check.py FILE...

For each file, callgrind_annotate runs without and with --inclusive=yes;
each run must exit 0 with nothing on stderr (Perl warnings about
uninitialised values mean a malformed or inconsistent file), and the
PROGRAM TOTALS it prints must equal the file's `summary:` line (what it
reads; `totals:` when there is no summary). Source annotation is off
(--auto=no): the check is about the profile.

Whether summary: and totals: agree is not checked here: the reference's
differ by the block running at exit, which never completes.
"""

import subprocess
import sys

from cgbd import cgfile
import profiles


def _annotate(path, inclusive):
    # --auto=no: source annotation would read the client's sources and
    # warn about things outside the profile (e.g. the reference writes
    # line 0 for all code of a dlopened library, and annotating a file
    # whose only line is 0 makes callgrind_annotate warn).
    cmd = ["callgrind_annotate", "--auto=no"]
    if inclusive:
        cmd.append("--inclusive=yes")
    cmd.append(path)
    return subprocess.run(cmd, capture_output=True, text=True, timeout=120)


def printed_totals(stdout):
    """(events shown, values) from the PROGRAM TOTALS line; None for '.'."""
    events, values = None, None
    for line in stdout.splitlines():
        if line.startswith("Events shown:"):
            events = line.split(":", 1)[1].split()
        elif line.rstrip().endswith("PROGRAM TOTALS"):
            toks = line.split()[:-2]
            values = [None if t == "." else int(t.replace(",", ""))
                      for t in toks if not t.startswith("(")]
    return events, values


def check_one(path, inclusive, part):
    label = "callgrind_annotate%s" % (" --inclusive=yes" if inclusive else "")
    r = _annotate(path, inclusive)
    problems = []
    if r.returncode != 0:
        problems.append("%s exited %d" % (label, r.returncode))
    if r.stderr.strip():
        err = r.stderr.strip().splitlines()
        problems.append("%s wrote %d stderr lines, first: %s"
                        % (label, len(err), err[0]))
    events, values = printed_totals(r.stdout)
    if events is None or values is None or len(events) != len(values):
        problems.append("%s: no PROGRAM TOTALS line found" % label)
        return problems
    # callgrind_annotate prints the summary: line, which (as the
    # reference's) also holds the block running at exit that totals: lacks.
    totals = part.summary or part.totals or {}
    # "." is printed for a value missing from the line (trailing zeros
    # are dropped), i.e. 0.
    bad = ["%s printed %s, summary: %d" % (e, "." if v is None else v,
                                          totals.get(e, 0))
           for e, v in zip(events, values) if (v or 0) != totals.get(e, 0)]
    if bad:
        problems.append("%s PROGRAM TOTALS differ from summary: (%s)"
                        % (label, "; ".join(bad)))
    return problems


def check_annotate(path):
    """Problems (strings) found reading path with callgrind_annotate."""
    try:
        profile = profiles.parse(path)
    except cgfile.FormatError as e:
        return ["does not parse: %s" % e]
    if len(profile.parts) != 1:
        # callgrind_annotate supports one part per file only.
        return ["%d parts: callgrind_annotate reads single-part files only"
                % len(profile.parts)]
    return (check_one(path, False, profile.parts[0])
            + check_one(path, True, profile.parts[0]))


def main(argv):
    if not argv:
        print(__doc__, file=sys.stderr)
        return 2
    status = 0
    for path in argv:
        for p in check_annotate(path):
            print("%s: %s" % (path, p))
            status = 1
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
