#!/usr/bin/env python3
"""Controlling a running program: monitor commands and callgrind-bd_control.

longrun.c works in rounds until a stop file appears, writing its round
count to a progress file. The same scenario runs under our tool (driven by
control/callgrind-bd_control) and, at the same time, under the reference
(driven by the installed callgrind_control):

    dump "first", dump, zero, status (-s, -e -b), instrumentation off/on,
    then the stop file. Between two commands the test waits until the
    client has finished two more rounds (polling, never sleeping blindly);
    dumps, zero and instrumentation switches are sent while the client is
    paused between rounds, so the test knows how many rounds each part
    covers.

Checked for each run: the controller's answers; the files
(callgrind.out.<pid>.1, .2 and callgrind.out.<pid>, with `part:` 1, 2, 3 and
`desc: Trigger:` "dump first", "dump", "Program termination"); each file
parses and passes callgrind_annotate; work()'s call count in each part is
exactly the number of rounds the part covers: the rounds run between the
second dump and the zero, and while instrumentation was off, are in no
part. Ours only: the back-dating oracle
(--backdate-check): summed over the parts before the zero no arc has more
back-dated than immediate lines (they arrive at eviction, never before the
load), and the part after the zero is exact on every arc, because a zero
forgets the lines loaded before it. Compared with the reference: the same
files, parts and triggers, and the same shape of the controllers' output.

Also: the monitor commands through vgdb directly (help, status, status
internal, instrumentation), -k, program-name targets, and the
controller's errors on bad arguments.
"""

import os
import re
import shutil
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "lib"))
import annotate_check  # noqa: E402
from cgbd import cgfile    # noqa: E402
import harness   # noqa: E402

CONTROL = os.path.join(harness.BUILDDIR, "control", "callgrind-bd_control")
REF_CONTROL = shutil.which("callgrind_control") or "callgrind_control"
# small caches, so that lines are evicted all the time
GEOM = ["--I1=32768,8,64", "--D1=32768,8,64", "--LL=262144,8,64"]
COMMON = ["--cache-sim=yes", "--cacheuse=yes"] + GEOM
OURS_OPTS = COMMON + ["--backdate-check=yes"]
DEADLINE = 90          # seconds for any single wait; a hang is a failure
CLIENT_LIMIT = "150"   # the client stops by itself after this many seconds
PAIRS = (("L1ld", "L1ldB"), ("LLld", "LLldB"))
TRIGGERS = ["dump first", "dump", "Program termination"]


class Session:
    """longrun under one tool, in its own directory, and its controller."""

    def __init__(self, tool, controller, opts, tag):
        self.tool = tool
        self.controller = controller
        self.dir = os.path.join(harness.OUT, tag)
        shutil.rmtree(self.dir, ignore_errors=True)
        os.makedirs(self.dir)
        self.stop = os.path.join(self.dir, "stop")
        self.progress = os.path.join(self.dir, "progress")
        self.pause_file = os.path.join(self.dir, "pause")
        exe = harness.build_client("longrun")
        env = dict(os.environ, VALGRIND_LIB=harness.vglib())
        self.out = open(os.path.join(self.dir, "client.out"), "w")
        self.err = open(os.path.join(self.dir, "valgrind.err"), "w")
        self.proc = subprocess.Popen(
            ["valgrind", "--tool=" + tool] + opts
            + [exe, self.stop, self.progress, self.pause_file, CLIENT_LIMIT],
            cwd=self.dir, env=env, stdout=self.out, stderr=self.err)
        self.pid = self.proc.pid

    def progress_state(self):
        """(finished rounds, 'R' running or 'P' paused)."""
        try:
            with open(self.progress) as fh:
                count, state = fh.read().split()
            return int(count), state
        except (OSError, ValueError):
            return 0, "R"

    def rounds(self):
        return self.progress_state()[0]

    def poll_until(self, done, what):
        end = time.time() + DEADLINE
        while not done():
            if self.proc.poll() is not None:
                raise RuntimeError("%s: client ended early (status %d)"
                                   % (self.tool, self.proc.returncode))
            if time.time() > end:
                raise RuntimeError("%s: %s not seen in %d s"
                                   % (self.tool, what, DEADLINE))
            time.sleep(0.01)

    def wait_rounds(self, n):
        """Until n more rounds have finished."""
        target = self.rounds() + n
        self.poll_until(lambda: self.rounds() >= target, "progress")

    def paused(self, *args):
        """Run the controller while the client waits between two rounds;
        returns (rounds finished before it, controller result)."""
        open(self.pause_file, "w").close()
        self.poll_until(lambda: self.progress_state()[1] == "P", "pause")
        before = self.rounds()
        try:
            return before, self.control(*args)
        finally:
            os.unlink(self.pause_file)

    def control(self, *args, target=True):
        cmd = [self.controller] + list(args) + ([str(self.pid)] if target else [])
        p = subprocess.run(cmd, capture_output=True, text=True,
                           timeout=DEADLINE)
        return p.returncode, p.stdout, p.stderr

    def vgdb(self, command):
        p = subprocess.run(["vgdb", "--pid=%d" % self.pid, command],
                           capture_output=True, text=True, timeout=DEADLINE)
        return p.stdout

    def wait_listed(self):
        """Until the controller lists the run (its gdbserver is up)."""
        end = time.time() + DEADLINE
        while True:
            rc, out, _ = self.control(target=False)
            if re.search(r"^PID %d: " % self.pid, out, re.M):
                return out
            if self.proc.poll() is not None or time.time() > end:
                raise RuntimeError("%s: run never listed by %s: %s"
                                   % (self.tool, self.controller, out.strip()))
            time.sleep(0.05)

    def finish(self):
        open(self.stop, "w").close()
        try:
            self.proc.wait(timeout=DEADLINE)
        finally:
            self.close()
        return self.proc.returncode

    def close(self):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        self.out.close()
        self.err.close()

    def client_rounds(self):
        with open(os.path.join(self.dir, "client.out")) as fh:
            m = re.search(r"rounds (\d+)", fh.read())
        return int(m.group(1)) if m else None

    def parts(self):
        """Profile files in part order: .1, .2, ..., then the final one."""
        base = "callgrind.out.%d" % self.pid
        names = [f for f in os.listdir(self.dir) if f.startswith("callgrind.out")]
        def order(f):
            suffix = f[len(base) + 1:]
            return int(suffix) if suffix.isdigit() else 1 << 30
        return sorted(names, key=order), base


