"""callgrind-bd_merge: profiles of one program merged into one profile.

Model. Inputs are profiles of the same program (MPI ranks, threads of
--separate-threads=yes, repeated runs): the same executable (first word of
`cmd:`), the same `events:` and `positions:`. A part of a file (a dump) is
merged with the parts of the same number (`part:`) of the other files.
Within a part, a cost centre is a key:

  --stat=sum:  every self cost line (object, file, function, inline file,
               position), call arc (the same for caller and call site,
               callee's object/file/function, target position) and jump
               line; the sum is exact, so everything that holds for each
               input holds for the merge: totals, conservation of inclusive
               costs (back-dated ones included), call counts.
  other stats: a function's self cost (object, file, function), a call
               arc's inclusive cost and call count (caller and callee
               functions), a jump line. Each file's lines are summed to
               these first, then the statistic is taken over the files:
               max / min / mean (rounded to the nearest integer) /
               imbalance = max - mean, where a file without the cost centre
               counts as 0. The value is written at the first position the
               cost centre had, so callgrind_annotate and KCachegrind show
               one line per function.

Streaming: files are read one at a time. With sum, each line is added in
place to the running sums; otherwise a file's lines are first summed per
function, arc and jump in a table of its own, which is folded into the
running statistic (sum, max, min and how many files had the key) and
dropped. Memory follows the number of distinct cost centres (about the
size of the largest input), not the number of files. Parts of separate
dump files are merged one part number at a time.

MPI mode (under mpirun/srun with more than one process, or --mpi=yes):
each process merges a contiguous block of the files, then the running
statistics are combined along a binomial tree (log2(K) rounds) to process
0, which writes the output. The combination is associative and the output
sorted, so the file is the one the serial merge writes.

Errors (unreadable or malformed file, different programs, events or
positions) are one line on stderr, exit status 1, and no output file:
outputs are written under temporary names and renamed only at the end.
"""

import os
import sys
import time
from array import array

from cgbd import cgfile

PROG = "callgrind-bd_merge"
STATS = ("sum", "max", "min", "mean", "imbalance")
RANK_DESC = "MPI rank: "        # the tool's desc: line naming the rank

USAGE = """\
usage: %(prog)s [-o OUT] [--stat=sum|max|min|mean|imbalance] [--mpi=auto|yes|no] FILE...

Merges Callgrind-format profiles of the same program (MPI ranks, threads
from --separate-threads=yes, repeated runs) into one profile.

  -o OUT, --out=OUT  output file (default callgrind.out.merged); with
                     several dump parts: OUT.1, OUT.2, ... and the last
                     part in OUT, as Callgrind names a run's dumps
  --stat=sum         costs and call counts summed (default, exact)
  --stat=max|min|mean
                     per function self cost and per call arc, over the files
  --stat=imbalance   max - mean per function and call arc: where ranks
                     wait for the slowest one
  --mpi=auto|yes|no  merge as an MPI program (a reduction tree over the
                     processes); auto: when started by mpirun or srun with
                     more than one process (default auto)
  -h, --help         this text
  --version          the version
"""


class MergeError(Exception):
    """A problem with the inputs; its text is the one-line message."""


# -- one file's part reduced to the merge's keys -------------------------

def _pad(costs, n):
    return costs + [0] * (n - len(costs)) if len(costs) < n else list(costs)


class FilePart:
    """The header of one part of one input file; with a statistic other
    than sum also its costs summed per function, call arc and jump line."""

    def __init__(self, path, index):
        self.path = path
        self.number = index            # `part:` when the file says it
        self.info = {}                 # pid, thread, cmd
        self.events = []
        self.positions = ["line"]
        self.event_defs = []
        self.descs = []
        self.summary = None
        self.totals = None
        self.cost_sum = []             # its cost lines summed (self costs)
        self.multi = False             # one of several parts in its file
        self.selfc, self.calls, self.jumps = {}, {}, {}

    def header(self, key, value):
        if key == "part":
            try:
                self.number = int(value)
            except ValueError:
                raise MergeError("%s: part: %r is not a number"
                                 % (self.path, value))
        elif key in ("pid", "thread", "cmd"):
            self.info[key] = value
        elif key == "events":
            self.events = value.split()
        elif key == "positions":
            self.positions = value.split() or ["line"]
        elif key == "event":
            self.event_defs.append(value)
        elif key == "desc":
            self.descs.append(value)


