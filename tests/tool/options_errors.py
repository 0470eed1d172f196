#!/usr/bin/env python3
"""Bad command lines: every option fed malformed values, unknown options,
impossible cache geometries, profile files that cannot be created; then
a seeded random fuzz loop over option values.

Each bad command line must give exactly one error line (Valgrind's
"valgrind: ..." lines, not counting its standard "Use --help" hint) that
names the option or the file, a non-zero exit status, and the client
(tests/clients/marker.c, which creates the file named by its argument)
must not have run. No run may crash the tool (internal error, assertion,
panic). A fuzzed command line that is valid must run the client and
write a profile.

Environment: CGBD_FUZZ_SEED (default 20261122), CGBD_FUZZ_RUNS (default
48), CGBD_FUZZ_SECONDS (default 10: the loop stops starting runs then).
"""

import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "lib"))
import harness  # noqa: E402

CRASH = re.compile(r"internal error|Assertion|the 'impossible' happened|"
                   r"panic|Segmentation fault|core dumped|host stacktrace|"
                   r"Process terminating", re.I)

BOOL_OPTS = ["--dump-instr", "--dump-line", "--compress-strings",
             "--compress-pos", "--combine-dumps", "--separate-threads",
             "--skip-plt", "--skip-direct-rec", "--collect-atstart",
             "--instr-atstart", "--collect-jumps", "--collect-bus",
             "--cache-sim", "--simulate-cache", "--cacheuse", "--simulate-wb",
             "--simulate-hwpref", "--branch-sim", "--backdate",
             "--backdate-check", "--trace-jump", "--objects", "--defer-sim",
             "--pin-threads"]
NUM_OPTS = {"--separate-callers": (0, 1000), "--separate-recs": (1, 1000),
            "--dump-every-bb": (0, 1 << 62), "--ct-verbose": (0, 10),
            "--object-callers": (0, 16), "--object-granularity": (1, 1 << 30),
            "--interleave": (0, 100000)}
PATTERN_OPTS = ["--fn-skip", "--dump-before", "--dump-after",
                "--zero-before", "--toggle-collect", "--pop-on-jump"]
NUMBERED_OPTS = {"--separate-callers": (0, 1000), "--separate-recs": (1, 1000)}
CACHE_OPTS = ["--I1", "--D1", "--LL", "--L2"]
# the multi-core analyses and their sub-options (docs/robustness.md):
# fixed cases only (the fuzz loop's choices stay as they were)
MULTICORE_BOOL = ["--private-caches", "--sharing", "--bandwidth", "--paths",
                  "--miss-class", "--reuse-dist", "--latency"]
MULTICORE_NUM = {"--sharing-penalty": (1, 1000000, "--sharing=yes"),
                 "--bandwidth-window": (1, 65536, "--bandwidth=yes"),
                 "--interleave": (0, 100000, "--private-caches=yes"),
                 "--latency-window": (1, 1 << 30, "--latency=yes")}


