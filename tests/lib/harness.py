"""Shared plumbing of the tool tests: building clients, running them under
our tool and the reference Callgrind, reporting PASS/FAIL lines.

Environment:
  CGBD_BUILDDIR  the build directory when it is not the source tree (an
                 out-of-tree configure, `make check`, `make distcheck`);
                 clients are then built under it too.
  CGBD_VGLIB     directory used as VALGRIND_LIB (default: $BUILDDIR/vglib,
                 built by `make`); must hold callgrind-bd-amd64-linux.
  CGBD_SELFTEST  =1: use a scratch VALGRIND_LIB where callgrind-bd is the
                 reference Callgrind itself, so every comparison must pass
                 (that is how the harness is checked without the tool).
  CGBD_JOBS      parallel valgrind runs inside one test script (default 2).
  CGBD_OUT       directory for the profiles (default: a fresh
                 tests/build/out/run-<pid>, removed if all cases passed).
  TEST_FILTER    only run cases whose name contains this string.
"""

import contextlib
import fcntl
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
from concurrent.futures import ThreadPoolExecutor

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TESTS = os.path.join(TOP, "tests")
CLIENTS = os.path.join(TESTS, "clients")
BUILDDIR = os.environ.get("CGBD_BUILDDIR") or TOP
BUILD = os.path.join(BUILDDIR, "tests", "build")
# Profiles of this invocation. Several test processes (or sessions) may
# run at once in one tree, so each writes its own directory; it is removed
# when everything passed and kept for inspection otherwise.
OUT = os.environ.get("CGBD_OUT") or os.path.join(BUILD, "out", "run-%d"
                                                 % os.getpid())


def _configured(var, default):
    """A variable of the build's Makefile (as configure wrote it)."""
    try:
        with open(os.path.join(BUILDDIR, "Makefile")) as fh:
            for line in fh:
                if line.startswith(var + " = "):
                    return line[len(var) + 3:].strip() or default
    except OSError:
        pass
    return default


# Valgrind's tool directory as configure found it (the release built
# against need not be the system's).
SYSTEM_VGLIB = _configured("VG_TOOLDIR", "/usr/libexec/valgrind")
VG_VERSION = _configured("VG_VERSION", "")

OURS = "callgrind-bd"
REF = "callgrind"
RUN_TIMEOUT = 300           # seconds per valgrind run; a hang is a failure

