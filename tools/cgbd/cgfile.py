#!/usr/bin/env python3
"""Reader of the Callgrind profile format (cl-format.html), stdlib only.

Two layers:

Reader(path).records() streams a file as records, one per meaningful
line, with name compression and relative positions already resolved, so
that a consumer needs no state of its own (the merge uses it directly and
keeps nothing but its sums). Records are tuples whose first item is the
kind:

  ("info", key, value)          file-level header (version, creator)
  ("part", number)              a part begins (1, 2, ... in file order)
  ("header", key, value)        a header line of the current part, verbatim
                                (pid, cmd, desc, events, event, positions...)
  ("summary", costs)            costs: list of int, in `events:` order,
  ("totals", costs)             trailing zeros possibly left out
  ("fn", ctx)                   fn= line; ctx = (ob, fl, fi, fn) names
  ("cost", ctx, pos, costs)     a self cost line; pos: tuple of positions
  ("call", ctx, pos, callee, target, count, costs)
                                a call arc: callee = (cob, cfi, cfn), the
                                caller's ob / current file / fn where the
                                file left them out; target: callee position
  ("jump", ctx, pos, kind, dest, target, followed, executed)
                                kind "jump"/"jcnd"; dest = (jfi, jfn);
                                executed is None for jump=

parse(path) builds from those records the model the tests compare:

  Profile.parts: one Part per `part:` section (several with --combine-dumps)
  Part.events:   event names in file order
  Part.fns:      function name as written (e.g. "main", "fact'2") -> Function
                 with its self cost per event and the ob/fl it was seen with
  Part.arcs:     (caller fn, callee fn) -> Arc with the call count and the
                 inclusive cost per event, summed over all call sites
  Part.summary / Part.totals: the header and trailer cost lines (or None)
  Part.descs:    the set of `desc:` lines (without the "desc: " prefix)

Costs are dicts event -> int; a missing event means 0.

Functions are keyed by name only, as written, unless parse() is given a
fn_key (e.g. cg2dot.py's name qualified by object). Functions of the same
name in different objects (e.g. `_init`, `frame_dummy`) are then merged;
both sides of a comparison merge the same way, so this does not hide
differences in practice, and Function.obs/.fls keep where the name was seen.

Usage as a script: cgfile.py FILE  -- prints the model, for debugging.
"""

import re
import sys

# Header keys whose value is kept verbatim per part in Part.info.
_PART_INFO_KEYS = ("pid", "thread", "part", "cmd", "version", "creator")

# Position kinds sharing one name-compression id space.
_ID_SPACE = {
    "ob": "ob", "cob": "ob",
    "fl": "fl", "fi": "fl", "fe": "fl", "cfi": "fl", "cfl": "fl",
    "jfi": "fl",
    "fn": "fn", "cfn": "fn", "jfn": "fn",
}

_NAME_RE = re.compile(r"^\((\d+)\)\s?(.*)$")
_HEADER_RE = re.compile(r"^([a-z]+):\s?(.*)$")
_SPEC_RE = re.compile(r"^([a-z]+)=(.*)$")


class FormatError(Exception):
    """A line the reader cannot make sense of."""

    def __init__(self, path, lineno, msg):
        super().__init__("%s:%d: %s" % (path, lineno, msg))


def _number(tok):
    return int(tok, 16) if tok[:2] in ("0x", "0X") else int(tok)


def _sub_position(tok, last):
    """One sub-position: absolute (decimal or 0x hex), +N / -N relative to
    the last one, or * for the last one."""
    c = tok[0]
    if c == "+" or c == "-":
        return last + int(tok)
    if c == "*":
        return last
    return _number(tok)


_COST_START = frozenset("0123456789+-*")