def status_values(text):
    return dict(m.groups() for m in re.finditer(r"^([a-z0-9-]+): (.*)$", text, re.M))


def first_cost(text, key):
    v = status_values(text).get(key)
    return int(v.split()[0]) if v else None


def scenario(s):
    """Drive one run through the commands; return what was seen."""
    seen = {}
    s.wait_rounds(1)
    seen["list"] = s.wait_listed()
    at = {}                     # rounds finished when a command acted
    at["dump1"], seen["dump1"] = s.paused("--dump=first")
    s.wait_rounds(2)
    at["dump2"], seen["dump2"] = s.paused("--dump")
    seen["status_after_dumps"] = s.vgdb("status internal")
    s.wait_rounds(2)
    seen["before_zero"] = s.vgdb("status internal")
    at["zero"], seen["zero"] = s.paused("-z")
    seen["after_zero"] = s.vgdb("status internal")
    s.wait_rounds(2)
    seen["stat"] = s.control("-s")
    seen["events_back"] = s.control("-e", "-b")
    at["off"], seen["off"] = s.paused("-i", "off")
    seen["query_off"] = s.vgdb("instrumentation")
    seen["stat_off"] = s.control("-s")
    s.wait_rounds(2)
    at["on"], seen["on"] = s.paused("-i", "on")
    s.wait_rounds(2)
    seen["at"] = at
    seen["rc"] = s.finish()
    seen["rounds"] = s.client_rounds()
    return seen


def run_session(tool, controller, opts, tag):
    s = Session(tool, controller, opts, tag)
    try:
        return s, scenario(s)
    except Exception:
        s.close()
        raise


# -- checks -------------------------------------------------------------------