# Keys of the tables (fnid = (ob, fl, fn), a missing name written ""):
#   self costs  (fnid, fi, pos)                 or (fnid,) per function
#   calls       (fnid, fi, pos, callee, target) or (fnid, callee) per
#               function; callee = (cob, cfi, cfn)
#   jumps       (fnid, fi, pos, kind, (jfi, jfn), target)
# Vectors: costs in events order; a call's count first; [followed,
# executed] for a jump. With --stat=sum the tables are the running sums
# (key -> array of int64, the file's lines added in place, the position
# in the key). Otherwise each file's part gets its own tables, key ->
# [where, list]: where = (fi, pos[, target]), the first place seen, is
# what is written for per-function keys.

def where_of(kind, key):
    """The written place of a line-level key."""
    if kind == "calls":
        return (key[1], key[2], key[4])
    return (key[1], key[2])


def _add_sum(table, key, costs, n):
    vec = table.get(key)
    if vec is None:
        vec = table[key] = array("q", bytes(8 * n))
    for i, v in enumerate(costs):
        vec[i] += v


def _add_first(table, key, where, costs, n):
    entry = table.get(key)
    if entry is None:
        table[key] = [where, _pad(costs, n)]
        return
    if where < entry[0]:
        entry[0] = where
    vec = entry[1]
    for i, v in enumerate(costs):
        vec[i] += v


def read_file(path, stat, accs):
    """Fold the parts of one file into accs (part number -> PartAcc)."""
    line_level = stat == "sum"
    parts = []
    fp = tables = None
    last_ctx = fnid = fi = None
    nev = 0
    try:
        for rec in cgfile.Reader(path).records():
            kind = rec[0]
            if kind in ("cost", "call", "jump"):
                if tables is None:
                    tables = _begin_body(fp, stat, accs)
                    nev = len(fp.events)
                if rec[1] is not last_ctx:
                    last_ctx = rec[1]
                    ob, fl, fi, fn = (x or "" for x in last_ctx)
                    fnid = (ob, fl, fn)
                pos = rec[2]
                if kind == "cost":
                    _add_into(fp.cost_sum, rec[3])
                    if line_level:
                        _add_sum(tables[0], (fnid, fi, pos), rec[3], nev)
                    else:
                        _add_first(tables[0], (fnid,), (fi, pos), rec[3], nev)
                elif kind == "call":
                    callee, target = rec[3], rec[4]
                    if None in callee:
                        callee = tuple(x or "" for x in callee)
                    costs = [rec[5]] + rec[6]
                    if line_level:
                        _add_sum(tables[1], (fnid, fi, pos, callee, target),
                                 costs, nev + 1)
                    else:
                        _add_first(tables[1], (fnid, callee),
                                   (fi, pos, target), costs, nev + 1)
                else:
                    key = (fnid, fi, pos, rec[3],
                           tuple(x or "" for x in rec[4]), rec[5])
                    counts = [rec[6], rec[7] or 0]
                    if line_level:
                        _add_sum(tables[2], key, counts, 2)
                    else:
                        _add_first(tables[2], key, (fi, pos), counts, 2)
            elif kind == "header":
                fp.header(rec[1], rec[2])
            elif kind == "part":
                if fp is not None:
                    fp.multi = True
                    check_complete(fp)
                    _end_part(fp, tables, stat, accs)
                fp = FilePart(path, rec[1])
                parts.append(fp)
                tables = None
            elif kind == "summary":
                fp.summary = _pad(rec[1], len(fp.events))
            elif kind == "totals":
                fp.totals = _pad(rec[1], len(fp.events))
        if fp is None:
            raise MergeError("%s: empty, or no profile" % path)
        fp.multi = fp.multi or len(parts) > 1
        check_complete(fp)
        _end_part(fp, tables, stat, accs)
    except OSError as e:
        raise MergeError("%s: %s" % (path, e.strerror or e))
    except cgfile.FormatError as e:
        raise MergeError(str(e))
    multi = len(parts) > 1
    for fp in parts:
        accs[fp.number].check_multi(fp.path, multi)


