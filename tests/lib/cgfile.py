#!/usr/bin/env python3
"""Parser of the Callgrind profile format (cl-format.html), stdlib only.

The parser reduces a profile to the model the tests compare:

  Profile.parts: one Part per `part:` section (several with --combine-dumps)
  Part.events:   event names in file order
  Part.fns:      function name as written (e.g. "main", "fact'2") -> Function
                 with its self cost per event and the ob/fl it was seen with
  Part.arcs:     (caller fn, callee fn) -> Arc with the call count and the
                 inclusive cost per event, summed over all call sites, and
                 (when positions include lines) the calls per call-site line
  Part.summary / Part.totals: the header and trailer cost lines (or None)
  Part.descs:    the set of `desc:` lines (without the "desc: " prefix)

Costs are dicts event -> int; a missing event means 0.

Functions are keyed by name only, as written. Functions of the same name
in different objects (e.g. `_init`, `frame_dummy`) are merged; both sides
of a comparison merge the same way, so this does not hide differences in
practice, and Function.obs/.fls keep where the name was seen.

Usage as a script: cgfile.py FILE  -- prints the model, for debugging.
"""

import re
import sys

# Header keys whose value is kept verbatim (per part or per file).
_PART_INFO_KEYS = ("pid", "thread", "part", "cmd", "version", "creator")

# Position kinds sharing one name-compression id space.
_ID_SPACE = {
    "ob": "ob", "cob": "ob",
    "fl": "fl", "fi": "fl", "fe": "fl", "cfi": "fl", "cfl": "fl",
    "jfi": "fl",
    "fn": "fn", "cfn": "fn", "jfn": "fn",
}

_NAME_RE = re.compile(r"^\((\d+)\)\s?(.*)$")


class FormatError(Exception):
    """A line the parser cannot make sense of."""

    def __init__(self, path, lineno, msg):
        super().__init__("%s:%d: %s" % (path, lineno, msg))


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


def _number(tok):
    return int(tok, 16) if tok[:2] in ("0x", "0X") else int(tok)