def controller_problems(s, seen):
    problems = []
    head = r"^PID %d: \S*longrun \S+ \S+ \S+ %s\n" % (s.pid, CLIENT_LIMIT)
    for key in ("dump1", "dump2", "zero", "off", "on"):
        rc, out, err = seen[key]
        if rc != 0 or not re.fullmatch(head + r"  OK\.\n", out):
            problems.append("%s: exit %d, output %r %r" % (key, rc, out, err))
    rc, out, _ = seen["stat"]
    want = (head + r"  Number of running threads: 1, thread IDs: 1\n"
            r"  Events collected: [A-Za-z0-9 ]+\n"
            r"  Functions: [\d,]+ \(executed [\d,]+, contexts [\d,]+\)\n"
            r"  Basic blocks: [\d,]+ \(executed [\d,]+, call sites [\d,]+\)\n\n")
    if rc != 0 or not re.fullmatch(want, out):
        problems.append("-s: exit %d, output %r" % (rc, out))
    rc, out, _ = seen["events_back"]
    if (rc != 0 or not re.search(r"^  Totals: +Ir ", out, re.M)
            or not re.search(r"^   Th 1 +[\d,]+ ", out, re.M)
            or "Backtrace for Thread 1" not in out
            or not re.search(r"^   \[ ?\d+\]  .* main \(\d+ x\)$", out, re.M)):
        problems.append("-e -b: exit %d, output %r" % (rc, out))
    rc, out, _ = seen["stat_off"]
    if not out.endswith("  No information available as instrumentation is "
                        "switched off.\n\n"):
        problems.append("-s while off: %r" % out)
    if seen["query_off"].strip() != "instrumentation: off":
        problems.append("instrumentation query while off: %r" % seen["query_off"])
    return problems


def frame_rows(text):
    """The -e -b back trace: (event names, [(function, {event: value})]),
    '.' read as 0."""
    m = re.search(r"^  Frame: +(.*?) Backtrace for Thread 1$", text, re.M)
    if not m:
        return [], []
    names = m.group(1).split()
    rows = []
    for line in text[m.end():].splitlines():
        f = re.match(r"^   \[ ?\d+\]  (.*)$", line)
        if not f:
            continue
        toks = f.group(1).split()
        values = [0 if t == "." else int(t.replace(",", ""))
                  for t in toks[:len(names)]]
        rows.append((" ".join(toks[len(names):]), dict(zip(names, values))))
    return names, rows


def live_view_problems(seen):
    """The live view of back-dated events shows what is known so far on
    every frame: lines loaded under a frame that have left the cache
    (L1ldB) are never more than the lines it loaded (L1ld), and main,
    whose callees loaded and evicted lines in every round, has some."""
    problems = []
    names, rows = frame_rows(seen["events_back"][1])
    if "L1ldB" not in names or not rows:
        return ["-e -b shows no L1ldB column: %r" % seen["events_back"][1]]
    for fn, v in rows:
        if v["L1ldB"] > v["L1ld"]:
            problems.append("%s: L1ldB %d > L1ld %d" % (fn, v["L1ldB"], v["L1ld"]))
    main = [v for fn, v in rows if fn.startswith("main ")]
    if not main or main[0]["L1ldB"] == 0 or main[0]["SpLoss1"] == 0:
        problems.append("main shows no back-dated cost so far: %s" % main)
    return problems


def status_problems(seen, profile_events):
    problems = []
    v = status_values(seen["status_after_dumps"])
    want = {"instrumentation": "on", "part": "2", "threads": "1",
            "events": " ".join(profile_events)}
    for key, value in want.items():
        if v.get(key) != value:
            problems.append("status internal after 2 dumps: %s: %r, expected %r"
                            % (key, v.get(key), value))
    for key in ("executed-bbs", "executed-calls", "distinct-bbs",
                "distinct-calls", "distinct-functions", "distinct-contexts",
                "frames-1"):
        if not re.fullmatch(r"\d+", v.get(key, "")) or int(v[key]) == 0:
            problems.append("status internal: %s: %r" % (key, v.get(key)))
    # (that the zero drops costs is shown exactly by work()'s call counts
    # in file_problems; the running client moves on between two commands)
    for key in ("before_zero", "after_zero"):
        if first_cost(seen[key], "events-1") is None:
            problems.append("status internal (%s) has no events-1" % key)
    return problems


def calls_of(part, fn):
    return sum(a.calls for (caller, callee), a in part.arcs.items()
               if callee == fn)


