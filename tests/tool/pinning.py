#!/usr/bin/env python3
"""--pin-threads (default yes with the turns of --interleave): the client's
threads run on one host CPU while two or more live, and the client does
not see it (callgrind/pinning.c).

clients/affinity.c prints, per look, the CPUs in the mask that
sched_getaffinity gives the thread (`get`) and in its /proc
Cpus_allowed_list (`proc`, the kernel's real mask). N = the CPUs the
test itself may run on (os.sched_getaffinity: the client inherits it).

1. look: main before the threads and after the joins, and a fork's child
   while the workers run: get = proc = N (no pin outside the turns; the
   child gets the mask back). Each worker midway: get = N (the client's
   view), proc = 1 when N > 1 (pinned), and -v counts pins (the
   client's setting of another process's affinity, its parent's, at the
   start does not turn pinning off). With --pin-threads=no: proc = N
   everywhere, no pin line.
2. set: worker 0 sets its own mask to one CPU: it sees get = proc = 1
   (its own choice, not dressed up); worker 1, looking after that, has
   its mask back (get = proc = N), and -v says pinning is off.
3. The profile does not depend on pinning: clients/interleave.c's false
   pattern with --interleave=10 (10,000 turns, so the home CPU is looked
   for again 39 times, each time one turn unpinned): bump_loop's D1Fs,
   D1Ts and Inv are the same with --pin-threads=no and =yes, and -v
   counts a pin at least every 256 turns.
"""

import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "lib"))
import cgfile        # noqa: E402
import harness       # noqa: E402

PRIVATE = ["--private-caches=yes", "-v"]
ITERS = 50000                # clients/interleave.c
REHOME_TURNS = 256           # callgrind/pinning.c
N = len(os.sched_getaffinity(0))
_FLAGS = ["-O2", "-pthread", "-Wl,-z,now"]
harness.CLIENT_BUILD.update({
    "affinity_look": (["affinity.c"], "gcc", ["-O1", "-pthread"]),
    "affinity_set": (["affinity.c"], "gcc", ["-O1", "-pthread"]),
    "pin_false": (["interleave.c"], "gcc", _FLAGS + ["-DPATTERN=0"]),
})
harness.CLIENT_ARGS.update({"affinity_look": ["look"], "affinity_set": ["set"]})


def looks(run):
    """{who: (get, proc)} from the client's lines."""
    return {m.group(1): (int(m.group(2)), int(m.group(3)))
            for m in re.finditer(r"^(\S+) get=(-?\d+) proc=(-?\d+)$", run.stdout, re.M)}


def pin_lines(run):
    return re.findall(r"interleave: (\d+) pins to one host CPU.*", run.stderr)


def want(seen, who, get, proc):
    if who not in seen:
        return ["no look by %s" % who]
    if seen[who] != (get, proc):
        return ["%s: get=%d proc=%d, expected get=%d proc=%d"
                % ((who,) + seen[who] + (get, proc))]
    return []


def look_case(pin):
    def check():
        name = "pinning/look/%s" % ("default" if pin else "no")
        opts = PRIVATE + ([] if pin else ["--pin-threads=no"])
        run = harness.run_tool(harness.OURS, "affinity_look", opts, name,
                               name="out.%p")
        problems = [] if run.returncode == 0 else ["exited %d" % run.returncode]
        seen = looks(run)
        pinned = 1 if pin and N > 1 else N
        for who in ("main-start", "child", "main-end"):
            problems += want(seen, who, N, N)
        for who in ("worker0", "worker1"):
            problems += want(seen, who, N, pinned)
        pins = pin_lines(run)
        if pin and (not pins or int(pins[-1]) == 0):
            problems.append("-v counts no pin: %s" % pins)
        if "(pinning off)" in run.stderr:
            problems.append("-v says pinning off")
        if not pin and pins:
            problems.append("pins with --pin-threads=no: %s" % pins)
        return [(name, problems, "N=%d, workers' proc %s" % (N, seen.get("worker0")))]
    return check


def set_case():
    def check():
        name = "pinning/client-sets"
        run = harness.run_tool(harness.OURS, "affinity_set", PRIVATE, name)
        problems = harness.run_problems(run)
        seen = looks(run)
        for who in ("worker0", "worker0-end"):
            problems += want(seen, who, 1, 1)
        for who in ("worker1", "worker1-end", "main-end"):
            problems += want(seen, who, N, N)
        if "(pinning off)" not in run.stderr:
            problems.append("-v does not say pinning is off")
        return [(name, problems)]
    return check


def loop_counts(opts, tag):
    run = harness.run_tool(harness.OURS, "pin_false",
                           PRIVATE + ["--interleave=10"] + opts, tag)
    part = cgfile.parse(run.out).merged()
    loop = [f for n, f in part.fns.items() if n.startswith("bump_loop")]
    counts = {e: loop[0].self_cost.get(e, 0) for e in ("D1Fs", "D1Ts", "Inv")} \
        if len(loop) == 1 else None
    return run, counts


def same_profile_case():
    def check():
        name = "pinning/same-profile"
        off, c_off = loop_counts(["--pin-threads=no"], name + "/no")
        on, c_on = loop_counts([], name + "/yes")
        problems = harness.run_problems(off) + harness.run_problems(on)
        if problems:
            return [(name, problems)]
        if c_on is None or c_on != c_off:
            problems.append("bump_loop %s pinned, %s not" % (c_on, c_off))
        turns = 2 * ITERS // 10
        pins = pin_lines(on)
        if N > 1 and (not pins or int(pins[0]) < turns // REHOME_TURNS):
            problems.append("%s pins for %d turns, expected at least %d"
                            % (pins, turns, turns // REHOME_TURNS))
        return [(name, problems, "bump_loop %s, pins %s" % (c_on, pins))]
    return check


def main():
    cases = [("pinning/look/default", look_case(True)),
             ("pinning/look/no", look_case(False)),
             ("pinning/client-sets", set_case()),
             ("pinning/same-profile", same_profile_case())]
    return harness.run_cases(cases)


if __name__ == "__main__":
    harness.main_guard(main)