def _add_into(total, costs):
    if len(total) < len(costs):
        total.extend([0] * (len(costs) - len(total)))
    for i, v in enumerate(costs):
        total[i] += v


def check_complete(fp):
    """A part is whole: it has events, and it ends with `totals:` equal to
    the sum of its cost lines (the writers, ours and the reference's,
    write them last; a file cut short loses them or some cost lines)."""
    where = fp.path if not fp.multi else "%s, part %d" % (fp.path, fp.number)
    if not fp.events:
        raise MergeError("%s: no 'events:' line (not a profile, or cut short "
                         "before its header ends)" % where)
    if fp.totals is None:
        raise MergeError("%s: truncated: it ends before the part's "
                         "'totals:' line" % where)
    if _pad(fp.cost_sum, len(fp.events)) != _pad(fp.totals, len(fp.events)):
        raise MergeError("%s: 'totals:' disagrees with the sum of the cost "
                         "lines (truncated or damaged)" % where)


def _begin_body(fp, stat, accs):
    """The tables the part's lines go to."""
    if stat != "sum":
        return (fp.selfc, fp.calls, fp.jumps)
    acc = accs.get(fp.number)
    if acc is None:
        acc = accs[fp.number] = PartAcc(stat, fp)
    acc.add_header(fp)
    return (acc.selfc, acc.calls, acc.jumps)


def _end_part(fp, tables, stat, accs):
    if tables is None:                  # a part without cost lines
        tables = _begin_body(fp, stat, accs)
    acc = accs.get(fp.number)
    if acc is None:
        acc = accs[fp.number] = PartAcc(stat, fp)
    if stat != "sum":
        acc.add_header(fp)
        acc.add_tables(fp)
    acc.add_lines(fp)


def first_part_number(path):
    """The `part:` number of the file's first part (1 when it has none),
    read from its header only."""
    try:
        with open(path, encoding="utf-8", errors="replace",
                  newline="\n") as fh:
            for line in fh:
                if line.startswith("part:"):
                    try:
                        return int(line[5:])
                    except ValueError:
                        raise MergeError("%s: part: %r is not a number"
                                         % (path, line[5:].strip()))
                if line[:3] in ("fn=", "ob=", "fl="):
                    break
    except OSError as e:
        raise MergeError("%s: %s" % (path, e.strerror or e))
    return 1


# -- the running statistic over files -------------------------------------
#
# sum: the record is the summed vector. Other statistics: [sum, max, min,
# number of files that had the key].

def _record(stat, vec):
    return vec if stat == "sum" else [vec, list(vec), list(vec), 1]


def _fold_record(stat, rec, vec):
    if stat == "sum":
        for i, v in enumerate(vec):
            rec[i] += v
        return rec
    s, hi, lo = rec[0], rec[1], rec[2]
    for i, v in enumerate(vec):
        s[i] += v
        if v > hi[i]:
            hi[i] = v
        if v < lo[i]:
            lo[i] = v
    rec[3] += 1
    return rec


def _combine_records(stat, a, b):
    if stat == "sum":
        return _fold_record(stat, a, b)
    for i in range(len(a[0])):
        a[0][i] += b[0][i]
        a[1][i] = max(a[1][i], b[1][i])
        a[2][i] = min(a[2][i], b[2][i])
    a[3] += b[3]
    return a


