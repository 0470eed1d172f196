#!/usr/bin/env python3
"""Real programs from Debian's packages under --cache-sim=yes
--cacheuse=yes --backdate-check=yes: an interpreter (perl, python3), a
compressor (gzip, bzip2), a multi-threaded compressor (xz -T2) and the
compiler driver (gcc -c with --trace-children=yes: one profile per
process: gcc, cc1, as).

For each program: the run under the tool exits as the native run does;
what the program writes (stdout, or the file it creates) is byte for byte
the native output; every profile written passes callgrind_annotate
without warnings; and the back-dating oracle holds in every profile
(L1ld == L1ldB and LLld == LLldB on every arc and in the totals,
tests/tool/backdate_oracle.py).

The quick programs (a few seconds each) run in the test suite; with
REAL_PROGRAMS=all (tests/real-programs.sh) the slow ones run too, with
bigger inputs. Programs that are not installed are reported as skipped
(PASS with a note), never silently dropped.
"""

import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "lib"))
import annotate_check    # noqa: E402
import checks           # noqa: E402
import harness           # noqa: E402

OPTS = ["--cache-sim=yes", "--cacheuse=yes", "--backdate-check=yes"]
ALL = os.environ.get("REAL_PROGRAMS") == "all"

PERL_SCRIPT = ('my %h; $h{$_ % 97} += $_ for 1..20000; '
               'print join(",", map {"$_=$h{$_}"} '
               '(sort {$a<=>$b} keys %h)[0..4]), "\\n"')
PYTHON_SCRIPT = ("d = {i: str(i * i) for i in range(3000)}\n"
                 "print(sum(len(v) for v in d.values()), sorted(d)[-1])")
C_SOURCE = """#include <stdio.h>
static int square(int x) { return x * x; }
int main(void)
{
   int s = 0;
   for (int i = 0; i < 10; i++) s += square(i);
   printf("%d\\n", s);
   return 0;
}
"""


class Program:
    """argv: the command (INPUT stands for the generated input file);
    output: None (compare stdout) or a file the program creates;
    input_bytes: size of the generated input (0: none); quick: in the
    test suite; processes: minimum number of profiles (trace-children)."""

    def __init__(self, name, argv, quick, input_bytes=0, output=None,
                 extra_opts=(), processes=1, source=None, expect_fn=None):
        self.name = name
        self.argv = argv
        self.quick = quick
        self.input_bytes = input_bytes
        self.output = output
        self.extra_opts = list(extra_opts)
        self.processes = processes
        self.source = source
        self.expect_fn = expect_fn


PROGRAMS = [
    Program("perl", ["perl", "-e", PERL_SCRIPT], quick=True),
    Program("python3", ["/usr/bin/python3", "-S", "-c", PYTHON_SCRIPT],
            quick=True),
    Program("gzip", ["gzip", "-c", "INPUT"], quick=True,
            input_bytes=300000),
    Program("bzip2", ["bzip2", "-c", "INPUT"], quick=False,
            input_bytes=300000),
    # small blocks, so that the two worker threads really share the work;
    # start_thread in the profile shows that threads ran
    Program("xz-T2", ["xz", "-T2", "-0", "--block-size=32768", "-c",
                      "INPUT"], quick=True, input_bytes=200000,
            expect_fn="start_thread"),
    Program("xz-T2-big", ["xz", "-T2", "-1", "--block-size=131072", "-c",
                          "INPUT"], quick=False, input_bytes=1000000,
            expect_fn="start_thread"),
    Program("gcc", ["gcc", "-O1", "-c", "small.c", "-o", "small.o"],
            quick=False, output="small.o", extra_opts=["--trace-children=yes"],
            processes=3, source=C_SOURCE),
]


def make_input(workdir, size):
    """Deterministic, partly compressible input: a binary's bytes."""
    path = os.path.join(workdir, "input.bin")
    with open(shutil.which("perl") or "/bin/sh", "rb") as src:
        data = src.read(size)
    with open(path, "wb") as fh:
        fh.write(data)
    return path


def prepare(prog, workdir):
    os.makedirs(workdir, exist_ok=True)
    argv = list(prog.argv)
    if prog.input_bytes:
        inp = make_input(workdir, prog.input_bytes)
        argv = [inp if a == "INPUT" else a for a in argv]
    if prog.source:
        with open(os.path.join(workdir, "small.c"), "w") as fh:
            fh.write(prog.source)
    return argv


def run_once(argv, workdir, valgrind_opts=None, out=None):
    """Run natively (valgrind_opts None) or under our tool (profile to
    out) in workdir; return the CompletedProcess (bytes output)."""
    cmd = list(argv)
    env = dict(os.environ)
    if valgrind_opts is not None:
        env["VALGRIND_LIB"] = harness.vglib()
        cmd = (["valgrind", "--tool=" + harness.OURS,
                "--callgrind-out-file=" + out] + valgrind_opts + cmd)
    return subprocess.run(cmd, cwd=workdir, env=env, capture_output=True,
                          timeout=harness.RUN_TIMEOUT)


def produced(prog, workdir, proc):
    if prog.output is None:
        return proc.stdout
    path = os.path.join(workdir, prog.output)
    with open(path, "rb") as fh:
        data = fh.read()
    os.unlink(path)
    return data


def profile_problems(prog, files):
    problems = []
    if len(files) < prog.processes:
        problems.append("%d profiles, expected at least %d (one per process)"
                        % (len(files), prog.processes))
    for f in files:
        base = os.path.basename(f)
        problems += ["%s: %s" % (base, p)
                     for p in annotate_check.check_annotate(f)]
        problems += ["%s: oracle: %s" % (base, p)
                     for p in checks.backdate_arc_problems(f)[:5]]
    if prog.expect_fn and not any(
            ("fn=" in l and l.rstrip().endswith(" " + prog.expect_fn))
            for f in files for l in open(f, errors="replace")):
        problems.append("no %s in the profile: the program ran no threads"
                        % prog.expect_fn)
    return problems


def case(prog):
    def run():
        name = "real/" + prog.name
        tool = prog.argv[0]
        if not shutil.which(tool):
            return [(name, [], "skipped: %s not installed" % tool)]
        workdir = os.path.join(harness.OUT, "real-" + prog.name)
        argv = prepare(prog, workdir)
        native = run_once(argv, workdir)
        native_out = produced(prog, workdir, native)
        base = os.path.join(workdir, "cg.out")
        out = base + ".%p" if prog.processes > 1 else base
        ours = run_once(argv, workdir, OPTS + prog.extra_opts, out)
        problems = []
        if ours.returncode != native.returncode:
            tail = ours.stderr.decode(errors="replace").strip()
            problems.append("exit %d, native %d: %s"
                            % (ours.returncode, native.returncode,
                               " | ".join(tail.splitlines()[-3:])))
            return [(name, problems)]
        if produced(prog, workdir, ours) != native_out:
            problems.append("output differs from the native run")
        files = sorted(os.path.join(workdir, f) for f in os.listdir(workdir)
                       if f == "cg.out" or f.startswith("cg.out."))
        return [(name + "/output", problems),
                (name + "/profiles", profile_problems(prog, files))]
    return run


def main():
    progs = [p for p in PROGRAMS if p.quick or ALL]
    return harness.run_cases([("real/" + p.name, case(p)) for p in progs])


if __name__ == "__main__":
    harness.main_guard(main)
