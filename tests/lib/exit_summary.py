"""The exit summary on stderr (`Events    :`, `Collected :`, `I   refs:`,
the cache and branch lines): ours must print it exactly as the reference
does (DESIGN.md section 1: scripts scrape it).

Compared line by line, without the `==pid== ` prefix. Allowed to differ:
- the values of sysTime / sysCpuTime in `Collected :` (times);
- back-dated values (AcCost/SpLoss) in `Collected :` by exactly what the
  profiles' `totals:` differ by (the reference's own run-to-run noise,
  judged by compare.py on the profiles);
- when the two runs had different events (the reference ran other
  options, e.g. without --cacheuse), the `Events :` line, and `Collected :`
  is compared on the events both have;
- ours may end with the `D1 dep misses:` / `LL dep misses:` lines of
  --latency=yes (after an empty line), which the reference has not;
- a `miss rate:` line whose percentages differ by at most 0.1 in the last
  digit, the counts above it being equal: a rate is derived from counts
  compared exactly elsewhere, and Valgrind 3.27's reference was seen
  printing 1.2% where the same counts round to 1.3% (a one-off in CI, a
  value at the rounding edge).
"""

import re

import compare

_PREFIX = re.compile(r"^==\d+== ?")
TIME_EVENTS = ("sysTime", "sysCpuTime")


def summary_lines(stderr):
    """The exit summary: from `Events    :` to the end, prefixes removed,
    trailing blank lines dropped. [] if there is none."""
    lines = [_PREFIX.sub("", l) for l in stderr.splitlines()]
    start = next((i for i, l in enumerate(lines)
                  if l.startswith("Events    :")), None)
    if start is None:
        return []
    lines = lines[start:]
    while lines and not lines[-1].strip():
        lines.pop()
    return lines


def _values(line):
    return [int(v) for v in line.split(":", 1)[1].split()]


def _collected(events_line, collected_line):
    """{event: value}; events the line leaves out (trailing zeros) are 0."""
    events = events_line.split(":", 1)[1].split()
    values = _values(collected_line)
    return {e: (values[i] if i < len(values) else 0)
            for i, e in enumerate(events)}


def _collected_problems(ours, ref, same_events, totals):
    problems = []
    for e in ref:
        if e not in ours or e in TIME_EVENTS:
            continue
        if ours[e] == ref[e]:
            continue
        if e in compare.backdated_events([e]) and totals and \
                ours[e] - ref[e] == totals[0].get(e, 0) - totals[1].get(e, 0):
            continue                    # the reference's noise
        problems.append("Collected %s: ours %d, ref %d" % (e, ours[e], ref[e]))
    return problems


def _collected_text_ok(ours_line, ref_line, ours_events):
    """Same number of values written (the reference drops trailing zeros)."""
    return len(_values(ours_line)) == len(_values(ref_line)) \
        or any(e in TIME_EVENTS for e in ours_events)


_PERCENT = re.compile(r"(\d+\.\d)%")


def _rates_round_alike(a, b):
    """Two `miss rate:` lines that differ only in percentages, by at most
    0.1 each (see the module's docstring)."""
    if "miss rate:" not in a or _PERCENT.sub("%", a).split() != _PERCENT.sub("%", b).split():
        return False
    pa, pb = _PERCENT.findall(a), _PERCENT.findall(b)
    return len(pa) == len(pb) and all(abs(float(x) - float(y)) <= 0.1 + 1e-9
                                      for x, y in zip(pa, pb))


_LATENCY = ("D1 dep misses:", "LL dep misses:")


def _without_latency_lines(lines):
    """lines without the trailing --latency block (an empty line, then
    the dependent misses of D1 and LL)."""
    if len(lines) >= 3 and lines[-3] == "" \
            and all(l.startswith(p) for l, p in zip(lines[-2:], _LATENCY)):
        return lines[:-3]
    return lines


def summary_problems(ours_stderr, ref_stderr, totals=None):
    """Problems comparing two runs' exit summaries. totals: (ours, ref)
    `totals:` of the profiles, {event: value}, to judge back-dated noise."""
    o, r = summary_lines(ours_stderr), summary_lines(ref_stderr)
    if not r:
        return [] if not o else ["exit summary: only ours prints one"]
    if not o:
        return ["exit summary: ours prints none (ref: %r)" % r[0]]
    if len(o) < 2 or len(r) < 2 or not o[1].startswith("Collected :") \
            or not r[1].startswith("Collected :"):
        return ["exit summary: no Collected line (ours %r, ref %r)"
                % (o[:2], r[:2])]
    same_events = o[0] == r[0]
    co, cr = _collected(o[0], o[1]), _collected(r[0], r[1])
    problems = _collected_problems(co, cr, same_events, totals)
    if same_events and not problems and o[1] != r[1] \
            and not _collected_text_ok(o[1], r[1], co):
        problems.append("Collected line: ours %r, ref %r" % (o[1], r[1]))
    rest_o, rest_r = _without_latency_lines(o[2:]), r[2:]
    for i in range(max(len(rest_o), len(rest_r))):
        a = rest_o[i] if i < len(rest_o) else "(none)"
        b = rest_r[i] if i < len(rest_r) else "(none)"
        if a != b and not _rates_round_alike(a, b):
            problems.append("exit summary line %d: ours %r, ref %r"
                            % (i + 3, a, b))
            break                       # the rest usually follows
    return problems