class _Parser:
    """Line-by-line state machine; one instance per file."""

    def __init__(self, path):
        self.path = path
        self.lineno = 0
        self.profile = Profile(path)
        self.names = {"ob": {}, "fl": {}, "fn": {}}   # id -> name, per file
        self.part = None
        self.in_body = False
        self._reset_context()

    def _reset_context(self):
        self.ob = self.fl = self.fn = None
        self.cob = self.cfi = self.cfn = None
        self.last_pos = None            # for +N / -N / * compression
        self.pending_call = None        # (callee, count) after calls=
        self.pending_jump = False       # after jump= / jcnd=
        self.jfn = None                 # jfn= for the next jump only

    def fail(self, msg):
        raise FormatError(self.path, self.lineno, msg)

    # -- parts and header ------------------------------------------------

    def new_part(self):
        self.part = Part(len(self.profile.parts) + 1)
        self.profile.parts.append(self.part)
        self.in_body = False
        self._reset_context()

    def ensure_part(self):
        # A header line after a part's body starts the next part.
        if self.part is None or self.in_body:
            self.new_part()

    def header_line(self, key, value):
        if key in ("version", "creator") and self.part is None:
            self.profile.info[key] = value
            return
        if key == "part":
            # `part:` always opens a part unless the current one is still
            # in its header and has no number yet (pid:/cmd: came first).
            if self.part is None or self.in_body or "part" in self.part.info:
                self.new_part()
        else:
            self.ensure_part()
        p = self.part
        if key in _PART_INFO_KEYS:
            p.info[key] = value
        elif key == "desc":
            p.descs.add(value)
        elif key == "events":
            p.events = value.split()
        elif key == "event":
            name, _, rest = value.partition(" ")
            p.event_defs[name.split("=")[0].split(":")[0]] = value
        elif key == "positions":
            p.positions = value.split() or ["line"]
        elif key == "summary":
            p.summary = self.costs(value.split())

    # -- costs and positions ---------------------------------------------

    def costs(self, toks):
        events = self.part.events
        if len(toks) > len(events):
            self.fail("%d costs for %d events" % (len(toks), len(events)))
        return {events[i]: _number(t) for i, t in enumerate(toks)}

    def positions(self, toks, update=True):
        """Decode len(positions) sub-positions; return the rest of toks."""
        n = len(self.part.positions)
        if len(toks) < n:
            self.fail("expected %d positions" % n)
        last = self.last_pos or [0] * n
        pos = []
        for i, t in enumerate(toks[:n]):
            if t == "*":
                pos.append(last[i])
            elif t[0] in "+-":
                pos.append(last[i] + int(t))
            else:
                pos.append(_number(t))
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

    def spec_line(self, kind, value):
        name = self.name_line(kind, value)
        if kind == "ob":
            self.ob = name
        elif kind == "fl":
            self.fl = self.fi = name
        elif kind in ("fi", "fe"):
            self.fi = name
        elif kind == "fn":
            self.fn = name
            self.last_pos = None          # compression restarts per function
            f = self.part.fn(name)
            f.obs.add(self.ob)
            f.fls.add(self.fl)
        elif kind == "cob":
            self.cob = name
        elif kind in ("cfi", "cfl"):
            self.cfi = name
        elif kind == "cfn":
            self.cfn = name
        elif kind == "jfn":
            self.jfn = name
        # jfi only qualifies the next jump line; nothing to keep.

    def call_line(self, value):
        toks = value.split()
        if not toks:
            self.fail("calls= without count")
        callee = self.cfn if self.cfn is not None else self.fn
        # The target position is relative to the last position but does
        # not become the new last position.
        self.positions(toks[1:], update=False)
        self.pending_call = (callee, _number(toks[0]))
        # cob/cfi/cfn qualify only the next call.
        self.cob = self.cfi = self.cfn = None

    def jump_line(self, value):
        toks = value.split()
        # jump=<count> <target> ; jcnd=<followed>/<executed> <target>
        # (the grammar also allows "jcnd=<followed> <executed> <target>").
        kind = "jcnd" if self._jump_kind == "jcnd" else "jump"
        executed = None
        if "/" in toks[0]:
            followed, executed = toks[0].split("/", 1)
        elif len(toks) > len(self.part.positions) + 1:
            followed, executed = toks[0], toks[1]
            toks = toks[1:]
        else:
            followed = toks[0]
        target, _ = self.positions(toks[1:], update=False)
        self.part.jump_lines += 1
        self.pending_jump = (kind, self.jfn or self.fn, tuple(target),
                             _number(followed),
                             None if executed is None else _number(executed))
        self.jfn = None

    def _call_site_moves_last(self):
        """Whether a call's source position line becomes the last position
        for the relative ones after it. callgrind_annotate (and this
        parser, for our files) says yes; the reference's writer does not
        advance it (it writes the call's source position relative to the
        last cost line and leaves that as the base), so its files decode
        to the right lines only when read its way."""
        creator = self.profile.info.get("creator", "")
        return not re.match(r"callgrind-\d", creator)

    def cost_line(self, line):
        update = not self.pending_call or self._call_site_moves_last()
        pos, rest = self.positions(line.split(), update=update)
        if self.pending_jump:             # the source line of a jump
            kind, tfn, target, followed, executed = self.pending_jump
            self.pending_jump = False
            key = (self.fn, kind, tfn, target, tuple(pos))
            j = self.part.jumps.setdefault(key, [0, 0])
            j[0] += followed
            j[1] += executed or 0
            return
        if self.fn is None:
            self.fail("cost line before any fn=")
        cost = self.costs(rest)
        if self.pending_call:
            callee, count = self.pending_call
            self.pending_call = None
            a = self.part.arc(self.fn, callee)
            a.calls += count
            add_cost(a.inclusive, cost)
            if "line" in self.part.positions:
                line = pos[self.part.positions.index("line")]
                a.sites[line] = a.sites.get(line, 0) + count
        else:
            add_cost(self.part.fn(self.fn).self_cost, cost)

    # -- dispatch -------------------------------------------------------

    def line(self, raw):
        self.lineno += 1
        try:
            self._line(raw.rstrip("\n"))
        except ValueError as e:         # a malformed number
            self.fail("%s in %r" % (e, raw.rstrip("\n")))

    def _line(self, line):
        if not line.strip() or line.startswith("#"):
            return
        m = re.match(r"^([a-z]+):\s?(.*)$", line)
        if m and m.group(1) != "totals":
            self.header_line(m.group(1), m.group(2))
            return
        if m:                                 # totals: ends the body
            if self.part is None:
                self.fail("totals: before any header")
            self.part.totals = self.costs(m.group(2).split())
            self.in_body = True
            return
        if self.part is None:
            self.fail("body line before any header")
        self.in_body = True
        m = re.match(r"^([a-z]+)=(.*)$", line)
        if m:
            kind, value = m.groups()
            if kind in _ID_SPACE:
                self.spec_line(kind, value)
            elif kind == "calls":
                self.call_line(value)
            elif kind in ("jump", "jcnd"):
                self._jump_kind = kind
                self.jump_line(value)
            else:
                self.fail("unknown line kind %r" % kind)
            return
        self.cost_line(line)


def parse(path, parser=None):
    """Parse one profile file; raises FormatError on malformed input.
    parser: a _Parser subclass (e.g. tools/cg2dot.py's) instead of _Parser."""
    p = (parser or _Parser)(path)
    # only \n ends a line: a \r inside cmd: (a client argument) does not
    with open(path, encoding="utf-8", errors="replace", newline="\n") as fh:
        for raw in fh:
            p.line(raw)
    if not p.profile.parts:
        raise FormatError(path, p.lineno, "no part found")
    return p.profile


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
