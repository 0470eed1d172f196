#!/usr/bin/env python3
"""The MPI rank without a launcher (issue 20): the first of
OMPI_COMM_WORLD_RANK, PMI_RANK, SLURM_PROCID holding a number names the
rank in desc: and in -v's output; none set, neither appears. Apart from
mpi.py (the ranks under mpirun) because it needs no MPI and is what of
that feature touches Valgrind (its environment, -v), so it runs against
other Valgrind releases too (tests/README.md)."""

import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "lib"))
import profiles         # noqa: E402
import harness          # noqa: E402


def rank_env_case():
    exe = harness.build_client("marker")
    d = os.path.join(harness.OUT, "mpi-rank-env")
    os.makedirs(d, exist_ok=True)
    clean = {k: v for k, v in os.environ.items()
             if k not in ("OMPI_COMM_WORLD_RANK", "PMI_RANK", "SLURM_PROCID")}
    cases = [({"OMPI_COMM_WORLD_RANK": "5", "PMI_RANK": "6"},
              "5 (OMPI_COMM_WORLD_RANK)"),
             ({"PMI_RANK": "x1", "SLURM_PROCID": "12"}, "12 (SLURM_PROCID)"),
             ({"PMI_RANK": "3"}, "3 (PMI_RANK)"),
             ({}, None)]
    problems = []
    for i, (env, want) in enumerate(cases):
        out = os.path.join(d, "cg.%d" % i)
        p = subprocess.run(
            ["valgrind", "-v", "--tool=" + harness.OURS,
             "--callgrind-out-file=" + out, exe],
            cwd=harness.BUILD, capture_output=True, text=True, timeout=300,
            env=dict(clean, VALGRIND_LIB=harness.vglib(), **env))
        descs = [x for x in profiles.parse(out).parts[0].descs
                 if x.startswith("MPI rank")]
        said = [l.split("== ", 1)[-1] for l in p.stderr.splitlines()
                if "MPI rank" in l]
        if descs != (["MPI rank: " + want] if want else []):
            problems.append("%s: desc lines %s" % (env, descs))
        if said != (["MPI rank " + want] if want else []):
            problems.append("%s: -v printed %s" % (env, said))
    return [("mpi/rank-env", problems)]



if __name__ == "__main__":
    harness.main_guard(lambda: harness.run_cases([("mpi/rank-env",
                                                   rank_env_case)]))