def _rounded_div(a, n):
    return (2 * a + n) // (2 * n)


def final_values(stat, rec, nfiles):
    """The vector written for a record over nfiles files."""
    if stat == "sum":
        return rec
    s, hi, lo, present = rec
    if stat == "max":
        return hi
    if stat == "min":
        return lo if present == nfiles else [0] * len(lo)
    if stat == "mean":
        return [_rounded_div(v, nfiles) for v in s]
    return [_rounded_div(h * nfiles - v, nfiles) for h, v in zip(hi, s)]


class PartAcc:
    """One output part: the statistic of every cost centre so far."""

    TABLES = ("selfc", "calls", "jumps")

    def __init__(self, stat, first):
        self.stat = stat
        self.number = first.number
        self.first_path = first.path
        self.info = dict(first.info)
        self.events = first.events
        self.positions = first.positions
        self.event_defs = first.event_defs
        self.descs = list(first.descs)
        self.ranks = []
        self.multi = None
        self.nfiles = 0
        self.summary = None
        self.totals = None
        self.all_summary = self.all_totals = True
        self.selfc, self.calls, self.jumps = {}, {}, {}

    def check_same_kind(self, path, info, events, positions):
        def exe(i):
            cmd = i.get("cmd", "").split()
            return cmd[0] if cmd else ""
        if exe(info) != exe(self.info):
            raise MergeError("%s: a profile of '%s', %s one of '%s': "
                             "different programs" % (
                                 path, exe(info), self.first_path,
                                 exe(self.info)))
        if events != self.events:
            raise MergeError("%s: events '%s' differ from '%s' in %s" % (
                path, " ".join(events), " ".join(self.events),
                self.first_path))
        if positions != self.positions:
            raise MergeError("%s: positions '%s' differ from '%s' in %s" % (
                path, " ".join(positions), " ".join(self.positions),
                self.first_path))

    def check_multi(self, path, multi):
        if self.multi is None:
            self.multi = multi
        elif multi != self.multi:
            raise MergeError("%s and %s: part %d is a dump file in one and "
                             "one of several parts of a file in the other "
                             "(--combine-dumps); merge them separately"
                             % (self.first_path, path, self.number))

    def _merge_header(self, info, descs, ranks):
        for key in list(self.info):
            if key != "cmd" and info.get(key) != self.info[key]:
                del self.info[key]
        common = set(descs)
        self.descs = [d for d in self.descs if d in common]
        self.ranks.extend(ranks)

    def add_header(self, fp):
        """A file's part joins: check it, count it."""
        if self.nfiles:
            self.check_same_kind(fp.path, fp.info, fp.events, fp.positions)
        self._merge_header(fp.info, fp.descs,
                           [d[len(RANK_DESC):] for d in fp.descs
                            if d.startswith(RANK_DESC)])
        self.nfiles += 1

    def add_tables(self, fp):
        """Fold a file's per-function tables into the statistic."""
        stat = self.stat
        for name in self.TABLES:
            mine = getattr(self, name)
            for key, (where, vec) in getattr(fp, name).items():
                entry = mine.get(key)
                if entry is None:
                    mine[key] = [where, _record(stat, vec)]
                else:
                    if where < entry[0]:
                        entry[0] = where
                    _fold_record(stat, entry[1], vec)

    def add_lines(self, fp):
        """summary: and totals: of a file's part (after add_header)."""
        self.summary, self.all_summary = self._fold_line(
            self.summary, self.all_summary, fp.summary)
        self.totals, self.all_totals = self._fold_line(
            self.totals, self.all_totals, fp.totals)

    def _fold_line(self, rec, complete, vec):
        if vec is None or not complete:
            return None, False
        if rec is None:
            return (_record(self.stat, vec), True) if self.nfiles == 1 \
                else (None, False)
        return _fold_record(self.stat, rec, vec), True

    def combine(self, other):
        """Fold another process's PartAcc of the same part into this one
        (this one holds the earlier files)."""
        self.check_same_kind(other.first_path, other.info, other.events,
                             other.positions)
        self.check_multi(other.first_path, other.multi)
        self._merge_header(other.info, other.descs, other.ranks)
        self.nfiles += other.nfiles
        stat = self.stat
        for name in self.TABLES:
            mine = getattr(self, name)
            for key, value in getattr(other, name).items():
                entry = mine.get(key)
                if entry is None:
                    mine[key] = value
                elif stat == "sum":
                    for i, v in enumerate(value):
                        entry[i] += v
                else:
                    if value[0] < entry[0]:
                        entry[0] = value[0]
                    _combine_records(stat, entry[1], value[1])
        for line in ("summary", "totals"):
            complete = getattr(self, "all_" + line) and \
                getattr(other, "all_" + line)
            a, b = getattr(self, line), getattr(other, line)
            setattr(self, "all_" + line, complete)
            setattr(self, line, _combine_records(stat, a, b)
                    if complete and a is not None and b is not None else None)


