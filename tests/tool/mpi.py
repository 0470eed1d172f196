#!/usr/bin/env python3
"""MPI programs (issue 20): a small stencil code (clients/mpi_stencil.c,
whose last rank relaxes its cells 4 times per iteration where the others
do it once) under `mpirun --oversubscribe -np 2` and `-np 4` (plus
--allow-run-as-root as root), one profile per rank through
--callgrind-out-file=cg.%q{OMPI_COMM_WORLD_RANK}:

- one file per rank, each naming its rank (desc: MPI rank: N) and
  oracle-clean (immediate = back-dated line counts per arc; conservation
  of the back-dated events wherever Ir is conserved);
- callgrind-bd_merge --stat=sum: the sum of the ranks, function by
  function and arc by arc, totals; conservation; the oracle; read cleanly
  by callgrind_annotate;
- --stat=imbalance: callgrind_annotate lists relax, the imbalanced
  function, first; its value (and with -np 4 those of max, min and mean)
  per function and arc of the program is the statistic over the ranks,
  derived from the rank files;
- the MPI mode (`mpirun -np 3 callgrind-bd_merge` on the 4 rank files,
  `-np 2` for imbalance) writes the same bytes as the serial merge; on
  files of different events it fails with one error line and no output;
- a rank that crashes (`mpi_stencil 8 crash`, -np 2: the last rank dies
  of SIGSEGV midway, mpirun ends the other with SIGTERM): both rank
  files are written and complete (each names its rank, the oracle and
  conservation hold), the crashed rank's ends with the fault's signal,
  and their sum merges as above. mpirun is given
  `--mca odls_base_sigkill_timeout 3` (its SIGKILL follows the SIGTERM
  after 1 s by default, which a loaded machine's profile write may
  outlast: the manual says so);
(Without a launcher, each rank variable in desc: and -v: mpi_rank_env.py.)

Open MPI (mpirun, mpicc) is installed by setup.sh: a missing one fails."""

import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "lib"))
import annotate_check   # noqa: E402
import profiles         # noqa: E402
import checks           # noqa: E402
import conservation     # noqa: E402
import harness          # noqa: E402
import mergecheck       # noqa: E402

OPTS = mergecheck.CACHE_OPTS
STAT_EVENTS = ["Ir", "Dr", "AcCost1", "SpLoss1"]
IMBALANCED = "relax"


def mpirun(np):
    cmd = ["mpirun", "--oversubscribe", "-np", str(np)]
    if os.geteuid() == 0:
        cmd.insert(1, "--allow-run-as-root")
    return cmd


def run_ranks(np, args=(), launcher_opts=(), expect_ok=True):
    """The stencil under np ranks; returns (dir, rank files, mpirun's
    result)."""
    exe = harness.build_client("mpi_stencil")
    d = os.path.join(harness.OUT, "mpi-np%d%s" % (np, "-" + args[-1] if args else ""))
    os.makedirs(d, exist_ok=True)
    for f in os.listdir(d):
        os.unlink(os.path.join(d, f))
    out = os.path.join(d, "cg.%q{OMPI_COMM_WORLD_RANK}")
    cmd = mpirun(np) + list(launcher_opts) + \
        ["valgrind", "--tool=" + harness.OURS, "--callgrind-out-file=" + out] + \
        OPTS + ["./" + os.path.basename(exe)] + list(args)
    env = dict(os.environ, VALGRIND_LIB=harness.vglib())
    p = subprocess.run(cmd, cwd=harness.BUILD, env=env, capture_output=True,
                       text=True, timeout=900)
    if expect_ok and p.returncode != 0:
        raise RuntimeError("mpirun -np %d exited %d: %s" % (
            np, p.returncode, " | ".join(p.stderr.strip().splitlines()[-3:])))
    return d, [os.path.join(d, "cg.%d" % r) for r in range(np)], p


def rank_problems(files, np):
    problems = []
    present = sorted(f for f in os.listdir(os.path.dirname(files[0]))
                     if f.startswith("cg."))
    if present != sorted(os.path.basename(f) for f in files):
        return ["rank files %s, expected cg.0 .. cg.%d" % (present, np - 1)]
    for rank, f in enumerate(files):
        descs = profiles.parse(f).parts[0].descs
        mine = [d for d in descs if d.startswith("MPI rank: ")]
        if mine != ["MPI rank: %d (OMPI_COMM_WORLD_RANK)" % rank]:
            problems.append("%s: rank desc lines %s" % (f, mine))
    return problems


def oracle_problems(files):
    problems = []
    for f in files:
        name = os.path.basename(f)
        problems += ["%s: %s" % (name, p)
                     for p in checks.backdate_arc_problems(f)]
        problems += ["%s: %s" % (name, p) for p in
                     conservation.check_conservation(f, mergecheck.BD_EVENTS,
                                                     where_ir_holds=True)]
    return problems


def first_function(path):
    """The first function callgrind_annotate lists (sorted by Ir)."""
    r = subprocess.run(["callgrind_annotate", "--auto=no", path],
                       capture_output=True, text=True, timeout=300)
    seen_header = False
    for line in r.stdout.splitlines():
        if line.rstrip().endswith("file:function"):
            seen_header = True
        elif seen_header and re.match(r"^\s*[\d,]+ ", line):
            m = re.search(r":(\S+) \[", line)
            return m.group(1) if m else line
    return None


