#!/usr/bin/env python3
"""--interleave=<blocks>: with --private-caches=yes, threads take turns
every N blocks, so that coherence sees the sharing of a program written
the natural way (no hand-over inside its loop).

1. clients/interleave.c, three builds: two workers run bump_loop, ITERS
   iterations of one `incq` to memory each, one superblock per iteration
   (so a turn of N blocks is N iterations), without synchronisation.
   Derivation: the turns of the two workers alternate (the tool's queue);
   at every hand-over from one worker to the other inside the loops, the
   incoming worker's first access misses: the other core stored to the
   line during its turn and so invalidated this core's copy.
     false   (pair.a / pair.b, one line): every such miss touches none of
             the bytes the other wrote: D1Fs(bump_loop) = hand-overs,
             D1Ts = 0.  The loops hold 2 ITERS blocks, so 2 ITERS / N
             turns: hand-overs = 2 ITERS / N - 1, less the few turns that
             straddle a loop's start or end (the thread's own code before
             and after the loop counts towards its turns) -- at most
             SLACK of them.
     true    (one counter): the same count as D1Ts, D1Fs = 0.
     padded  (a line each): no coherence miss at all in the loop.
   With --interleave=0 (Valgrind's slices of 100,000 blocks) the false
   pattern shows the old lower bound: at most a few D1Fs.  N = 1000 and
   the default (100) are checked against the formula; the same command
   twice gives the same bump_loop counts (the order counts blocks).

2. A single-threaded program's profile is byte-identical with the default
   interleaving and with --interleave=0 (but for the `cmd:` and `pid:`
   lines): no turn ends while one thread exists.  (Without --cacheuse:
   the loader's AcCost varies between identical runs anyway, see
   private_caches.py.)

3. The two analyses agree: on the manual's false sharing example
   (examples/false-sharing.c) and the thesis' sieve with
   schedule(static,1) (clients/sieve_omp.c), the function with the most
   D1Fs under --private-caches=yes is the function that touched the line
   --sharing=yes ranks first (its most frequent accessor); the padded
   example and the chunked sieve show no D1Fs in their kernels.

4. A fork while two threads run: the child has one thread, so it takes
   no turns and waits for nobody (-v: "0 waits cut short" in the child;
   its stale queue would make it wait for threads it does not have).

5. --fair-sched=no given with the interleaving is refused in one line
   (the turns need the ticket lock); with --interleave=0 it runs.
   Malformed values: tests/tool/options_errors.py.

6. Which system calls end a turn: clients/turn_calls.c, the false
   pattern of 1 with a system call in every iteration of the loop
   (bump_call_loop: the call ends the iteration's first superblock, so
   two a iteration; CALL_ITERS each).
     write   (0 bytes to /dev/null, a call that comes back by itself):
             part of the turn, which the others wait out although the
             core releases the lock around the call.  So the turns are
             N blocks as in 1: 4 CALL_ITERS / N turns, hand-overs
             4 CALL_ITERS / N - 1 less SLACK.  (Before, the thread that
             got the lock during the call took the turn over when its
             OS thread was quick enough: at N = 2000, 14 hand-overs
             instead of 39, and other counts under load.)
     yield   (sched_yield, a call that waits for the others): ends the
             turn at once, so the threads alternate every iteration:
             2 CALL_ITERS - 1 hand-overs less SLACK.  (Before: whichever
             OS thread got the lock first; 25,624 in one run.)
   D1Ts = 0 in both; the write case twice gives the same counts.

7. After an exit_group, no thread runs another block (clients/exit_stop.c):
   the worker spins, one superblock an iteration, loading `stop` and
   adding to `spun` while it is clear; main makes a call that is part of
   its turn (so the worker waits for its turn inside the tool, past the
   core's check of whether the process ends), then sets `stop` and calls
   exit_group in one superblock. So no iteration may find `stop` set:
   every instruction of the loop runs equally often (the load one more
   time than the add if the worker ran on after the exit), with the
   turns of --private-caches, --sharing and --bandwidth and under
   Valgrind's own schedule; the process ends with status 0.

8. A call that is part of the turn but blocks until another thread acts
   (clients/blocked_call.c: a write of 256 KiB to a pipe that holds 64
   KiB, a reader thread draining it; the open of a FIFO whose reader is
   the other thread): the owner's turn ends once its OS thread has slept
   in the kernel for 20 ms, so the other thread runs. -v: no wait cut short
   (before: the reader waited 20,000 yields, about a third of a second,
   and was let in by the cut), at least one turn ended by a call that
   blocked; the client gets its data through (exit 0, its count printed).

9. A futex wait that ends a turn sleeps before the next turn runs
   (clients/barrier_pair.c: two threads meet at a barrier twice): eight
   runs give the same profile (before, the wait returned EAGAIN when the
   next turn changed its word before the waiter's OS thread reached the
   kernel: Ir 2 more or less in 3 runs of 10). Likewise wake-two
   (clients/wake_two.c): threads one wake-up woke queue by thread id.

10. The turns go on while instrumentation is off
   (clients/instr_off_spin.c: the worker switches it off and spins on a
   flag main sets): -v says no wait was cut short and the client prints
   3000, in two runs, with the turns of --private-caches and of
   --sharing. (Before: the uninstrumented worker kept its turn, main
   waited 20,000 yields for it, 8 to 20 s.) The two runs' profiles are
   not compared: they differ by 2 Ir in `clone` in some runs (not
   understood; docs/robustness.md).
"""