def fold_files(paths, stat, accs):
    """Read paths one at a time into accs (part number -> PartAcc)."""
    for path in paths:
        read_file(path, stat, accs)
    return accs


def combine_accs(left, right):
    """left, right: part number -> PartAcc; left holds the earlier files."""
    for number, acc in right.items():
        if number in left:
            left[number].combine(acc)
        else:
            left[number] = acc
    return left


def rank_ranges(ranks):
    """"0-3 8 10-11" for the ranks' numbers (the first word of each)."""
    numbers = sorted({int(r.split()[0]) for r in ranks
                      if r.split() and r.split()[0].isdigit()})
    spans = []
    for n in numbers:
        if spans and spans[-1][1] == n - 1:
            spans[-1][1] = n
        else:
            spans.append([n, n])
    return " ".join(str(a) if a == b else "%d-%d" % (a, b) for a, b in spans)


class _Names:
    """Name compression: `(id) name` the first time, `(id)` after."""

    def __init__(self):
        self.ids = {"ob": {}, "fl": {}, "fn": {}}

    def __call__(self, space, name):
        table = self.ids[space]
        ident = table.get(name)
        if ident is not None:
            return "(%d)" % ident
        ident = table[name] = len(table) + 1
        return "(%d) %s" % (ident, name or "???")


def _costs_text(vec):
    n = len(vec)
    while n > 1 and vec[n - 1] == 0:
        n -= 1
    return " ".join(str(v) for v in vec[:n])