def fixed_cases(tmp):
    """(command-line arguments, what the error line must name)."""
    cases = []
    for o in BOOL_OPTS:
        for v in ("maybe", "", "YES", "1"):
            cases.append(([o + "=" + v], o))
    for o, (lo, hi) in NUM_OPTS.items():
        for v in ("x", "", "-1", "+5", "1e3", str(hi + 1),
                  "99999999999999999999999", " 5"):
            cases.append(([o + "=" + v], o))
        if lo > 0:
            cases.append(([o + "=0"], o))
    for o, (lo, hi) in NUMBERED_OPTS.items():
        for a in ("%s3=" % o, "%s%d=f" % (o, hi + 1), "%s2x=f" % o,
                  "%s99999999999999999999=f" % o):
            cases.append(([a], o))
        if lo > 0:
            cases.append((["%s0=f" % o], o))
    for o in PATTERN_OPTS:
        cases.append(([o + "="], o))
    for v in ("", "sec", "YES", "nsecs"):
        cases.append((["--collect-systime=" + v], "--collect-systime"))
    for o in CACHE_OPTS:
        for v in ("", "32768", "32768,8", "32768,8,64,1", "a,b,c",
                  "-32768,8,64", "99999999999,8,64", "0,8,64",
                  "1000,2,64",          # set count not a power of two
                  "65536,8,8",          # line too small
                  "64,2,64",            # size <= line size
                  "65536,2048,64",      # associativity > size / line
                  "65536,8,48"):        # line not a power of two
            cases.append(([o + "=" + v], o))
    for a in ("--foo", "--collect-jumpz=yes", "--dump-instr",
              "--callgrind-out-fil=x", "--toggle-collect"):
        cases.append(([a], a.split("=")[0]))
    for v in ("", "x.%z", "x.%q", "x.%", "x.%q{}", "x.%q{CGBD_UNSET_VAR}"):
        cases.append((["--callgrind-out-file=" + v], "--callgrind-out-file"))
    regular = os.path.join(tmp, "regular-file")
    open(regular, "w").close()
    for path in (os.path.join(tmp, "no-such-dir", "p.out"),
                 os.path.join(regular, "p.out"), tmp):
        cases.append((["--callgrind-out-file=" + path], path))
    if os.geteuid() != 0:            # root may write anywhere
        ro = os.path.join(tmp, "read-only")
        os.mkdir(ro, 0o555)
        path = os.path.join(ro, "p.out")
        cases.append((["--callgrind-out-file=" + path], path))
    cases.append((["--backdate-check=yes"], "--backdate-check"))
    # --separate-par=<function>:<n>[:<b1>,<b2>,...]: n 1..6, borders
    # 64-bit integers, strictly increasing
    for v in ("", "fib2", ":1", "fib2:", "fib2:x", "fib2:0", "fib2:7",
              "fib2:-1", "fib2:+1", "fib2:99999999999999999999", "fib2:1x",
              "fib2:1:", "fib2:1:a", "fib2:1:5,", "fib2:1:5,,6", "fib2:1:5,5",
              "fib2:1:10,5", "fib2:1:1:2", "fib2:1:99999999999999999999",
              "ns::f:7", "fib2:1:" + ",".join(str(b) for b in range(65))):
        cases.append((["--separate-par=" + v], "--separate-par"))
    cases += multicore_cases()
    # options that mean something only with another one
    cases.append((["--object-callers=3"], "--object-callers"))
    cases.append((["--object-granularity=64"], "--object-granularity"))
    cases.append((["--objects=no", "--object-callers=0"], "--object-callers"))
    cases.append((["--sharing-penalty=20"], "--sharing-penalty"))
    cases.append((["--interleave=100"], "--interleave"))
    cases.append((["--pin-threads=no"], "--pin-threads"))
    cases.append((["--private-caches=yes", "--interleave=0", "--pin-threads=yes"],
                  "--pin-threads"))
    # the turns need the ticket lock
    cases.append((["--private-caches=yes", "--fair-sched=no"], "--fair-sched"))
    cases.append((["--sharing=yes", "--fair-sched=no"], "--fair-sched"))
    cases.append((["--sharing=yes", "--interleave=0", "--pin-threads=no"],
                  "--pin-threads"))
    cases.append((["--bandwidth=yes", "--interleave=50", "--fair-sched=no"],
                  "--fair-sched"))
    # the objects profile's directory is the profile's: the same check
    cases.append((["--objects=yes", "--callgrind-out-file="
                   + os.path.join(tmp, "no-such-dir", "p.out")],
                  os.path.join(tmp, "no-such-dir", "p.out")))
    # a granule below the cache line (64 bytes here)
    cases.append((["--objects=yes", "--D1=32768,8,64", "--LL=262144,8,64",
                   "--object-granularity=32"], "--object-granularity"))
    return cases