import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "lib"))
import cgfile        # noqa: E402
import harness       # noqa: E402

ITERS = 50000                # clients/interleave.c
CALL_ITERS = 20000           # clients/turn_calls.c
DEFAULT_N = 500              # CB_DEFAULT_INTERLEAVE (callgrind/global.h)
SLACK = 10                   # turns straddling a loop's start or end
PRIVATE = ["--private-caches=yes", "--I1=32768,8,64", "--D1=32768,8,64",
           "--LL=262144,8,64"]
EXAMPLES = os.path.join(harness.TOP, "examples")
_FLAGS = ["-O2", "-pthread", "-Wl,-z,now"]
_EXAMPLE = [os.path.join(EXAMPLES, "false-sharing.c")]
_SIEVE = (["sieve_omp.c"], "gcc", ["-O1", "-fopenmp"])
harness.CLIENT_BUILD.update({
    "interleave_false": (["interleave.c"], "gcc", _FLAGS + ["-DPATTERN=0"]),
    "interleave_true": (["interleave.c"], "gcc", _FLAGS + ["-DPATTERN=1"]),
    "interleave_padded": (["interleave.c"], "gcc", _FLAGS + ["-DPATTERN=2"]),
    "il_false_sharing": (_EXAMPLE, "gcc", ["-O1", "-pthread"]),
    "il_false_sharing_pad": (_EXAMPLE, "gcc", ["-O1", "-pthread", "-DPAD"]),
    "il_sieve_static1": _SIEVE,
    "il_sieve_chunked": _SIEVE,
})
harness.CLIENT_BUILD["interleave_fork"] = harness.CLIENT_BUILD["interleave_false"]
for _call in ("write", "yield"):
    harness.CLIENT_BUILD["turn_calls_" + _call] = (["turn_calls.c"], "gcc", _FLAGS)
    harness.CLIENT_ARGS["turn_calls_" + _call] = [_call]
harness.CLIENT_BUILD["exit_stop"] = (["exit_stop.c"], "gcc", ["-O1", "-pthread"])
for _mode in ("pipe", "fifo"):
    harness.CLIENT_BUILD["blocked_" + _mode] = (["blocked_call.c"], "gcc", ["-O1", "-pthread"])
    harness.CLIENT_ARGS["blocked_" + _mode] = [_mode]