# How each client is built: sources, compiler, flags. -O0 unless the case
# needs otherwise (tailcall: real tail calls only appear with -O2).
CLIENT_BUILD = {
    "calls": (["calls.c"], "gcc", []),
    "recursion": (["recursion.c"], "gcc", []),
    "fnptr": (["fnptr.c"], "gcc", []),
    "tailcall": (["tailcall.c"], "gcc", ["-O2"]),
    "longjmp": (["longjmp.c"], "gcc", []),
    "exception": (["exception.cc"], "g++", []),
    # -z now: no lazy binding, so which thread happens to resolve a PLT
    # entry first (scheduling) does not move the resolver's costs around.
    "threads": (["threads.c"], "gcc", ["-pthread", "-Wl,-z,now"]),
    "signal": (["signal.c"], "gcc", []),
    "siglongjmp": (["siglongjmp.c"], "gcc", []),
    "dlopen": (["dlopen.c"], "gcc", ["-ldl"]),
    "dlopen_lib.so": (["dlopen_lib.c"], "gcc", ["-fPIC", "-shared"]),
    "segv": (["segv.c"], "gcc", []),
    "abort": (["abort.c"], "gcc", []),
    "fork": (["fork.c"], "gcc", []),
    "thread_exit": (["thread_exit.c"], "gcc", ["-pthread", "-Wl,-z,now"]),
    # a thread created after the first was joined: the same thread id
    "thread_reuse": (["thread_reuse.c"], "gcc", ["-pthread", "-Wl,-z,now"]),
    # the second thread ends the process (argument: segv, term, abort,
    # exit, _exit) while main loops (tests/tool/thread_faults.py)
    "thread_fault": (["thread_fault.c"], "gcc", ["-pthread", "-Wl,-z,now"]),
    "exec": (["exec.c"], "gcc", []),
    "cacheuse": (["cacheuse.c"], "gcc", []),
    "clreq": (["clreq.c"], "gcc", []),
    "instr_restart": (["instr_restart.c"], "gcc", []),
    "marker": (["marker.c"], "gcc", []),
    "collect_off": (["collect_off.c"], "gcc", []),
    "atomics": (["atomics.c"], "gcc", []),
    "longrun": (["longrun.c"], "gcc", []),
    "zero_threads": (["zero_threads.c"], "gcc", ["-pthread", "-Wl,-z,now"]),
    # -O2: leaf kernels whose only data accesses are the pattern's
    "missclass": (["missclass.c"], "gcc", ["-O2"]),
    "missclass_switch": (["missclass_switch.c"], "gcc", ["-O2"]),
    # the manual's worked example, built as the manual says (-O1), once
    # per way of transposing (the argument)
    "transpose_naive": (["transpose.c"], "gcc", ["-O1"]),
    "transpose_blocked": (["transpose.c"], "gcc", ["-O1"]),
    "objects": (["objects.c"], "gcc", []),
    # --private-caches: hand-over clients, one per pattern (-O2: bump() is
    # one read-modify-write instruction)
    "sharing_false": (["sharing.c"], "gcc",
                      ["-O2", "-DPATTERN=0", "-pthread", "-Wl,-z,now"]),
    "sharing_true": (["sharing.c"], "gcc",
                     ["-O2", "-DPATTERN=1", "-pthread", "-Wl,-z,now"]),
    "sharing_padded": (["sharing.c"], "gcc",
                       ["-O2", "-DPATTERN=2", "-pthread", "-Wl,-z,now"]),
    # -O1: gcc puts a loop's head at the function's first instruction
    "loop_entry": (["loop_entry.c"], "gcc", ["-O1"]),
    "callpaths": (["callpaths.c"], "gcc", []),
    "objects_cxx": (["objects_cxx.cc"], "g++", []),
    "separate_par": (["separate_par.c"], "gcc", []),
    "separate_par_values": (["separate_par_values.c"], "gcc", []),
    # --bandwidth: kernels in assembly, one build per kernel (the argument)
    "bandwidth_access": (["bandwidth.c"], "gcc", []),
    "bandwidth_sse": (["bandwidth.c"], "gcc", []),
    "bandwidth_avx": (["bandwidth.c"], "gcc", []),
    "bandwidth_wb1k": (["bandwidth.c"], "gcc", []),
    "bandwidth_wb2k": (["bandwidth.c"], "gcc", []),
    "bandwidth_smc": (["bandwidth.c"], "gcc", []),
    # --prefetch (tests/tool/l2_prefetch.py): -O1, sums in registers
    "stream": (["stream.c"], "gcc", ["-O1"]),
    # blocks of more than 64 data accesses, replayed in parts by the
    # deferred simulation (tests/tool/defer_sim.py); -O2: each copy
    # function is its asm and a ret
    "long_block": (["long_block.c"], "gcc", ["-O2"]),
    "long_block_fault": (["long_block.c"], "gcc", ["-O2"]),
    # --latency: assembly kernels (tests/tool/latency.py), one build with
    # two threads
    "latency": (["latency.c"], "gcc", []),
    "latency_threads": (["latency.c"], "gcc",
                        ["-DTHREADS", "-pthread", "-Wl,-z,now"]),
    # MPI (Open MPI's wrapper compiler; tests/tool/mpi.py)
    "mpi_stencil": (["mpi_stencil.c"], "mpicc", []),
}

# Extra files a client needs, and its arguments (relative to BUILD).
CLIENT_DEPS = {"dlopen": ["dlopen_lib.so"]}
CLIENT_ARGS = {"dlopen": ["./dlopen_lib.so"],
               "transpose_naive": ["naive"], "transpose_blocked": ["blocked"],
               "bandwidth_access": ["access", "1000"],
               "bandwidth_sse": ["sse", "1000"], "bandwidth_avx": ["avx", "1000"],
               "bandwidth_wb1k": ["wb", "1024"], "bandwidth_wb2k": ["wb", "2048"],
               "bandwidth_smc": ["smc", "1000"],
               "long_block_fault": ["fault"]}

# Single-threaded clients that finish normally: compared exactly.
EXACT_CLIENTS = ["calls", "recursion", "fnptr", "tailcall", "longjmp",
                 "exception", "signal", "siglongjmp", "dlopen", "cacheuse"]

_build_lock = threading.Lock()


# -- reporting ------------------------------------------------------------