def multicore_cases():
    """Bad, missing (bare option) and out-of-range values of the
    multi-core analyses' options, given with the option they need (so
    that the value is what is refused); values the needed option does
    not take; and the turns' options with a value but without turns."""
    cases = []
    for o in MULTICORE_BOOL:
        for v in ("", "maybe", "on"):
            cases.append(([o + "=" + v], o))
        cases.append(([o], o))                      # no value
    for o, (lo, hi, needs) in MULTICORE_NUM.items():
        for v in ("", "x", str(lo - 1), str(hi + 1), "5k"):
            cases.append(([needs, o + "=" + v], o))
        cases.append(([needs, o], o))
    for v in ("", "cycles"):
        cases.append((["--bandwidth=yes", "--bandwidth-unit=" + v],
                      "--bandwidth-unit"))
    cases.append((["--bandwidth=yes", "--bandwidth-unit"], "--bandwidth-unit"))
    cases.append((["--bandwidth=yes", "--bandwidth-limits"],
                  "--bandwidth-limits"))
    cases.append((["--bandwidth=yes", "--bandwidth-limits="],
                  "--bandwidth-limits"))
    cases.append((["--private-caches=yes", "--pin-threads=2"],
                  "--pin-threads"))
    cases.append((["--sharing=yes", "--interleave=0", "--pin-threads=yes"],
                  "--pin-threads"))
    cases.append((["--bandwidth=yes", "--private-caches=no",
                   "--interleave=5"], "--interleave"))
    cases.append((["--bandwidth=yes", "--fair-sched=no"], "--fair-sched"))
    cases.append((["--paths=yes", "--cacheuse=yes", "--backdate=no"],
                  "--paths"))
    return cases


def run(args, tmp, index):
    """Run marker under our tool; return (proc, marker existed, profile)."""
    exe = harness.build_client("marker")
    marker = os.path.join(tmp, "marker-%d" % index)
    default_out = os.path.join(tmp, "default-%d.out" % index)
    opts = list(args)
    if not any(a.startswith("--callgrind-out-file=") for a in args):
        opts.insert(0, "--callgrind-out-file=" + default_out)
    env = dict(os.environ, VALGRIND_LIB=harness.vglib())
    env.pop("CGBD_UNSET_VAR", None)
    proc = subprocess.run(["valgrind", "--tool=" + harness.OURS] + opts
                          + [exe, marker], cwd=tmp, env=env,
                          capture_output=True, text=True,
                          errors="replace", timeout=harness.RUN_TIMEOUT)
    return proc, os.path.exists(marker)


def error_lines(stderr):
    return [l for l in stderr.splitlines()
            if l.startswith("valgrind: ") and "Use --help" not in l]


def crash_problems(proc):
    bad = [l for l in proc.stderr.splitlines() if CRASH.search(l)]
    if proc.returncode < 0 or proc.returncode > 128 or bad:
        return ["crash (exit %d): %s" % (proc.returncode, " | ".join(bad[:3]))]
    return []


def rejected_problems(proc, ran, names):
    """A refused command line: one error line naming it, exit != 0, the
    client not started."""
    problems = crash_problems(proc)
    errs = error_lines(proc.stderr)
    if proc.returncode == 0:
        problems.append("accepted (exit 0)")
    if ran:
        problems.append("the client ran")
    if len(errs) != 1:
        problems.append("%d error lines: %s" % (len(errs), errs[:3]
                                                or proc.stderr[-300:]))
    elif names and names not in errs[0]:
        problems.append("error line does not name %r: %s" % (names, errs[0]))
    return problems


def fixed_case(args, names, tmp, index):
    def check():
        proc, ran = run(args, tmp, index)
        return [("options/bad/%s" % " ".join(args),
                 rejected_problems(proc, ran, names))]
    return check


# -- fuzzing --------------------------------------------------------------

JUNK = "abcyesno0123456789-+=,*?%{}qp/ ."


def junk(rnd):
    return "".join(rnd.choice(JUNK) for _ in range(rnd.randint(0, 8)))


def fuzz_value(rnd, kind, lo=0, hi=0):
    if rnd.random() < 0.3:              # a valid value
        if kind == "bool":
            return rnd.choice(["yes", "no"])
        if kind == "num":
            return str(rnd.randint(lo, min(hi, 10 ** 6)))
        if kind == "pattern":
            return rnd.choice(["main", "ma*", "m?in", "*", "zz*"])
        if kind == "systime":
            return rnd.choice(["no", "yes", "msec", "usec", "nsec"])
        if kind == "cache":
            return rnd.choice(["32768,8,64", "65536,2,64", "262144,8,64"])
    return rnd.choice([junk(rnd), "", str(rnd.randint(-10 ** 12, 10 ** 12)),
                       "9" * rnd.randint(15, 30), junk(rnd) + "=" + junk(rnd)])