class Reader:
    """Line-by-line state machine over one file; records() streams it."""

    def __init__(self, path):
        self.path = path
        self.lineno = 0
        self.names = {"ob": {}, "fl": {}, "fn": {}}   # id -> name, per file
        self.nparts = 0
        self.reference_writer = False   # creator: callgrind-<version>
        self.part_has_number = False
        self.in_body = False
        self.events = []
        self.positions = ["line"]
        self._out = []
        self._reset_context()

    def _reset_context(self):
        self.ob = self.fl = self.fi = self.fn = None
        self._ctx = None
        self.cob = self.cfi = self.cfn = None
        self.last_pos = None            # for +N / -N / * compression
        self.pending_call = None        # (callee, target, count) after calls=
        self.pending_jump = None        # after jump= / jcnd=
        self.jfi = self.jfn = None      # jfi=/jfn= for the next jump only

    def fail(self, msg):
        raise FormatError(self.path, self.lineno, msg)

    def records(self):
        """The file's records, in file order (see the module doc)."""
        # only \n ends a line: a \r inside cmd: (a client argument) does not
        with open(self.path, encoding="utf-8", errors="replace",
                  newline="\n") as fh:
            out = self._out
            for raw in fh:
                self.lineno += 1
                try:
                    rec = self._line(raw.rstrip("\n"))
                except ValueError as e:         # a malformed number
                    self.fail("%s in %r" % (e, raw.rstrip("\n")))
                if out:                         # a part began first
                    yield from out
                    out.clear()
                if rec is not None:
                    yield rec
        if not self.nparts:
            self.fail("no part found")

    # -- parts and header ------------------------------------------------

    def _new_part(self):
        self.nparts += 1
        self.part_has_number = False
        self.in_body = False
        self.events = []
        self.positions = ["line"]
        self._reset_context()
        self._out.append(("part", self.nparts))

    def header_line(self, key, value):
        if key in ("version", "creator") and not self.nparts:
            if key == "creator":
                self.reference_writer = bool(re.match(r"callgrind-\d", value))
            return ("info", key, value)
        if key == "part":
            # `part:` always opens a part unless the current one is still
            # in its header and has no number yet (pid:/cmd: came first).
            if not self.nparts or self.in_body or self.part_has_number:
                self._new_part()
            self.part_has_number = True
        elif not self.nparts or self.in_body:
            # A header line after a part's body starts the next part.
            self._new_part()
        if key == "events":
            self.events = value.split()
        elif key == "positions":
            self.positions = value.split() or ["line"]
        if key == "summary":
            return ("summary", self.costs(value.split()))
        return ("header", key, value)

    # -- costs and positions ---------------------------------------------

    def costs(self, toks):
        if len(toks) > len(self.events):
            self.fail("%d costs for %d events" % (len(toks), len(self.events)))
        try:
            return [int(t) for t in toks]      # costs are decimal, mostly
        except ValueError:
            return [_number(t) for t in toks]

    def decode_positions(self, toks, update=True):
        """Decode len(positions) sub-positions; return (pos, rest of toks)."""
        n = len(self.positions)
        if len(toks) < n:
            self.fail("expected %d positions" % n)
        last = self.last_pos or (0,) * n
        if n == 1:
            pos = (_sub_position(toks[0], last[0]),)
        elif n == 2:
            pos = (_sub_position(toks[0], last[0]),
                   _sub_position(toks[1], last[1]))
        else:
            pos = tuple(_sub_position(t, l) for t, l in zip(toks, last))
        if update:
            self.last_pos = pos
        return pos, toks[n:]

    def name_line(self, kind, value):
        """`kind=(id) name`, `kind=(id)` or `kind=name`."""
        space = self.names[_ID_SPACE[kind]]
        m = _NAME_RE.match(value)
        if not m:
            return value.strip()
        ident, name = int(m.group(1)), m.group(2).strip()
        if name:
            space[ident] = name
            return name
        if ident not in space:
            self.fail("undefined %s id (%d)" % (kind, ident))
        return space[ident]

    def context(self):
        """(ob, fl, fi, fn); the same tuple object until one changes."""
        ctx = self._ctx
        if ctx is None:
            ctx = self._ctx = (self.ob, self.fl, self.fi, self.fn)
        return ctx

    def spec_line(self, kind, value):
        name = self.name_line(kind, value)
        if kind in ("ob", "fl", "fi", "fe", "fn"):
            self._ctx = None
        if kind == "ob":
            self.ob = name
        elif kind == "fl":
            self.fl = self.fi = name
        elif kind in ("fi", "fe"):
            self.fi = name
        elif kind == "fn":
            self.fn = name
            self.last_pos = None          # compression restarts per function
            return ("fn", self.context())
        elif kind == "cob":
            self.cob = name
        elif kind in ("cfi", "cfl"):
            self.cfi = name
        elif kind == "cfn":
            self.cfn = name
        elif kind == "jfi":
            self.jfi = name
        elif kind == "jfn":
            self.jfn = name

    def call_line(self, value):
        toks = value.split()
        if not toks:
            self.fail("calls= without count")
        # Left out, the callee's object, file and name are the caller's
        # (object and name) and the current file.
        callee = (self.cob or self.ob, self.cfi or self.fi,
                  self.cfn if self.cfn is not None else self.fn)
        # The target position is relative to the last position but does
        # not become the new last position.
        target, _ = self.decode_positions(toks[1:], update=False)
        self.pending_call = (callee, target, _number(toks[0]))
        # cob/cfi/cfn qualify only the next call.
        self.cob = self.cfi = self.cfn = None

    def jump_line(self, kind, value):
        toks = value.split()
        if not toks:
            self.fail("%s= without count" % kind)
        # jump=<count> <target> ; jcnd=<followed>/<executed> <target>
        # (the grammar also allows "jcnd=<followed> <executed> <target>").
        executed = None
        if "/" in toks[0]:
            followed, executed = toks[0].split("/", 1)
        elif len(toks) > len(self.positions) + 1:
            followed, executed = toks[0], toks[1]
            toks = toks[1:]
        else:
            followed = toks[0]
        target, _ = self.decode_positions(toks[1:], update=False)
        dest = (self.jfi or self.fi, self.jfn or self.fn)
        self.pending_jump = (kind, dest, target, _number(followed),
                             None if executed is None else _number(executed))
        self.jfi = self.jfn = None

    def cost_line(self, line):
        # The reference's writer does not advance the last position with
        # a call's source position line (callgrind_annotate and our writer
        # do): its files decode to the right lines only when read its way.
        update = not self.pending_call or not self.reference_writer
        pos, rest = self.decode_positions(line.split(), update=update)
        if self.pending_jump:             # the source line of a jump
            kind, dest, target, followed, executed = self.pending_jump
            self.pending_jump = None
            return ("jump", self.context(), pos, kind, dest, target,
                    followed, executed)
        if self.fn is None:
            self.fail("cost line before any fn=")
        cost = self.costs(rest)
        if self.pending_call:
            callee, target, count = self.pending_call
            self.pending_call = None
            return ("call", self.context(), pos, callee, target, count, cost)
        return ("cost", self.context(), pos, cost)

    # -- dispatch -------------------------------------------------------

    def _line(self, line):
        if line and line[0] in _COST_START and self.in_body:
            return self.cost_line(line)   # most lines: no pattern to try
        if not line.strip() or line.startswith("#"):
            return
        m = _HEADER_RE.match(line)
        if m and m.group(1) != "totals":
            return self.header_line(m.group(1), m.group(2))
        if m:                                 # totals: ends the body
            if not self.nparts:
                self.fail("totals: before any header")
            self.in_body = True
            return ("totals", self.costs(m.group(2).split()))
        if not self.nparts:
            self.fail("body line before any header")
        self.in_body = True
        m = _SPEC_RE.match(line)
        if m:
            kind, value = m.groups()
            if kind in _ID_SPACE:
                return self.spec_line(kind, value)
            if kind == "calls":
                return self.call_line(value)
            if kind in ("jump", "jcnd"):
                return self.jump_line(kind, value)
            self.fail("unknown line kind %r" % kind)
        return self.cost_line(line)