harness.CLIENT_BUILD["wake_two"] = (["wake_two.c"], "gcc", ["-O1", "-pthread"])
harness.CLIENT_BUILD["instr_off_spin"] = (["instr_off_spin.c"], "gcc", ["-O1", "-pthread"])
harness.CLIENT_BUILD["barrier_pair"] = (["barrier_pair.c"], "gcc", ["-O1", "-pthread"])
harness.CLIENT_ARGS.update({"il_sieve_static1": ["1"], "il_sieve_chunked": ["0"],
                            "interleave_fork": ["fork"]})
# libgomp's idle threads would spin through their turns
os.environ.setdefault("OMP_WAIT_POLICY", "passive")


def fn_costs(run, pattern):
    """Self cost of the one function whose name matches pattern."""
    part = cgfile.parse(run.out).merged()
    hits = [f for name, f in part.fns.items() if re.search(pattern, name)]
    if len(hits) != 1:
        raise RuntimeError("%d functions match %r in %s"
                           % (len(hits), pattern, run.out))
    return hits[0].self_cost


def loop_counts(client, opts, tag, loop="bump_loop"):
    run = harness.run_tool(harness.OURS, client, PRIVATE + opts, tag)
    problems = harness.run_problems(run)
    if problems:
        return None, problems
    c = fn_costs(run, r"^" + loop)
    return {e: c.get(e, 0) for e in ("D1Fs", "D1Ts", "Inv")}, []


def expected(pattern, n):
    """{event: (lo, hi)} of bump_loop (docstring, 1)."""
    handovers = 2 * ITERS // n - 1
    span = (max(handovers - SLACK, 0), handovers)
    none = (0, 0)
    return {"false": {"D1Fs": span, "D1Ts": none},
            "true": {"D1Fs": none, "D1Ts": span},
            "padded": {"D1Fs": none, "D1Ts": none}}[pattern]


def outside(counts, want, loop="bump_loop"):
    return ["%s %s = %d, expected %d..%d" % (loop, e, counts[e], lo, hi)
            for e, (lo, hi) in want.items() if not lo <= counts[e] <= hi]


def pattern_case(pattern, n):
    def check():
        name = "interleave/%s/N=%s" % (pattern, n or "default")
        opts = ["--interleave=%d" % n] if n else []
        counts, problems = loop_counts("interleave_" + pattern, opts, name)
        if counts is None:
            return [(name, problems)]
        return [(name, outside(counts, expected(pattern, n or DEFAULT_N)),
                 "D1Fs %d, D1Ts %d" % (counts["D1Fs"], counts["D1Ts"]))]
    return check


def valgrind_schedule_case():
    def check():
        name = "interleave/false/N=0"
        counts, problems = loop_counts("interleave_false", ["--interleave=0"], name)
        if counts is None:
            return [(name, problems)]
        bound = 10
        if counts["D1Fs"] > bound:
            problems.append("bump_loop D1Fs = %d under Valgrind's schedule, "
                            "expected at most %d" % (counts["D1Fs"], bound))
        return [(name, problems, "D1Fs %d" % counts["D1Fs"])]
    return check


def repeat_case():
    def check():
        name = "interleave/false/same-twice"
        first, p1 = loop_counts("interleave_false", [], name + "-1")
        second, p2 = loop_counts("interleave_false", [], name + "-2")
        problems = p1 + p2
        if not problems and first != second:
            problems.append("bump_loop %s then %s" % (first, second))
        return [(name, problems)]
    return check


def same_runs_case(name, client, runs):
    """`runs` runs of client under --private-caches give the same profile
    (but cmd:)."""
    def check():
        outs = [harness.run_tool(harness.OURS, client, PRIVATE, "%s-%d" % (name, i))
                for i in range(runs)]
        problems = [p for r in outs for p in harness.run_problems(r)]
        if not problems:
            first = without_cmd(outs[0].out)
            problems += ["%s and %s differ" % (outs[0].out, r.out)
                         for r in outs[1:] if without_cmd(r.out) != first]
        return [(name, problems)]
    return check


