#!/usr/bin/env python3
"""Faults at run time (malformed options are tests/tool/options*):

  abort        the client abort()s (SIGABRT): Valgrind dies of the same
               signal as with the reference, and the profile is complete
               (ends with totals:, parses, equals the reference's Ir, passes
               callgrind_annotate); with --cacheuse the back-dating oracle
               holds in it.
  thread-exit  exit(3) from a second thread while main is blocked in
               pthread_join: exit status 3, complete profile with both
               threads' functions, equal to the reference's Ir; one complete
               file per thread with --separate-threads=yes.
  out-missing  --callgrind-out-file in a directory that does not exist,
  out-readonly and in a read-only directory (a read-only tmpfs when we may
               mount, a mode 555 directory when not root; skipped
               otherwise): a one-line error naming the file, non-zero exit,
               the client never starts (like the reference).
  fork         a child forked without exec writes its own profile
               (callgrind.out.%p), with the reference's totals.
  disk-full    the profile cannot be written completely: /dev/full (no
               space), and a file size limit (RLIMIT_FSIZE): the client's
               exit status is kept and the tool names the file and says the
               profile is incomplete (the reference says nothing).
"""

import os
import resource
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "lib"))
from cgbd import cgfile            # noqa: E402
import checks            # noqa: E402
import harness           # noqa: E402

MARK = "CLIENT-STARTED"
CACHEUSE = ["--cacheuse=yes", "--backdate-check=yes"]


def complete_profile(path):
    if not os.path.exists(path):
        return ["no profile %s" % path]
    problems = checks.parses(path)
    if not checks.ends_with_totals(path):
        problems.append("%s does not end with totals:"
                        % os.path.basename(path))
    return problems


def crash_cases(client, rc_name):
    """ours vs reference on a client that ends abnormally."""
    def run():
        name = "fault/" + client
        ours, ref = harness.run_both(client, [], client)
        problems = []
        if ours.returncode != ref.returncode:
            problems.append("exit status: ours %d, ref %d (%s)"
                            % (ours.returncode, ref.returncode, rc_name))
        problems += complete_profile(ours.out)
        results = [(name + "/profile", problems)]
        if problems:
            return results
        results.append(checks.compare_check(name + "/compare", ours, ref,
                                            expect_rc=ref.returncode,
                                            events=["Ir"]))
        results.append(checks.annotate_result(name + "/annotate", ours))
        cu = harness.run_tool(harness.OURS, client, CACHEUSE,
                              client + "-cacheuse")
        p = complete_profile(cu.out)
        if cu.returncode != ref.returncode:
            p.append("with --cacheuse: exit %d, ref %d"
                     % (cu.returncode, ref.returncode))
        if not p:
            p = checks.backdate_arc_problems(cu.out)
        results.append((name + "/cacheuse-oracle", p))
        return results
    return run


def thread_exit_separate():
    """One complete file per thread, named as the reference names them
    (the reference, like us, also leaves the empty base file its start-up
    check created)."""
    opts = ["--separate-threads=yes"]
    run, ref = harness.run_both("thread_exit", opts, "thread_exit-sep")
    problems = [] if run.returncode == 3 else ["exit %d, expected 3"
                                               % run.returncode]
    names = [os.path.basename(f) for f in run.files()]
    ref_names = [os.path.basename(f).replace(harness.REF, harness.OURS, 1)
                 for f in ref.files()]
    if names != ref_names:
        problems.append("files %s, reference %s" % (names, ref_names))
    fns = set()
    for f in run.files():
        if os.path.basename(f) == os.path.basename(run.out) \
                and os.path.getsize(f) == 0:
            continue                    # the start-up check's empty file
        problems += complete_profile(f)
        if not checks.parses(f):
            fns |= set(cgfile.parse(f).merged().fns)
    # pthread_join: main was blocked in it when the worker called exit
    for fn in ("main", "worker", "finish", "spin", "pthread_join"):
        if not any(f == fn or f.startswith(fn + "@") for f in fns):
            problems.append("no %s in the per-thread profiles" % fn)
    return [("fault/thread_exit/separate-threads", problems)]