# -- the model the tests compare ----------------------------------------

class Function:
    def __init__(self, name):
        self.name = name
        self.self_cost = {}
        self.obs = set()
        self.fls = set()


class Arc:
    def __init__(self, caller, callee):
        self.caller = caller
        self.callee = callee
        self.calls = 0
        self.inclusive = {}
        self.sites = {}         # call-site source line -> calls (if lines)


class Part:
    def __init__(self, number):
        self.number = number
        self.info = {}          # pid, thread, part, cmd (verbatim strings)
        self.events = []
        self.event_defs = {}    # `event:` lines: name -> rest of line
        self.positions = ["line"]
        self.summary = None
        self.totals = None
        self.descs = set()
        self.fns = {}
        self.arcs = {}
        self.jump_lines = 0
        # --collect-jumps: (fn, kind "jump"/"jcnd", target fn, target
        # position, source position) -> [followed, executed]
        self.jumps = {}

    def fn(self, name):
        f = self.fns.get(name)
        if f is None:
            f = self.fns[name] = Function(name)
        return f

    def arc(self, caller, callee):
        key = (caller, callee)
        a = self.arcs.get(key)
        if a is None:
            a = self.arcs[key] = Arc(caller, callee)
        return a

    def self_total(self):
        """Sum of all self costs (what `totals:` should say)."""
        total = {}
        for f in self.fns.values():
            add_cost(total, f.self_cost)
        return total