def file_problems(s, seen, annotate=True):
    """Names, parts, triggers, parsing, annotate, call counts. (The
    reference's files with --cacheuse make callgrind_annotate warn: its
    summary: lacks AcCost/SpLoss; see REF_KNOWN_FAILURES in harness.py.)"""
    names, base = s.parts()
    want = [base + ".1", base + ".2", base]
    if names != want:
        return ["files %s, expected %s" % (names, want)], []
    problems, parts = [], []
    for n, name in enumerate(names):
        path = os.path.join(s.dir, name)
        profile = cgfile.parse(path)
        part = profile.merged()
        parts.append(part)
        if profile.parts[0].info.get("part") != str(n + 1):
            problems.append("%s: part %s, expected %d"
                            % (name, profile.parts[0].info.get("part"), n + 1))
        if "Trigger: " + TRIGGERS[n] not in part.descs:
            problems.append("%s: trigger %s, expected %r"
                            % (name, [d for d in part.descs if d.startswith("Trigger")],
                               TRIGGERS[n]))
        if annotate:
            problems += ["%s: %s" % (name, p)
                         for p in annotate_check.check_annotate(path)]
    # rounds covered by each part; the rounds between the second dump and
    # the zero, and those while instrumentation was off, are in none
    at, total = seen["at"], seen["rounds"]
    want = [at["dump1"], at["dump2"] - at["dump1"],
            (at["off"] - at["zero"]) + (total - at["on"])]
    calls = [calls_of(p, "work") for p in parts]
    if calls != want or min(want) < 1:
        problems.append("work() calls per part %s, rounds covered %s "
                        "(commands at rounds %s, %s rounds in all)"
                        % (calls, want, at, total))
    return problems, parts


def oracle_problems(parts):
    """Before the zero: never more back-dated than immediate lines on an
    arc (summed over the parts so far); after it: exact on every arc."""
    problems = []
    cumulative = {}
    for n, part in enumerate(parts[:-1]):
        for key, arc in part.arcs.items():
            cgfile.add_cost(cumulative.setdefault(key, {}), arc.inclusive)
        for key, c in sorted(cumulative.items()):
            for imm, bd in PAIRS:
                if c.get(bd, 0) > c.get(imm, 0):
                    problems.append("parts 1..%d, arc %s -> %s: %s %d > %s %d"
                                    % (n + 1, key[0], key[1], bd, c.get(bd, 0),
                                       imm, c.get(imm, 0)))
    last = parts[-1]
    for key, arc in sorted(last.arcs.items()):
        for imm, bd in PAIRS:
            a, b = arc.inclusive.get(imm, 0), arc.inclusive.get(bd, 0)
            if a != b:
                problems.append("part after the zero, arc %s -> %s: %s %d != %s %d"
                                % (key[0], key[1], imm, a, bd, b))
    tot = last.totals or {}
    for imm, bd in PAIRS:
        if tot.get(imm, 0) != tot.get(bd, 0) or tot.get(imm, 0) == 0:
            problems.append("part after the zero, totals: %s %d, %s %d"
                            % (imm, tot.get(imm, 0), bd, tot.get(bd, 0)))
    return problems[:20]


def shape(text, s):
    """Controller output with the run's own details masked."""
    text = text.replace(str(s.pid), "<pid>").replace(s.dir, "<dir>")
    text = re.sub(r"Events collected: .*", "Events collected: <events>", text)
    text = re.sub(r"\S*longrun", "<exe>", text)
    return re.sub(r"[\d,]+", "#", text)


def status_keys(text):
    """The keys of a "status internal" answer, thread and frame numbers
    masked (the call stacks of the two tools need not be equally deep)."""
    return {re.sub(r"\d+", "N", k) for k in status_values(text)}


def compare_problems(ours, seen_o, ref, seen_r):
    problems = []
    names_o, _ = ours.parts()
    names_r, _ = ref.parts()
    if len(names_o) != len(names_r):
        problems.append("%d files, reference %d" % (len(names_o), len(names_r)))
    for a, b in zip(names_o, names_r):
        pa = cgfile.parse(os.path.join(ours.dir, a)).parts[0]
        pb = cgfile.parse(os.path.join(ref.dir, b)).parts[0]
        ta = sorted(d for d in pa.descs if d.startswith("Trigger"))
        tb = sorted(d for d in pb.descs if d.startswith("Trigger"))
        if ta != tb or pa.info.get("part") != pb.info.get("part"):
            problems.append("%s: part %s %s, reference %s: part %s %s"
                            % (a, pa.info.get("part"), ta, b, pb.info.get("part"), tb))
    keys_o = status_keys(seen_o["status_after_dumps"])
    keys_r = status_keys(seen_r["status_after_dumps"])
    if keys_o != keys_r:
        problems.append("status internal keys: ours %s, reference %s"
                        % (sorted(keys_o), sorted(keys_r)))
    for key in ("dump1", "dump2", "zero", "stat", "off", "stat_off", "on"):
        so, sr = shape(seen_o[key][1], ours), shape(seen_r[key][1], ref)
        if so != sr:
            problems.append("%s output: ours %r, reference %r" % (key, so, sr))
    return problems