_print_lock = threading.Lock()

# In self-test mode "ours" is the reference, so checks of what this
# project adds or fixes fail by design. (case-name regex, why); a listed
# case that fails in self-test mode is reported as PASS with the reason,
# so a green self-test means the harness itself is consistent.
REF_KNOWN_FAILURES = [
    (r"^cache/[^/]*cacheuse[^/]*/[^/]+/annotate$",
     "with --cacheuse the reference's summary: omits AcCost/SpLoss, so "
     "callgrind_annotate warns and prints '.'"),
    (r"^cache/[^/]*cacheuse[^/]*/[^/]+/conservation$",
     "the reference writes 0 inclusive AcCost/SpLoss on every call line"),
    (r"^cache/geom-(wb|hwpref)-cacheuse/[^/]+$",
     "the reference ignores --simulate-wb/--simulate-hwpref with --cacheuse"),
    (r"^cache/cacheuse(-B)?/[^/]+$",
     "where its cacheuse model loses misses (geometry B, hosts with a big "
     "LL: tests/lib/geometry.py) ours is compared with its plain model"),
    (r"^miss-modes/[^/]+/[^/]+$",
     "its write-back and cacheuse models lose misses where a cache's sets x "
     "line size exceeds 1 MiB (geometries B, EPYC, big host LLs)"),
    (r"^oracle/", "uses options only our tool has (--backdate-check)"),
    (r"^clreq/oracle", "uses options only our tool has (--backdate-check)"),
    (r"^options/fn-skip-oracle$",
     "uses options only our tool has (--backdate-check)"),
    (r"^clreq/unknown-request-warned-once$",
     "the reference ignores unknown request codes silently"),
    (r"^options/(bad|fuzz)",
     "the reference accepts some malformed values and reports the others "
     "on two lines (docs/differences.md)"),
    (r"^example/transpose/(top-down|blocking-fix)$",
     "the reference writes 0 inclusive SpLoss1/AcCost1"),
    (r"^fault/.*/cacheuse-oracle$",
     "uses options only our tool has (--backdate-check)"),
    (r"^fault/out-(missing|readonly)$",
     "the reference's error is a ==pid== log line, not a callgrind-bd one"),
    (r"^fault/disk-full/",
     "the reference does not report write errors"),
    (r"^real/", "uses options only our tool has (--backdate-check)"),
    (r"^collect-off/counts$",
     "the reference keeps the counts of calls made while collection is "
     "off and adds them to a later part"),
    (r"^exec/(plain|trace-children)$",
     "the reference loses the profile of a process that calls execve"),
    (r"^tools/cg2dot/SpLoss1$",
     "the reference writes 0 inclusive SpLoss1, so no edge is drawn"),
    (r"^options/objects-out-dir$",
     "the reference has no --objects (and its error is a ==pid== log line)"),
    (r"^users/(annotate-dirs|event-names|objects-calls|help)$",
     "options or text only our tool has (--objects, --backdate-check, --help)"),
    (r"^users/pattern-warnings/[01]$",
     "the reference says nothing about patterns that matched nothing"),
    (r"^control/ours/live-view$",
     "uses options only our tool has (--backdate-check)"),
]


def _known_ref_failure(name):
    if os.environ.get("CGBD_SELFTEST") != "1":
        return None
    for pattern, why in REF_KNOWN_FAILURES:
        if re.search(pattern, name):
            return why
    return None


def report(name, problems, note=None):
    """Print PASS/FAIL for one case; problems is a list of strings."""
    with _print_lock:
        if not problems:
            print("PASS %s%s" % (name, " (%s)" % note if note else ""),
                  flush=True)
            return True
        why = _known_ref_failure(name)
        if why:
            print("PASS %s (self-test: reference fails as expected: %s)"
                  % (name, why), flush=True)
            return True
        print("FAIL %s: %s" % (name, problems[0]), flush=True)
        for p in problems[1:]:
            print("    %s" % p, flush=True)
        return False


def selected(name):
    f = os.environ.get("TEST_FILTER", "")
    return f in name