def wake_two_case():
    """clients/wake_two.c: a barrier's last thread wakes two threads with
    one futex wake-up, every round. Three runs give the same profile: the
    two woken queue by thread id, not in the order the kernel let them out
    of their waits (which returned before the waker's call in some runs
    and not in others: three different profiles in four runs before)."""
    return same_runs_case("interleave/wake-two/same-thrice", "wake_two", 3)


def futex_wait_case():
    """clients/barrier_pair.c: two threads meet at a barrier twice. Eight
    runs give the same profile: a futex wait that ends a turn sleeps in
    the kernel before the next turn changes its word (before: its wait
    returned EAGAIN in some runs, Ir 2 more or less, 3 runs of 10)."""
    return same_runs_case("interleave/futex-wait/same-8x", "barrier_pair", 8)


def cut_short(run):
    """The -v line's count of waits for a turn cut short (None: no line)."""
    m = re.search(r"interleave: .* (\d+) waits cut short", run.stderr)
    return int(m.group(1)) if m else None


def instr_off_case(opts, tag):
    """clients/instr_off_spin.c (docstring, 10)."""
    def check():
        name = "interleave/instr-off-spin/" + tag
        runs = [harness.run_tool(harness.OURS, "instr_off_spin", opts + ["-v"],
                                 "%s-%d" % (name, i)) for i in range(2)]
        problems = [p for r in runs for p in harness.run_problems(r)]
        for r in runs:
            cut = cut_short(r)
            if cut is None:
                problems.append("no interleave line (-v): %s" % r.stderr[-300:])
            elif cut:
                problems.append("%d waits cut short, expected none" % cut)
            if r.stdout.split() != ["3000"]:
                problems.append("client printed %r, expected 3000" % r.stdout[-100:])
        return [(name, problems)]
    return check


def turn_calls_case(call, n):
    """clients/turn_calls.c (docstring, 6)."""
    def check():
        name = "interleave/calls/%s/N=%s" % (call, n or "default")
        opts = ["--interleave=%d" % n] if n else []
        counts, problems = loop_counts("turn_calls_" + call, opts, name, "bump_call_loop")
        if counts is None:
            return [(name, problems)]
        if call == "yield":
            handovers = 2 * CALL_ITERS - 1
        else:
            handovers = 4 * CALL_ITERS // (n or DEFAULT_N) - 1
        want = {"D1Fs": (max(handovers - SLACK, 0), handovers), "D1Ts": (0, 0)}
        if call == "write":
            again, p2 = loop_counts("turn_calls_" + call, opts, name + "-again",
                                    "bump_call_loop")
            problems += p2
            if again is not None and again != counts:
                problems.append("bump_call_loop %s, then %s" % (counts, again))
        return [(name, problems + outside(counts, want, "bump_call_loop"),
                 "D1Fs %d" % counts["D1Fs"])]
    return check


def without_cmd(path):
    with open(path) as fh:
        return [l for l in fh if not l.startswith(("cmd:", "pid:"))]


def single_thread_case(client):
    def check():
        name = "interleave/single-thread/%s" % client
        runs = [harness.run_tool(harness.OURS, client, PRIVATE + o,
                                 "%s/%s" % (name, tag))
                for tag, o in (("default", []), ("off", ["--interleave=0"]))]
        problems = harness.run_problems(runs[0]) + harness.run_problems(runs[1])
        return [(name, problems)]
    return check


def top_sharing_function(run):
    """The most frequent accessor of the line --sharing ranks first."""
    with open(run.out + ".sharing.txt") as fh:
        txt = fh.read()
    m = re.search(r"^ +1 +\d+.*\n.*loads.*\n((?: +\d+  (?! ).*\n)+)", txt, re.M)
    if not m:
        raise RuntimeError("no rank 1 line in %s.sharing.txt" % run.out)
    users = [re.match(r" +(\d+)  (\S+)", l).groups() for l in m.group(1).splitlines()]
    return max(users, key=lambda u: int(u[0]))[1]