def merge(d, stat, files, launcher=(), name=None):
    return mergecheck.merge_to(os.path.join(d, name or "merged." + stat),
                               files, stat, launcher)


def same_bytes(a, b):
    with open(a, "rb") as fa, open(b, "rb") as fb:
        if fa.read() == fb.read():
            return []
    return ["%s differs from %s" % (os.path.basename(b), os.path.basename(a))]


def case(np):
    def run():
        name = "mpi/np%d" % np
        d, files, _ = run_ranks(np)
        results = [(name + "/rank-files", rank_problems(files, np)),
                   (name + "/rank-oracle", oracle_problems(files))]
        total = merge(d, "sum", files)
        parts = [profiles.parse(f).parts[0] for f in files]
        results += [
            (name + "/sum", mergecheck.sum_problems(
                profiles.parse(total).parts[0], parts)),
            (name + "/sum/oracle", oracle_problems([total])),
            (name + "/sum/annotate", annotate_check.check_annotate(total))]
        imb = merge(d, "imbalance", files)
        first = first_function(imb)
        results.append((name + "/imbalance/first", [] if first == IMBALANCED
                        else ["callgrind_annotate lists %r first" % first]))
        stats = ["imbalance"] + (["max", "min", "mean"] if np == 4 else [])
        for stat in stats:
            out = merge(d, stat, files) if stat != "imbalance" else imb
            results.append((name + "/" + stat, mergecheck.stat_problems(
                stat, out, files, "/mpi_stencil", STAT_EVENTS)))
        results.append((name + "/imbalance/annotate",
                        annotate_check.check_annotate(imb)))
        if np == 4:
            for stat, procs in (("sum", 3), ("imbalance", 2)):
                par = merge(d, stat, files, launcher=mpirun(procs),
                            name="mpimode.%s" % stat)
                results.append(("%s/mpi-mode/%s-np%d" % (name, stat, procs),
                                same_bytes(os.path.join(d, "merged." + stat),
                                           par)))
        return results
    return run


def crash_case():
    """The last of two ranks dies of SIGSEGV midway (docstring)."""
    name = "mpi/crash"
    d, files, p = run_ranks(2, args=("8", "crash"),
                            launcher_opts=("--mca", "odls_base_sigkill_timeout", "3"),
                            expect_ok=False)
    ends = [] if "default action of signal 11 (SIGSEGV)" in p.stderr else \
        ["no rank ended with SIGSEGV: %s" % " | ".join(p.stderr.strip().splitlines()[-3:])]
    if p.returncode == 0:
        ends.append("mpirun exited 0 although a rank crashed")
    results = [(name + "/ends", ends),
               (name + "/rank-files", rank_problems(files, 2))]
    if results[-1][1]:
        return results
    results.append((name + "/rank-oracle", oracle_problems(files)))
    total = merge(d, "sum", files)
    parts = [profiles.parse(f).parts[0] for f in files]
    results += [(name + "/sum", mergecheck.sum_problems(
                    profiles.parse(total).parts[0], parts)),
                (name + "/sum/annotate", annotate_check.check_annotate(total))]
    return results


def tiny_profile(path, events):
    """A two-function profile (main calling work) with these events; its
    totals: are the self costs, 1 + 2 per event, as the tools end a part."""
    n = len(events.split())
    with open(path, "w") as fh:
        fh.write("version: 1\ncmd: ./app\npart: 1\nevents: %s\n"
                 "fl=(1) app.c\nfn=(1) main\n3 %s\ncfn=(2) work\n"
                 "calls=1 20\n5 %s\nfn=(2) work\n20 %s\ntotals: %s\n"
                 % (events, " ".join(["1"] * n), " ".join(["2"] * n),
                    " ".join(["2"] * n), " ".join(["3"] * n)))


def mpi_mode_error_case():
    """The MPI mode on mismatched files: exit non-zero, the error once
    (from process 0, not from every process), no output."""
    d = os.path.join(harness.OUT, "mpi-mode-error")
    os.makedirs(d, exist_ok=True)
    files = [os.path.join(d, "p%d" % i) for i in range(4)]
    for i, f in enumerate(files):
        tiny_profile(f, "Ir Dr" if i == 3 else "Ir")
    out = os.path.join(d, "never")
    r = mergecheck.run_merge(["-o", out] + files, launcher=mpirun(2))
    mine = [l for l in r.stderr.splitlines()
            if l.startswith("callgrind-bd_merge: ")]
    problems = []
    if r.returncode == 0:
        problems.append("exit 0")
    if len(mine) != 1 or "events" not in mine[0]:
        problems.append("error lines %s" % mine)
    left = [f for f in os.listdir(d) if f.startswith("never")]
    if left:
        problems.append("output left behind: %s" % left)
    return [("mpi/mpi-mode/error", problems)]


def main():
    return harness.run_cases([("mpi/mpi-mode/error", mpi_mode_error_case),
                              ("mpi/np2", case(2)), ("mpi/np4", case(4)),
                              ("mpi/crash", crash_case)])


if __name__ == "__main__":
    harness.main_guard(main)