def run_cases(cases):
    """Run (name, fn) pairs, CGBD_JOBS at a time, and report them.

    fn() returns a list of (result name, problems[, note]) tuples: one run
    of valgrind usually feeds several checks, each its own PASS/FAIL line.
    An exception inside fn fails the case. Returns the exit status."""
    cases = [(n, f) for n, f in cases if selected(n)]

    def one(case):
        name, fn = case
        try:
            results = fn()
        except Exception as e:          # report, never lose a case
            results = [(name, ["%s: %s" % (type(e).__name__, e)])]
        return all([report(*r) for r in results])

    jobs = int(os.environ.get("CGBD_JOBS", "2"))
    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        results = list(pool.map(one, cases))
    if all(results):
        if not os.environ.get("CGBD_OUT") and os.path.isdir(OUT):
            shutil.rmtree(OUT, ignore_errors=True)
        return 0
    print("profiles kept in %s" % OUT, file=sys.stderr)
    return 1


@contextlib.contextmanager
def case_dirs(prefix):
    """Own directories for cases that write files (they run in parallel):
    yields in_own_dir, which turns fn(tmp) into a case fn() given a new
    directory; all of them are removed at the end."""
    top = tempfile.mkdtemp(prefix=prefix)
    try:
        yield lambda fn: (lambda: fn(tempfile.mkdtemp(dir=top)))
    finally:
        shutil.rmtree(top, ignore_errors=True)


# -- building clients -------------------------------------------------------

def _up_to_date(target, sources, cmd):
    """target is newer than its sources and was built by the same cmd."""
    stamp = target + ".cmd"
    if not (os.path.exists(target) and os.path.exists(stamp)):
        return False
    with open(stamp) as fh:
        if fh.read() != " ".join(cmd):
            return False
    t = os.path.getmtime(target)
    return all(os.path.getmtime(s) <= t for s in sources)


def build_client(name):
    """Compile a client (and what it needs) into BUILD; return its path.

    Compiles to a temporary name and renames, so that test scripts running
    in parallel never see a half-written binary."""
    for dep in CLIENT_DEPS.get(name, []):
        build_client(dep)
    srcs, cc, flags = CLIENT_BUILD[name]
    srcs = [os.path.join(CLIENTS, s) for s in srcs]
    target = os.path.join(BUILD, name)
    opt = [] if any(f.startswith("-O") for f in flags) else ["-O0"]
    cmd = [cc, "-g"] + opt + ["-o", target] + srcs + flags
    with _build_lock:
        if _up_to_date(target, srcs, cmd):
            return target
        os.makedirs(BUILD, exist_ok=True)
        tmp = "%s.tmp%d" % (target, os.getpid())
        r = subprocess.run([tmp if a == target else a for a in cmd],
                           capture_output=True, text=True)
        if r.returncode != 0:
            raise RuntimeError("build of %s failed: %s" % (name, r.stderr))
        os.replace(tmp, target)
        with open(target + ".cmd", "w") as fh:
            fh.write(" ".join(cmd))
    return target


# -- running valgrind -------------------------------------------------------

def _make_selftest_vglib():
    d = os.path.join(BUILD, "vglib-selftest")
    with _build_lock:
        if not os.path.exists(os.path.join(d, "%s-amd64-linux" % OURS)):
            os.makedirs(d, exist_ok=True)
            for f in os.listdir(SYSTEM_VGLIB):
                link = os.path.join(d, f)
                try:                    # another process may be doing this
                    os.symlink(os.path.join(SYSTEM_VGLIB, f), link)
                except FileExistsError:
                    pass
            tmp = os.path.join(d, "tmp-link-%d" % os.getpid())
            os.symlink(os.path.join(SYSTEM_VGLIB, "%s-amd64-linux" % REF), tmp)
            os.replace(tmp, os.path.join(d, "%s-amd64-linux" % OURS))
    return d


def vglib():
    """The VALGRIND_LIB used for both tools (see the module docstring)."""
    if os.environ.get("CGBD_VGLIB"):
        d = os.environ["CGBD_VGLIB"]
    elif os.environ.get("CGBD_SELFTEST") == "1":
        d = _make_selftest_vglib()
    else:
        d = os.path.join(BUILDDIR, "vglib")
    if not os.path.exists(os.path.join(d, "%s-amd64-linux" % OURS)):
        raise RuntimeError("%s has no %s-amd64-linux (build first, or set "
                           "CGBD_SELFTEST=1)" % (d, OURS))
    return d