def fuzz_arg(rnd):
    kind = rnd.choice(["bool", "num", "pattern", "numbered", "systime",
                       "cache", "unknown"])
    if kind == "bool":
        return "%s=%s" % (rnd.choice(BOOL_OPTS), fuzz_value(rnd, "bool"))
    if kind == "num":
        o = rnd.choice(sorted(NUM_OPTS))
        return "%s=%s" % (o, fuzz_value(rnd, "num", *NUM_OPTS[o]))
    if kind == "pattern":
        return "%s=%s" % (rnd.choice(PATTERN_OPTS), fuzz_value(rnd, "pattern"))
    if kind == "numbered":
        o = rnd.choice(sorted(NUMBERED_OPTS))
        return "%s%s=%s" % (o, fuzz_value(rnd, "num", *NUMBERED_OPTS[o]),
                            fuzz_value(rnd, "pattern"))
    if kind == "systime":
        return "--collect-systime=" + fuzz_value(rnd, "systime")
    if kind == "cache":
        return "%s=%s" % (rnd.choice(CACHE_OPTS), fuzz_value(rnd, "cache"))
    return "--" + junk(rnd)


def fuzz_check(proc, ran, args, tmp, index):
    """Either a clean run with a profile, or a clean refusal."""
    problems = crash_problems(proc)
    if problems:
        return problems
    if proc.returncode == 0:
        if not ran:
            problems.append("exit 0 but the client did not run")
        if not any(f.startswith("default-%d.out" % index)
                   for f in os.listdir(tmp)):
            problems.append("exit 0 but no profile")
        return problems
    return rejected_problems(proc, ran, None)


def fuzz_case(tmp):
    """One result for the whole loop: every problem found, and how many
    command lines were tried, accepted and refused."""
    seed = int(os.environ.get("CGBD_FUZZ_SEED", "20261122"))
    runs = int(os.environ.get("CGBD_FUZZ_RUNS", "48"))
    budget = float(os.environ.get("CGBD_FUZZ_SECONDS", "10"))

    def check():
        rnd = random.Random(seed)
        lines = [[fuzz_arg(rnd) for _ in range(rnd.randint(1, 3))]
                 for _ in range(runs)]
        start = time.time()
        problems, accepted, refused = [], 0, 0
        for i, args in enumerate(lines):
            if time.time() - start > budget:
                break
            index = 10000 + i
            proc, ran = run(args, tmp, index)
            found = fuzz_check(proc, ran, args, tmp, index)
            problems += ["%s: %s" % (" ".join(args), p) for p in found]
            if proc.returncode == 0:
                accepted += 1
            else:
                refused += 1
        note = ("seed %d: %d command lines, %d accepted, %d refused"
                % (seed, accepted + refused, accepted, refused))
        return [("options/fuzz", problems, note)]
    return check


def same_error_with_objects(tmp):
    """A missing output directory gets the same one line with and without
    --objects=yes (it names the profile and the reason)."""
    def check():
        path = os.path.join(tmp, "no-such-dir", "q.out")
        lines = []
        for i, extra in enumerate(([], ["--objects=yes"])):
            proc, ran = run(extra + ["--callgrind-out-file=" + path], tmp,
                            20000 + i)
            lines.append(error_lines(proc.stderr))
        problems = []
        if lines[0] != lines[1]:
            problems.append("without --objects %s, with it %s" % tuple(lines))
        if lines[0] and "no such file or directory" not in lines[0][0]:
            problems.append("no reason given: %s" % lines[0][0])
        return [("options/objects-out-dir", problems)]
    return check


def main():
    tmp = tempfile.mkdtemp(prefix="cgbd-options-")
    try:
        cases = [("options/bad/" + " ".join(a), fixed_case(a, n, tmp, i))
                 for i, (a, n) in enumerate(fixed_cases(tmp))]
        cases.append(("options/objects-out-dir", same_error_with_objects(tmp)))
        cases.append(("options/fuzz", fuzz_case(tmp)))
        return harness.run_cases(cases)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    harness.main_guard(main)