def scenario_case():
    with ThreadPoolExecutor(max_workers=2) as pool:
        f_ours = pool.submit(run_session, harness.OURS, CONTROL, OURS_OPTS,
                             "control-ours")
        f_ref = pool.submit(run_session, harness.REF, REF_CONTROL, COMMON,
                            "control-ref")
        ours, seen_o = f_ours.result()
        ref, seen_r = f_ref.result()
    results = []
    for label, s, seen in (("ours", ours, seen_o), ("reference", ref, seen_r)):
        run = []
        if seen["rc"] != 0:
            run.append("exit status %d" % seen["rc"])
        files, parts = file_problems(s, seen, annotate=(label == "ours"))
        results.append(("control/%s/files" % label, run + files))
        if label == "ours":
            results.append(("control/ours/controller", controller_problems(s, seen)))
            events = parts[0].events if parts else []
            results.append(("control/ours/status", status_problems(seen, events)))
            results.append(("control/ours/live-view", live_view_problems(seen)))
            results.append(("control/ours/oracle",
                            oracle_problems(parts) if len(parts) == 3
                            else ["no parts to check"]))
    results.append(("control/compare-reference",
                    compare_problems(ours, seen_o, ref, seen_r)))
    return results


def same_output_problems(s):
    """The layout, that is: numbers masked, and frame lines reduced to
    their form (the client moves on between the two calls, so the stack
    may differ)."""
    def masked(text):
        text = re.sub(r"[\d,]+", "#", text)
        text = re.sub(r"^( +\[ ?#\] +(?:[#.] +)*)\S.*?( \(# x\))?$",
                      r"\1<fn>\2", text, flags=re.M)
        text = re.sub(r"(^ +\[ ?#\] .*<fn> \(# x\)\n)+", r"\1", text,
                      flags=re.M)
        return re.sub(r" +", " ", text)
    problems = []
    for args in ([], ["-s"], ["-b"], ["-e"], ["-e", "-b"], ["-e", "Dr,Ir", "-b"]):
        ours = s.control(*args)[1]
        ref = subprocess.run([REF_CONTROL] + args + [str(s.pid)],
                             capture_output=True, text=True,
                             timeout=DEADLINE)
        if "-e" in args and "-b" in args and REF_E_B_BUG in ref.stderr:
            # upstream's rewritten callgrind_control (3.21 and later) dies
            # on -e ... -b before the backtrace: nothing to compare with
            SKIPPED_REF.add(" ".join(args))
            continue
        if masked(ours) != masked(ref.stdout):
            problems.append("%s: ours %r, callgrind_control %r"
                            % (" ".join(args), ours, ref.stdout))
    return problems


# the error of upstream's callgrind_control 3.21+ on -e ... -b
REF_E_B_BUG = "as an ARRAY ref"
SKIPPED_REF = set()


def monitor_case():
    """vgdb straight to the tool: help, status, instrumentation; then -k
    and program-name targets of the controller."""
    s = Session(harness.OURS, CONTROL, OURS_OPTS, "control-monitor")
    problems = []
    try:
        s.wait_rounds(1)
        s.wait_listed()
        help_text = s.vgdb("help")
        for line in ("callgrind-bd monitor commands:", "  dump [<dump_hint>]",
                     "  zero", "  status", "  instrumentation [on|off]",
                     "        get/set (if on/off given) instrumentation state"):
            if line not in help_text.splitlines():
                problems.append("help lacks %r" % line)
        if s.vgdb("status").strip() != "1 thread(s) running.":
            problems.append("status: %r" % s.vgdb("status"))
        if s.vgdb("instrumentation").strip() != "instrumentation: on":
            problems.append("instrumentation: %r" % s.vgdb("instrumentation"))
        v = status_values(s.vgdb("st internal"))      # unique prefix
        if v.get("part") != "0" or v.get("current-tid") != "1":
            problems.append("status internal before any dump: %r" % v)
        if "not recognised" not in s.vgdb("frobnicate") + s.vgdb("frobnicate"):
            problems.append("unknown command not reported by vgdb")
        rc, out, _ = s.control("longrun", target=False)   # program name
        if rc != 0 or not re.search(r"^PID %d: " % s.pid, out, re.M):
            problems.append("name target: exit %d, %r" % (rc, out))
        # the installed callgrind_control finds our runs too (its filter
        # --tool=callgrind matches --tool=callgrind-bd): both controllers on
        # the same run print the same, up to the numbers
        if shutil.which("callgrind_control"):
            problems += same_output_problems(s)
        rc, out, _ = s.control("-k")
        if rc != 0 or not out.endswith("  OK.\n"):
            problems.append("-k: exit %d, %r" % (rc, out))
        try:
            s.proc.wait(timeout=DEADLINE)
        except subprocess.TimeoutExpired:
            problems.append("-k: the run is still alive")
        if s.rounds() == 0 or os.path.exists(s.stop):
            problems.append("-k: the client had not run or was stopped otherwise")
    finally:
        s.close()
    note = None
    if SKIPPED_REF:
        note = ("callgrind_control %s not compared: it dies with '%s' "
                "(Valgrind 3.21 and later)" % (", ".join(sorted(SKIPPED_REF)),
                                              REF_E_B_BUG))
    return [("control/monitor", problems, note)]