def fork_case():
    """A forked child writes its own profile; per-process totals equal the
    reference's."""
    totals, problems = {}, []
    for tool in (harness.OURS, harness.REF):
        base = tool + ".out"
        run = harness.run_tool(tool, "fork", [], "fork", base + ".%p")
        if run.returncode != 0:
            problems.append("%s exited %d" % (tool, run.returncode))
        outdir = os.path.dirname(run.out)
        files = [os.path.join(outdir, f) for f in sorted(os.listdir(outdir))
                 if f.startswith(base + ".")]
        if tool == harness.OURS:
            for f in files:
                problems += complete_profile(f)
        totals[tool] = sorted(cgfile.parse(f).merged().totals.get("Ir", 0)
                              for f in files if not checks.parses(f))
    if len(totals[harness.OURS]) != 2 or \
            totals[harness.OURS] != totals[harness.REF]:
        problems.append("Ir totals per process: ours %s, reference %s"
                        % (totals[harness.OURS], totals[harness.REF]))
    return [("fault/fork/profile-per-process", problems)]


def valgrind(tool, out, argv, limit=None):
    env = dict(os.environ, VALGRIND_LIB=harness.vglib())

    def set_limit():
        if limit:
            resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
    return subprocess.run(["valgrind", "-q", "--tool=" + tool,
                           "--callgrind-out-file=" + out] + argv,
                          env=env, capture_output=True, text=True,
                          timeout=harness.RUN_TIMEOUT, preexec_fn=set_limit)


def refused_problems(out):
    """Both tools refuse before the client starts; ours in one line."""
    problems = []
    for tool in (harness.OURS, harness.REF):
        r = valgrind(tool, out, ["/bin/echo", MARK])
        if r.returncode == 0:
            problems.append("%s exited 0" % tool)
        if MARK in r.stdout:
            problems.append("%s started the client" % tool)
        if tool == harness.OURS:
            lines = [l for l in r.stderr.splitlines()
                     if "callgrind-bd" in l and "warning" not in l]
            if len(lines) != 1 or out not in lines[0]:
                problems.append("expected one error line naming %s, got %r"
                                % (out, lines))
    return problems


def out_missing():
    return [("fault/out-missing",
             refused_problems("/nonexistent-cgbd-dir/sub/profile.out"))]


def readonly_dir():
    """(directory, cleanup) or (None, why not)."""
    d = tempfile.mkdtemp(prefix="cgbd-ro-", dir=harness.BUILD)
    if os.geteuid() != 0:
        os.chmod(d, 0o555)
        return d, lambda: (os.chmod(d, 0o755), os.rmdir(d))
    r = subprocess.run(["mount", "-t", "tmpfs", "-o", "ro,size=64k",
                        "tmpfs", d], capture_output=True)
    if r.returncode != 0:
        os.rmdir(d)
        return None, "root and may not mount a read-only tmpfs"
    return d, lambda: (subprocess.run(["umount", d]), os.rmdir(d))


def out_readonly():
    os.makedirs(harness.BUILD, exist_ok=True)
    d, cleanup = readonly_dir()
    if d is None:
        return [("fault/out-readonly", [], "skipped: " + cleanup)]
    try:
        return [("fault/out-readonly",
                 refused_problems(os.path.join(d, "profile.out")))]
    finally:
        cleanup()


def write_error_problems(out, limit=None):
    exe = harness.build_client("calls")
    r = valgrind(harness.OURS, out, [exe], limit=limit)
    native = subprocess.run([exe], capture_output=True)
    problems = []
    if r.returncode != native.returncode:
        problems.append("exit %d, native %d" % (r.returncode,
                                                 native.returncode))
    msgs = [l for l in r.stderr.splitlines()
            if "error writing profile" in l]
    if len(msgs) != 1 or out not in msgs[0] or "incomplete" not in msgs[0]:
        problems.append("expected one message naming %s as incomplete, "
                        "got %r" % (out, r.stderr.strip().splitlines()[-3:]))
    return problems


def disk_full():
    outdir = os.path.join(harness.OUT, "disk-full")
    os.makedirs(outdir, exist_ok=True)
    limited = os.path.join(outdir, "limited.out")
    return [("fault/disk-full/dev-full", write_error_problems("/dev/full")),
            ("fault/disk-full/file-size-limit",
             write_error_problems(limited, limit=16384))]


def main():
    cases = [("fault/abort", crash_cases("abort", "SIGABRT")),
             ("fault/thread_exit", crash_cases("thread_exit", "exit(3)")),
             ("fault/thread_exit/separate-threads", thread_exit_separate),
             ("fault/fork", fork_case),
             ("fault/out-missing", out_missing),
             ("fault/out-readonly", out_readonly),
             ("fault/disk-full", disk_full)]
    return harness.run_cases(cases)


if __name__ == "__main__":
    harness.main_guard(main)