class _PartWriter:
    def __init__(self, out, acc, names):
        self.out = out
        self.acc = acc
        self.names = names
        self.hex = [p == "instr" for p in acc.positions]
        self.keep_zeros = acc.stat == "sum"

    def pos_text(self, pos):
        return " ".join("0x%x" % p if h else str(p)
                        for p, h in zip(pos, self.hex))

    def values(self, kind, rec):
        vec = final_values(self.acc.stat, rec, self.acc.nfiles)
        if kind == "calls" and self.acc.stat != "sum":
            # callgrind_annotate reads calls=0 as a self cost line: a call
            # count is at least 1, and for imbalance the largest count
            count = rec[1][0] if self.acc.stat == "imbalance" else vec[0]
            vec = [max(1, count)] + vec[1:]
        return vec

    def write(self):
        acc, w = self.acc, self.out.write
        body = self.body_by_function()
        self_total = self.self_total(body)
        totals = self.line_values(acc.totals) if acc.stat == "sum" \
            else None
        summary = self.line_values(acc.summary) if acc.stat == "sum" \
            else None
        w("\n")
        for key in ("pid", "thread", "cmd"):
            if key in acc.info:
                w("%s: %s\n" % (key, acc.info[key].strip()))
        w("part: %d\n\n" % acc.number)
        for d in acc.descs:
            if not d.startswith(RANK_DESC):
                w("desc: %s\n" % d)
        w("desc: Merged: %d profiles, --stat=%s%s\n" % (
            acc.nfiles, acc.stat, "" if acc.stat == "sum" else
            " (per function and call arc)"))
        if acc.ranks:
            w("desc: Merged MPI ranks: %s\n" % rank_ranges(acc.ranks))
        w("\n")
        for d in acc.event_defs:
            w("event: %s\n" % d)
        w("positions: %s\n" % " ".join(acc.positions))
        w("events: %s\n" % " ".join(acc.events))
        w("summary: %s\n\n" % _costs_text(summary or self_total))
        self.write_body(body)
        w("\ntotals: %s\n" % _costs_text(totals or self_total))

    def line_values(self, rec):
        return None if rec is None else final_values(self.acc.stat, rec,
                                                     self.acc.nfiles)

    def body_by_function(self):
        """(ob, fl, fn) -> sorted [(where, kind, key, values)]."""
        acc = self.acc
        per_fn = {}
        for kind in PartAcc.TABLES:
            for key, value in getattr(acc, kind).items():
                if acc.stat == "sum":
                    where, vec = where_of(kind, key), list(value)
                else:
                    where, vec = value[0], self.values(kind, value[1])
                if not self.keep_zeros and not any(
                        vec[1:] if kind == "calls" else vec):
                    continue
                per_fn.setdefault(key[0], []).append((where, kind, key, vec))
        for entries in per_fn.values():
            entries.sort()
        return per_fn

    def self_total(self, body):
        total = [0] * len(self.acc.events)
        for entries in body.values():
            for _, kind, _, vec in entries:
                if kind == "selfc":
                    for i, v in enumerate(vec):
                        total[i] += v
        return total

    def write_body(self, body):
        w, names = self.out.write, self.names
        for (ob, fl, fn) in sorted(body):
            w("ob=%s\nfl=%s\nfn=%s\n" % (names("ob", ob), names("fl", fl),
                                         names("fn", fn)))
            current_file = fl
            for where, kind, key, vec in body[(ob, fl, fn)]:
                fi = where[0]
                if fi != current_file:
                    w("%s=%s\n" % ("fe" if fi == fl else "fi",
                                   names("fl", fi)))
                    current_file = fi
                pos = self.pos_text(where[1])
                if kind == "selfc":
                    w("%s %s\n" % (pos, _costs_text(vec)))
                elif kind == "calls":
                    cob, cfi, cfn = key[3] if len(key) == 5 else key[1]
                    target = where[2]
                    w("cob=%s\ncfi=%s\ncfn=%s\ncalls=%d %s\n%s %s\n" % (
                        names("ob", cob), names("fl", cfi), names("fn", cfn),
                        vec[0], self.pos_text(target), pos,
                        _costs_text(vec[1:])))
                else:
                    jkind, (jfi, jfn), target = key[3:6]
                    count = "%d/%d" % (vec[0], vec[1]) if jkind == "jcnd" \
                        else "%d" % vec[0]
                    w("jfi=%s\njfn=%s\n%s=%s %s\n%s\n" % (
                        names("fl", jfi), names("fn", jfn), jkind, count,
                        self.pos_text(target), pos))
            w("\n")


def write_profile(path, accs, version):
    """One file holding the parts accs (PartAcc list, in order)."""
    names = _Names()
    with open(path, "w", encoding="utf-8") as out:
        out.write("# callgrind format\nversion: 1\ncreator: %s-%s\n"
                  % (PROG, version))
        for acc in accs:
            _PartWriter(out, acc, names).write()


# -- outputs: temporary files renamed at the end -------------------------