class Profile:
    def __init__(self, path):
        self.path = path
        self.info = {}          # file-level header (version, creator, ...)
        self.parts = []

    def merged(self):
        """One Part summing all parts (for files with --combine-dumps)."""
        if len(self.parts) == 1:
            return self.parts[0]
        m = Part(0)
        for p in self.parts:
            for e in p.events:
                if e not in m.events:
                    m.events.append(e)
            m.descs |= p.descs
            m.summary = _add_opt(m.summary, p.summary)
            m.totals = _add_opt(m.totals, p.totals)
            for f in p.fns.values():
                mf = m.fn(f.name)
                add_cost(mf.self_cost, f.self_cost)
                mf.obs |= f.obs
                mf.fls |= f.fls
            for a in p.arcs.values():
                ma = m.arc(a.caller, a.callee)
                ma.calls += a.calls
                add_cost(ma.inclusive, a.inclusive)
                for line, calls in a.sites.items():
                    ma.sites[line] = ma.sites.get(line, 0) + calls
            for key, (followed, executed) in p.jumps.items():
                mj = m.jumps.setdefault(key, [0, 0])
                mj[0] += followed
                mj[1] += executed
        return m


def add_cost(into, cost):
    for e, v in cost.items():
        into[e] = into.get(e, 0) + v


def _add_opt(a, b):
    if b is None:
        return a
    r = dict(a or {})
    add_cost(r, b)
    return r


class _ModelBuilder:
    """Folds a Reader's records into a Profile."""

    def __init__(self, path, fn_key):
        self.profile = Profile(path)
        self.part = None
        self.key = fn_key or (lambda name, ob: name)

    def cost_dict(self, costs):
        """summary:/totals: as {event: value}, every event (the writers
        leave trailing zero events out, as cost lines do)."""
        events = self.part.events
        return dict(zip(events, list(costs) + [0] * (len(events) - len(costs))))

    def header(self, key, value):
        p = self.part
        if key in _PART_INFO_KEYS:
            p.info[key] = value
        elif key == "desc":
            p.descs.add(value)
        elif key == "events":
            p.events = value.split()
        elif key == "event":
            name = value.partition(" ")[0]
            p.event_defs[name.split("=")[0].split(":")[0]] = value
        elif key == "positions":
            p.positions = value.split() or ["line"]

    def add(self, rec):
        kind = rec[0]
        if kind == "cost":
            _, (ob, _fl, _fi, fn), _pos, costs = rec
            add_cost(self.part.fn(self.key(fn, ob)).self_cost,
                     self.cost_dict(costs))
        elif kind == "call":
            _, (ob, _fl, _fi, fn), pos, (cob, _cfi, cfn), _t, count, costs = rec
            a = self.part.arc(self.key(fn, ob), self.key(cfn, cob))
            a.calls += count
            add_cost(a.inclusive, self.cost_dict(costs))
            if "line" in self.part.positions:
                line = pos[self.part.positions.index("line")]
                a.sites[line] = a.sites.get(line, 0) + count
        elif kind == "fn":
            ob, fl, _fi, fn = rec[1]
            f = self.part.fn(self.key(fn, ob))
            f.obs.add(ob)
            f.fls.add(fl)
        elif kind == "jump":
            _, (ob, _fl, _fi, fn), pos, jkind, (_jfi, jfn), target, \
                followed, executed = rec
            self.part.jump_lines += 1
            key = (self.key(fn, ob), jkind, self.key(jfn, ob), target, pos)
            j = self.part.jumps.setdefault(key, [0, 0])
            j[0] += followed
            j[1] += executed or 0
        elif kind == "header":
            self.header(rec[1], rec[2])
        elif kind == "part":
            self.part = Part(rec[1])
            self.profile.parts.append(self.part)
        elif kind == "summary":
            self.part.summary = self.cost_dict(rec[1])
        elif kind == "totals":
            self.part.totals = self.cost_dict(rec[1])
        elif kind == "info":
            self.profile.info[rec[1]] = rec[2]


def parse(path, fn_key=None):
    """Parse one profile file into a Profile; raises FormatError on
    malformed input. fn_key(name, ob) -> key names functions in the model
    (default: the name alone)."""
    builder = _ModelBuilder(path, fn_key)
    for rec in Reader(path).records():
        builder.add(rec)
    return builder.profile


def format_cost(cost, events):
    return " ".join("%s=%d" % (e, cost.get(e, 0)) for e in events)


def _dump(profile):
    for part in profile.parts:
        print("part %d %s events: %s" % (part.number, part.info,
                                         " ".join(part.events)))
        print("  summary:", part.summary and format_cost(part.summary, part.events))
        print("  totals: ", part.totals and format_cost(part.totals, part.events))
        for name in sorted(part.fns):
            print("  fn %s: %s" % (name, format_cost(part.fns[name].self_cost,
                                                   part.events)))
        for (a, b), arc in sorted(part.arcs.items()):
            print("  arc %s -> %s calls=%d %s" % (
                a, b, arc.calls, format_cost(arc.inclusive, part.events)))


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: cgfile.py FILE")
    _dump(parse(sys.argv[1]))