def top_d1fs_function(run):
    part = cgfile.parse(run.out).merged()
    name, f = max(part.fns.items(), key=lambda kv: kv[1].self_cost.get("D1Fs", 0))
    return name, f.self_cost.get("D1Fs", 0)


def agree_case(client, kernel, shared):
    """shared: the program has false sharing in kernel (or none at all)."""
    def check():
        name = "interleave/agree/%s" % client
        priv = harness.run_tool(harness.OURS, client, PRIVATE, name + "/private")
        problems = harness.run_problems(priv)
        if problems:
            return [(name, problems)]
        k = fn_costs(priv, r"^%s" % re.escape(kernel)).get("D1Fs", 0)
        if not shared:
            if k:
                problems.append("%s: %d D1Fs, expected none" % (kernel, k))
            return [(name, problems)]
        est = harness.run_tool(harness.OURS, client, ["--sharing=yes"], name + "/sharing")
        problems = harness.run_problems(est)
        if problems:
            return [(name, problems)]
        top, count = top_d1fs_function(priv)
        rank1 = top_sharing_function(est)
        if not top.startswith(kernel) or not rank1.startswith(kernel):
            problems.append("most D1Fs: %s (%d); --sharing's rank 1 line's "
                            "code: %s; expected both %s" % (top, count, rank1, kernel))
        return [(name, problems, "%s: %d D1Fs" % (top, count))]
    return check


def fork_case():
    def check():
        name = "interleave/fork"
        run = harness.run_tool(harness.OURS, "interleave_fork",
                               PRIVATE + ["-v", "--callgrind-out-file=%s/fork.%%p"
                                          % os.path.join(harness.OUT, name)], name)
        problems = [] if run.returncode == 0 else ["exited %d" % run.returncode]
        waits = re.findall(r"^[=-]{2}(\d+)[=-]{2} interleave: .* (\d+) waits cut short",
                           run.stderr, re.M)
        cut = [int(n) for _, n in waits]
        if len(cut) != 2:
            problems.append("%d interleave lines (-v), expected parent and child: %s"
                            % (len(cut), run.stderr[-300:]))
        elif any(cut):
            problems.append("waits cut short: %s" % cut)
        return [(name, problems)]
    return check


def blocked_call_case(mode, opts, tag):
    """clients/blocked_call.c (docstring, 8)."""
    def check():
        name = "interleave/blocked-call/%s/%s" % (mode, tag)
        run = harness.run_tool(harness.OURS, "blocked_" + mode, opts + ["-v"], name)
        problems = harness.run_problems(run)
        m = re.search(r"interleave: .* (\d+) waits cut short, (\d+) turns ended by a "
                      r"call that blocked", run.stderr)
        if not m:
            problems.append("no interleave line (-v): %s" % run.stderr[-300:])
        else:
            cut, blocked = int(m.group(1)), int(m.group(2))
            if cut:
                problems.append("%d waits cut short, expected none" % cut)
            if blocked < 1:
                problems.append("no turn ended by a call that blocked")
        want = "262144" if mode == "pipe" else "1"
        if run.stdout.split() != [want]:
            problems.append("client printed %r, expected %s" % (run.stdout[-100:], want))
        return [(name, problems, m and "%s turns ended" % m.group(2))]
    return check


def fair_sched_case(opts, refused):
    def check():
        name = "interleave/fair-sched-no%s" % ("" if refused else "/N=0")
        run = harness.run_tool(harness.OURS, "interleave_padded",
                               PRIVATE + ["--fair-sched=no"] + opts, name)
        errs = [l for l in run.stderr.splitlines() if l.startswith("valgrind: ")]
        if refused:
            problems = []
            if run.returncode == 0:
                problems.append("accepted")
            if len(errs) != 1 or "--fair-sched" not in errs[0]:
                problems.append("error lines: %s" % (errs or run.stderr[-300:]))
            if os.path.exists(run.out):
                problems.append("the client ran (%s written)" % run.out)
        else:
            problems = harness.run_problems(run)
        return [(name, problems)]
    return check