class Outputs:
    """The output files; nothing visible under the final names until
    commit(), and nothing left behind by abort()."""

    def __init__(self, out):
        self.out = out
        self.written = []        # (part numbers, multi-part?, temp path)

    def temp_name(self):
        return "%s.tmp-%d-%d" % (self.out, os.getpid(), len(self.written))

    def write(self, accs, version):
        tmp = self.temp_name()
        self.written.append(([a.number for a in accs],
                             any(a.multi for a in accs), tmp))
        write_profile(tmp, accs, version)

    def final_names(self):
        """temp path -> final name (Callgrind's dump naming)."""
        if any(multi for _, multi, _ in self.written) and \
                len(self.written) > 1:
            raise MergeError("files with several parts (--combine-dumps) "
                             "and dump files with parts %s: merge them "
                             "separately" % ", ".join(
                                 str(n) for ns, _, _ in self.written
                                 for n in ns))
        if len(self.written) == 1:
            return {self.written[0][2]: self.out}
        last = max(ns[0] for ns, _, _ in self.written)
        return {tmp: self.out if ns[0] == last else "%s.%d" % (self.out, ns[0])
                for ns, _, tmp in self.written}

    def commit(self):
        names = self.final_names()
        for tmp, final in names.items():
            os.replace(tmp, final)
        return sorted(names.values())

    def abort(self):
        for _, _, tmp in self.written:
            try:
                os.unlink(tmp)
            except OSError:
                pass


# -- serial and MPI drivers -----------------------------------------------

def group_by_part(paths):
    """[(part number, [paths])] by the number of each file's first part,
    files in command-line order."""
    groups = {}
    for path in paths:
        groups.setdefault(first_part_number(path), []).append(path)
    return sorted(groups.items())


def write_groups(outputs, accs, version):
    """Separate dump files: one output per part; --combine-dumps files:
    their parts in one output."""
    ordered = [accs[n] for n in sorted(accs)]
    if any(a.multi for a in ordered):
        if not all(a.multi for a in ordered):
            raise MergeError("files with several parts (--combine-dumps) "
                             "and dump files: merge them separately")
        outputs.write(ordered, version)
    else:
        for acc in ordered:
            outputs.write([acc], version)


def merge_serial(paths, stat, out, version):
    outputs = Outputs(out)
    try:
        for _, files in group_by_part(paths):
            write_groups(outputs, fold_files(files, stat, {}), version)
        return outputs.commit()
    except BaseException:
        outputs.abort()
        raise