def usage_case():
    """Bad arguments: one line on stderr naming the problem, exit 2;
    a target that is not running: exit 1."""
    problems = []
    for args, code, word in ((["--bogus"], 2, "--bogus"),
                             (["-i", "maybe"], 2, "'on' or 'off'"),
                             (["--instr=sideways"], 2, "'on' or 'off'"),
                             (["4000000000"], 1, "4000000000")):
        p = subprocess.run([CONTROL] + args, capture_output=True, text=True,
                           timeout=DEADLINE)
        lines = p.stderr.strip().splitlines()
        if p.returncode != code or len(lines) != 1 or word not in lines[0]:
            problems.append("%s: exit %d, stderr %r" % (args, p.returncode, p.stderr))
    p = subprocess.run([CONTROL, "--version"], capture_output=True, text=True)
    if not re.fullmatch(r"callgrind-bd_control-\S+\n", p.stdout):
        problems.append("--version: %r" % p.stdout)
    p = subprocess.run([CONTROL, "-h"], capture_output=True, text=True)
    if p.returncode != 0 or "--vgdb-prefix=<prefix>" not in p.stdout:
        problems.append("-h: %r" % p.stdout[:200])
    return [("control/usage", problems)]


FAKE_VGDB = """#!/bin/sh
# vgdb -l as it lists runs under Debian's wrapper (valgrind.bin) and under
# a self-built Valgrind (argv[0] as started: valgrind, or a path)
if [ "$1" = "-l" ]; then
   echo "use --pid=101 for /usr/bin/valgrind.bin --tool=callgrind-bd ./deb"
   echo "use --pid=102 for valgrind --tool=callgrind-bd --cache-sim=yes ./own"
   echo "use --pid=103 for /opt/vg/bin/valgrind --tool=callgrind-bd ./opt"
   echo "use --pid=104 for valgrind --tool=callgrind ./reference"
fi
"""


def launcher_case():
    """Runs are found whatever the launcher's name in `vgdb -l` (Debian's
    valgrind.bin, a self-built valgrind): a copy of the controller talks
    to a stand-in vgdb that lists one run of each kind."""
    problems = []
    d = os.path.join(harness.BUILD, "control-launcher-%d" % os.getpid())
    os.makedirs(d, exist_ok=True)
    try:
        vgdb = os.path.join(d, "vgdb")
        with open(vgdb, "w") as fh:
            fh.write(FAKE_VGDB)
        os.chmod(vgdb, 0o755)
        with open(CONTROL) as fh:
            text = fh.read()
        ctl = os.path.join(d, "control")
        with open(ctl, "w") as fh:
            fh.write(re.sub(r'(?m)^CONFIGURED_VGDB = .*$',
                            'CONFIGURED_VGDB = %r' % vgdb, text))
        os.chmod(ctl, 0o755)
        p = subprocess.run([ctl], capture_output=True, text=True,
                           timeout=DEADLINE)
        for pid, prog in (("101", "./deb"), ("102", "./own"), ("103", "./opt")):
            if not re.search(r"\b%s\b.*%s" % (pid, re.escape(prog)), p.stdout):
                problems.append("run %s (%s) not listed: %r" % (pid, prog, p.stdout))
        if "104" in p.stdout or "reference" in p.stdout:
            problems.append("the reference's run listed: %r" % p.stdout)
    finally:
        shutil.rmtree(d, ignore_errors=True)
    return [("control/launcher-names", problems)]


def main():
    if not os.access(CONTROL, os.X_OK):
        harness.report("control", ["%s not built (make)" % CONTROL])
        return 1
    return harness.run_cases([("control/scenario", scenario_case),
                              ("control/monitor", monitor_case),
                              ("control/usage", usage_case),
                              ("control/launcher-names", launcher_case)])


if __name__ == "__main__":
    harness.main_guard(main)