def instruction_counts(path, fn):
    """{instruction address: executions} of fn (a --dump-instr=yes file)."""
    reader = cgfile.Reader(path)
    counts = {}
    for rec in reader.records():
        if rec[0] == "cost" and rec[1][3] == fn:
            instr = rec[2][reader.positions.index("instr")]
            counts[instr] = counts.get(instr, 0) + (rec[3][0] if rec[3] else 0)
    return counts


def exit_stop_case(opts, tag):
    """clients/exit_stop.c (docstring, 7)."""
    def check():
        name = "interleave/exit-group/" + tag
        run = harness.run_tool(harness.OURS, "exit_stop", opts + ["--dump-instr=yes"], name)
        problems = harness.run_problems(run)
        if problems:
            return [(name, problems)]
        loop = {a: n for a, n in instruction_counts(run.out, "spin").items() if n > 1000}
        if len(loop) != 5:
            problems.append("spin's loop: %d instructions ran more than 1000 "
                            "times, expected its 5" % len(loop))
        elif len(set(loop.values())) != 1:
            problems.append("spin's loop instructions ran %s times: a thread ran "
                            "on after the exit_group" % sorted(set(loop.values())))
        return [(name, problems, "spin loop %s" % sorted(set(loop.values())))]
    return check


def main():
    cases = []
    for pattern in ("false", "true", "padded"):
        cases.append(("interleave/%s/N=default" % pattern, pattern_case(pattern, 0)))
    cases.append(("interleave/false/N=1000", pattern_case("false", 1000)))
    cases.append(("interleave/false/N=0", valgrind_schedule_case()))
    cases.append(("interleave/false/same-twice", repeat_case()))
    cases.append(("interleave/wake-two/same-thrice", wake_two_case()))
    cases.append(("interleave/futex-wait/same-8x", futex_wait_case()))
    for client in ("calls", "cacheuse", "recursion"):
        cases.append(("interleave/single-thread/%s" % client, single_thread_case(client)))
    cases.append(("interleave/agree/il_false_sharing",
                  agree_case("il_false_sharing", "count_multiples", True)))
    cases.append(("interleave/agree/il_false_sharing_pad",
                  agree_case("il_false_sharing_pad", "count_multiples", False)))
    cases.append(("interleave/agree/il_sieve_static1",
                  agree_case("il_sieve_static1", "sieve_interleaved", True)))
    cases.append(("interleave/agree/il_sieve_chunked",
                  agree_case("il_sieve_chunked", "sieve_chunked", False)))
    cases.append(("interleave/calls/write/N=2000", turn_calls_case("write", 2000)))
    cases.append(("interleave/calls/yield/N=default", turn_calls_case("yield", 0)))
    cases.append(("interleave/fork", fork_case()))
    for mode in ("pipe", "fifo"):
        for opts, tag in ((PRIVATE, "private-caches"), (["--sharing=yes"], "sharing")):
            cases.append(("interleave/blocked-call/%s/%s" % (mode, tag),
                          blocked_call_case(mode, opts, tag)))
    for opts, tag in ((PRIVATE, "private-caches"), (["--sharing=yes"], "sharing")):
        cases.append(("interleave/instr-off-spin/" + tag, instr_off_case(opts, tag)))
    cases.append(("interleave/fair-sched-no", fair_sched_case([], True)))
    cases.append(("interleave/fair-sched-no/N=0",
                  fair_sched_case(["--interleave=0"], False)))
    for opts, tag in ((PRIVATE, "private-caches"), (["--sharing=yes"], "sharing"),
                      (["--bandwidth=yes"], "bandwidth"),
                      (PRIVATE + ["--interleave=0", "--fair-sched=yes"], "N=0")):
        cases.append(("interleave/exit-group/" + tag, exit_stop_case(opts, tag)))
    return harness.run_cases(cases)


if __name__ == "__main__":
    harness.main_guard(main)