def mpi_world_size():
    for var in ("OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "SLURM_STEP_NUM_TASKS"):
        try:
            return int(os.environ.get(var, ""))
        except ValueError:
            continue
    return 1


# Waiting processes poll with a short sleep rather than spinning in a
# blocking call (MPI libraries busy-wait): on a node with fewer cores than
# processes the spinning would take the CPU from the ones still merging.
POLL_SECONDS = 0.005


def _wait(request):
    while not request.Test():
        time.sleep(POLL_SECONDS)


def _send(comm, obj, dest):
    _wait(comm.isend(obj, dest=dest, tag=7))


def _recv(comm, source):
    while not comm.Iprobe(source=source, tag=7):
        time.sleep(POLL_SECONDS)
    return comm.recv(source=source, tag=7)


def _share_status(comm, MPI, status):
    """Process 0's exit status, to every process."""
    buf = array("i", [status])
    _wait(comm.Ibcast([buf, MPI.INT], root=0))
    return buf[0]


def merge_mpi(paths, stat, out, version):
    """Returns (exit status, output names or error text) on process 0,
    (exit status, None) on the others."""
    try:
        from mpi4py import MPI
    except ImportError as e:
        raise MergeError("--mpi: cannot import mpi4py (%s); Debian: "
                         "apt-get install python3-mpi4py" % e)
    comm = MPI.COMM_WORLD
    try:
        return _merge_tree(comm, MPI, paths, stat, out, version)
    except BaseException:
        # a failure that is not the inputs' (a bug, memory): the others
        # would wait for this process forever
        import traceback
        traceback.print_exc()
        comm.Abort(1)


def _merge_tree(comm, MPI, paths, stat, out, version):
    rank, size = comm.Get_rank(), comm.Get_size()
    lo, hi = rank * len(paths) // size, (rank + 1) * len(paths) // size
    accs, error = {}, None
    try:
        fold_files(paths[lo:hi], stat, accs)
    except MergeError as e:
        error = str(e)
    # Binomial tree: in round k, process r with bit k set sends to r - 2^k.
    step = 1
    while step < size:
        if rank % (2 * step) == step:
            _send(comm, (accs, error), rank - step)
            accs = None
            break
        if rank + step < size:
            other, other_error = _recv(comm, rank + step)
            if error is None and other_error is not None:
                error = other_error
            if error is None:
                try:
                    combine_accs(accs, other)
                except MergeError as e:
                    error = str(e)
            del other
        step *= 2
    result = (1, error)
    if rank == 0 and error is None:
        outputs = Outputs(out)
        try:
            write_groups(outputs, accs, version)
            result = (0, outputs.commit())
        except MergeError as e:
            outputs.abort()
            result = (1, str(e))
        except OSError as e:
            outputs.abort()
            result = (1, "%s: %s" % (out, e.strerror or e))
    status = _share_status(comm, MPI, result[0] if rank == 0 else 0)
    return (status, result[1]) if rank == 0 else (status, None)


# -- command line -----------------------------------------------------------

def parse_args(argv):
    opts = {"out": "callgrind.out.merged", "stat": "sum", "mpi": "auto"}
    files = []
    args = iter(argv)
    for arg in args:
        if arg in ("-h", "--help"):
            return None, None
        if arg == "--version":
            return "version", None
        if arg == "-o":
            opts["out"] = next(args, None)
            if opts["out"] is None:
                raise MergeError("-o needs a file name")
        elif arg.startswith("--out="):
            opts["out"] = arg[len("--out="):]
        elif arg.startswith("--stat="):
            opts["stat"] = arg[len("--stat="):]
            if opts["stat"] not in STATS:
                raise MergeError("--stat=%s: not one of %s"
                                 % (opts["stat"], "|".join(STATS)))
        elif arg.startswith("--mpi="):
            opts["mpi"] = arg[len("--mpi="):]
            if opts["mpi"] not in ("auto", "yes", "no"):
                raise MergeError("--mpi=%s: not one of auto|yes|no"
                                 % opts["mpi"])
        elif arg == "--":
            files.extend(args)
        elif arg.startswith("-") and arg != "-":
            raise MergeError("unknown option %s (see --help)" % arg)
        else:
            files.append(arg)
    if not files:
        raise MergeError("no input files (see --help)")
    if not opts["out"]:
        raise MergeError("-o: empty file name")
    return opts, files


def env_rank():
    """This process's rank as the launcher tells it (None outside one)."""
    for var in ("OMPI_COMM_WORLD_RANK", "PMI_RANK", "SLURM_PROCID"):
        if os.environ.get(var, "").isdigit():
            return int(os.environ[var])
    return None


def main(argv, version="?"):
    opts = {"out": "?"}
    try:
        opts, files = parse_args(argv)
        if opts is None:
            sys.stdout.write(USAGE % {"prog": PROG})
            return 0
        if opts == "version":
            print("%s-%s" % (PROG, version))
            return 0
        use_mpi = opts["mpi"] == "yes" or (opts["mpi"] == "auto"
                                           and mpi_world_size() > 1)
        if use_mpi:
            status, result = merge_mpi(files, opts["stat"], opts["out"],
                                       version)
            if status and result:
                print("%s: %s" % (PROG, result), file=sys.stderr)
            return status
        merge_serial(files, opts["stat"], opts["out"], version)
        return 0
    except MergeError as e:
        if not env_rank():            # one message, not one per process
            print("%s: %s" % (PROG, e), file=sys.stderr)
        return 1
    except OSError as e:
        print("%s: %s: %s" % (PROG, e.filename or opts["out"],
                              e.strerror or e), file=sys.stderr)
        return 1