class Run:
    """Result of one valgrind run."""

    def __init__(self, tool, out, proc):
        self.tool = tool
        self.out = out              # --callgrind-out-file value
        self.returncode = proc.returncode
        self.stdout = proc.stdout
        self.stderr = proc.stderr

    def files(self):
        """Output files written: the base name, or with -NN / .N suffixes."""
        d, base = os.path.split(self.out)
        return sorted(os.path.join(d, f) for f in os.listdir(d)
                      if f == base or f.startswith(base + ".")
                      or f.startswith(base + "-"))


def _own_files(d, base):
    """The output files of a run named base in d (see Run.files)."""
    return [f for f in os.listdir(d)
            if f == base or f.startswith(base + ".") or f.startswith(base + "-")]


def run_tool(tool, client, opts, tag, name=None, shared=False):
    """Run client under tool with opts; profile into OUT/<tag>/<name>
    (default <tool>.out).

    cwd, environment and arguments are identical for both tools: the
    client's environment changes the loader's work and stack addresses.

    shared=True: a run whose command (tool, client, options) another
    check of this suite run has made already, or makes at the same time,
    is not made again; its outputs are copied (see _shared_run). Never for
    a run meant to be repeated (the reference's noise reruns)."""
    exe = build_client(client)
    outdir = os.path.join(OUT, tag)
    os.makedirs(outdir, exist_ok=True)
    name = name or "%s.out" % tool
    out = os.path.join(outdir, name)
    for f in _own_files(outdir, name):        # stale files of an earlier run
        os.unlink(os.path.join(outdir, f))
    args = list(opts) + ["./" + os.path.basename(exe)] + \
        CLIENT_ARGS.get(client, [])

    def run(out):
        env = dict(os.environ, VALGRIND_LIB=vglib())
        cmd = ["valgrind", "--tool=" + tool,
               "--callgrind-out-file=" + out] + args
        return subprocess.run(cmd, cwd=BUILD, env=env, capture_output=True,
                              text=True, timeout=RUN_TIMEOUT)
    if not shared:
        return Run(tool, out, run(out))
    return Run(tool, out, _shared_run([tool] + args, run, out))


class _Finished:
    """What Run keeps of a finished process (a stored shared run)."""

    def __init__(self, returncode, stdout, stderr):
        self.returncode, self.stdout, self.stderr = returncode, stdout, stderr


def _shared_run(key, run, out):
    """run(out) once per key in the whole suite run: the first caller runs
    it into OUT/shared/<hash>/ (other callers of the same key wait on its
    lock) and every caller gets a copy of the files, renamed to its out.
    Several test scripts share OUT when tests/run sets CGBD_OUT; what is
    stored is exactly what one run wrote, so each caller's checks see what
    a run of its own would have given."""
    d = os.path.join(OUT, "shared",
                     hashlib.sha1(json.dumps(key).encode()).hexdigest())
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        meta = os.path.join(d, "meta.json")
        if not os.path.exists(meta):
            proc = run(os.path.join(d, "run.out"))
            with open(meta + ".tmp", "w") as fh:
                json.dump({"key": key, "returncode": proc.returncode,
                           "stdout": proc.stdout, "stderr": proc.stderr}, fh)
            os.replace(meta + ".tmp", meta)
        with open(meta) as fh:
            m = json.load(fh)
        outdir, base = os.path.split(out)
        for f in _own_files(d, "run.out"):
            shutil.copy(os.path.join(d, f),
                        os.path.join(outdir, base + f[len("run.out"):]))
    return _Finished(m["returncode"], m["stdout"], m["stderr"])


def run_both(client, opts, tag, shared=False):
    """Run ours then the reference; return (ours, ref) Runs."""
    return (run_tool(OURS, client, opts, tag, shared=shared),
            run_tool(REF, client, opts, tag, shared=shared))


def run_problems(run, expect_rc=0):
    """Problems with a run itself: exit status, missing output."""
    if run.returncode != expect_rc:
        tail = " | ".join(run.stderr.strip().splitlines()[-3:])
        return ["%s exited %d (expected %d): %s"
                % (run.tool, run.returncode, expect_rc, tail)]
    if not os.path.exists(run.out):
        return ["%s wrote no %s" % (run.tool, run.out)]
    return []


def main_guard(fn):
    """Run a test script's main; an unexpected crash becomes a FAIL line."""
    try:
        sys.exit(fn())
    except Exception as e:
        print("FAIL %s: %s: %s" % (os.path.basename(sys.argv[0]),
                                   type(e).__name__, e), flush=True)
        sys.exit(1)
