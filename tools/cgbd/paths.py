"""Costs per full call path (--paths=yes): the reader of <profile>.paths
files (docs/paths-format.md), folded stacks, a difference of two runs
and a flame graph drawn as SVG (Debian packages no flame-graph renderer:
flamegraph.pl and inferno are not in its archive, so the drawing is ours,
a few dozen lines with no dependency).

Frames are named as callgrind_annotate names functions: "file:function"
(the function as the profile writes it, fn'2 for a recursion level,
fn'caller with --separate-callers), the file relative to the working
directory when it lies below it.
"""

import argparse
import html
import os
import sys
import zlib


class FormatError(Exception):
    def __init__(self, path, lineno, msg):
        Exception.__init__(self, "%s:%d: %s" % (path, lineno, msg))


class Part:
    def __init__(self, number):
        self.number = number
        self.thread = None          # with --separate-threads
        self.trigger = None
        self.events = []
        self.fns = {}               # id -> (file, function)
        self.paths = []             # (thread, [fn id, ...] root first, [costs])
        self.totals = None
        self.nodes = {}             # version 2: node id -> (thread, [fn id, ...])
        self.objects = set()        # the ids of fns that are data objects

    def cost(self, costs, event):
        i = self.events.index(event)
        return costs[i] if i < len(costs) else 0


class PathsFile:
    def __init__(self, path):
        self.path = path
        self.info = {}              # version, creator, pid, cmd
        self.parts = []


VERSIONS = (1, 2)


def _ints(path, lineno, toks):
    try:
        return [int(t) for t in toks]
    except ValueError:
        raise FormatError(path, lineno, "a number expected in %r" % " ".join(toks))


def _fn_ids(part, path, lineno, ids):
    unknown = [i for i in ids if i not in part.fns]
    if unknown:
        raise FormatError(path, lineno, "function id %d not defined" % unknown[0])
    return ids


def _path_v1(part, path, lineno, value):
    """path: <thread> <fn>;<fn>;... <costs> (version 1: every frame)"""
    toks = value.split()
    if len(toks) < 3:
        raise FormatError(path, lineno, "path: needs a thread, frames and costs")
    frames = _fn_ids(part, path, lineno, _ints(path, lineno, toks[1].split(";")))
    part.paths.append((_ints(path, lineno, toks[:1])[0], frames,
                       _ints(path, lineno, toks[2:])))


def _node_v2(part, path, lineno, key, value):
    """root: <id> <thread> <fn> [costs] / node: <id> <parent> <fn> [costs]
    (version 2: a node once, after its parent; its path is the parent's
    and its function)"""
    toks = _ints(path, lineno, value.split())
    if len(toks) < 3:
        raise FormatError(path, lineno, "%s: needs an id, a %s and a function"
                          % (key, "thread" if key == "root" else "parent"))
    ident, up, fn = toks[:3]
    if ident in part.nodes:
        raise FormatError(path, lineno, "node %d defined twice in the part" % ident)
    _fn_ids(part, path, lineno, [fn])
    if key == "root" and fn in part.objects:
        raise FormatError(path, lineno, "root %d: an object is a last frame, not a root" % ident)
    if up in part.nodes and part.nodes[up][1][-1] in part.objects:
        raise FormatError(path, lineno, "node %d: under an object's node" % ident)
    if key == "root":
        thread, frames = up, [fn]
    else:
        if up not in part.nodes:
            raise FormatError(path, lineno, "node %d: parent %d not defined before it"
                              % (ident, up))
        thread, above = part.nodes[up]
        frames = above + [fn]
    part.nodes[ident] = (thread, frames)
    if any(toks[3:]):
        part.paths.append((thread, frames, toks[3:]))


def read(path):
    """Parse one .paths file (every part); FormatError if malformed."""
    pf = PathsFile(path)
    part = None
    version = None
    with open(path, encoding="utf-8", errors="replace") as f:
        for lineno, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if not line or line.startswith("#"):
                continue
            key, sep, value = line.partition(":")
            if not sep:
                raise FormatError(path, lineno, "not a 'key: value' line")
            value = value[1:] if value.startswith(" ") else value
            if key == "version":
                version = int(value) if value.strip().isdigit() else value
                if version not in VERSIONS:
                    raise FormatError(path, lineno, "format version %s, this reader knows %s"
                                      % (value, " and ".join(map(str, VERSIONS))))
            elif version is None:
                raise FormatError(path, lineno, "no version: line before %r" % key)
            if key == "part":
                part = Part(int(value))
                pf.parts.append(part)
            elif part is None:
                pf.info[key] = value
            elif key == "thread":
                part.thread = int(value)
            elif key == "desc":
                if value.startswith("Trigger: "):
                    part.trigger = value[len("Trigger: "):]
            elif key == "events":
                part.events = value.split()
            elif key == "fn" or (key == "object" and version == 2):
                ident, _, rest = value.partition(" ")
                file_name, tab, fn = rest.partition("\t")
                if not tab:
                    raise FormatError(path, lineno, "%s: without a tab between %s and name"
                                      % (key, "file" if key == "fn" else "kind"))
                part.fns[int(ident)] = (file_name, fn)
                if key == "object":
                    part.objects.add(int(ident))
            elif key == "path" and version == 1:
                _path_v1(part, path, lineno, value)
            elif key in ("root", "node") and version == 2:
                _node_v2(part, path, lineno, key, value)
            elif key == "totals":
                part.totals = _ints(path, lineno, value.split())
            else:
                raise FormatError(path, lineno, "unknown key %r in a version %s file"
                                  % (key, version))
    if not pf.parts or pf.parts[-1].totals is None:
        raise FormatError(path, 0, "truncated: no totals: line at its end")
    return pf


def frame_name(file_name, fn, cwd):
    """As callgrind_annotate: file:function, the file below cwd relative."""
    prefix = cwd.rstrip("/") + "/"
    if file_name.startswith(prefix):
        file_name = file_name[len(prefix):]
    return "%s:%s" % (file_name, fn)


def folded(files, event, part=None, thread_frames=False, function_only=False,
           cwd=None):
    """{"frame;frame;...": value} of event over the files' parts (all,
    or part number `part`), zero values left out."""
    cwd = cwd or os.getcwd()
    stacks = {}
    for pf in files:
        for p in pf.parts:
            if part is not None and p.number != part:
                continue
            if event not in p.events:
                raise ValueError("%s has no event %s (it has: %s)"
                                 % (pf.path, event, " ".join(p.events)))
            names = {i: (fn if function_only else frame_name(fl, fn, cwd))
                     for i, (fl, fn) in p.fns.items()}
            for thread, frames, costs in p.paths:
                value = p.cost(costs, event)
                if not value:
                    continue
                stack = ";".join(names[i] for i in frames)
                if thread_frames:
                    stack = "thread %d;%s" % (thread, stack)
                stacks[stack] = stacks.get(stack, 0) + value
    return stacks


# ----------------------------------------------------------------------
# The flame graph: a tree of frames, each as wide as its inclusive value.

class _Frame:
    __slots__ = ("name", "value", "before", "kids")

    def __init__(self, name):
        self.name, self.value, self.before, self.kids = name, 0, 0, {}


def _tree(stacks, before=None):
    root = _Frame("all")
    for stack, value in stacks.items():
        node = root
        node.value += value
        for name in stack.split(";"):
            node = node.kids.setdefault(name, _Frame(name))
            node.value += value
    for stack, value in (before or {}).items():
        node = root
        node.before += value
        for name in stack.split(";"):
            node = node.kids.setdefault(name, _Frame(name))
            node.before += value
    return root


def _warm(name):
    h = zlib.crc32(name.encode())
    return "rgb(%d,%d,%d)" % (205 + h % 50, 80 + (h >> 8) % 130, (h >> 16) % 55)


def _diff_colour(frame, scale):
    """Red where the value grew, blue where it shrank, white alike."""
    delta = frame.value - frame.before
    t = min(1.0, abs(delta) / scale) if scale else 0.0
    fade = int(255 * (1 - t))
    return "rgb(255,%d,%d)" % (fade, fade) if delta > 0 else "rgb(%d,%d,255)" % (fade, fade)


def svg(stacks, title, event, before=None, width=1200):
    """A flame graph (root at the bottom) of stacks, as SVG text; with
    before, a differential one: widths from stacks, colours by change."""
    root = _tree(stacks, before)
    row, top, font = 17, 40, 11
    if root.value == 0 and not before:
        root.value = 1
    total = max(root.value, 1)
    boxes, depth = [], [0]
    scale = 0
    if before is not None:
        def max_delta(f):
            return max([abs(f.value - f.before)] + [max_delta(k) for k in f.kids.values()])
        scale = max_delta(root)

    def place(frame, x, level):
        w = frame.value * (width - 20) / total
        if w < 0.3:
            return
        depth[0] = max(depth[0], level)
        boxes.append((frame, x, level, w))
        for name in sorted(frame.kids):
            kid = frame.kids[name]
            place(kid, x, level + 1)
            x += kid.value * (width - 20) / total

    place(root, 10.0, 0)
    height = top + (depth[0] + 1) * row + 20
    out = ['<?xml version="1.0" standalone="no"?>',
           '<svg version="1.1" width="%d" height="%d" xmlns="http://www.w3.org/2000/svg">'
           % (width, height),
           '<rect x="0" y="0" width="%d" height="%d" fill="#f8f8f0"/>' % (width, height),
           '<text x="%d" y="24" font-size="17" font-family="Verdana" text-anchor="middle">%s</text>'
           % (width // 2, html.escape(title)),
           '<g font-family="Verdana" font-size="%d">' % font]
    for frame, x, level, w in boxes:
        y = height - 20 - (level + 1) * row
        pct = 100.0 * frame.value / total
        tip = "%s (%s %s, %.2f%%" % (frame.name, "{:,}".format(frame.value), event, pct)
        if before is not None:
            tip += ", before %s, %+d" % ("{:,}".format(frame.before), frame.value - frame.before)
        tip += ")"
        colour = _diff_colour(frame, scale) if before is not None else _warm(frame.name)
        out.append('<g><title>%s</title><rect x="%.1f" y="%d" width="%.1f" height="%d" '
                   'fill="%s" rx="2"/>' % (html.escape(tip), x, y, w, row - 1, colour))
        chars = int(w / (font * 0.6))
        if chars >= 3:
            label = frame.name if len(frame.name) <= chars else frame.name[:chars - 2] + ".."
            out.append('<text x="%.1f" y="%d">%s</text>' % (x + 3, y + row - 5, html.escape(label)))
        out.append('</g>')
    out.append('</g></svg>')
    return "\n".join(out) + "\n"


# ----------------------------------------------------------------------

def _paths_name(name):
    """A profile's name stands for its .paths file."""
    if not name.endswith(".paths") and os.path.exists(name + ".paths"):
        return name + ".paths"
    return name


def _is_profile(path):
    """A Callgrind-format profile (its first line says so), not a .paths
    file: both have a version: 1 line, so the reader alone would stop at
    the profile's first key a paths file has not, naming that key."""
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return f.readline().rstrip("\n") == "# callgrind format"
    except OSError:
        return False


def _load(names, prog):
    files = []
    for name in names:
        path = _paths_name(name)
        if not os.path.exists(path):
            hint = (" (a profile without paths: run with --paths=yes)"
                    if os.path.exists(name) else "")
            raise SystemExit("%s: %s: no such file%s" % (prog, path, hint))
        if _is_profile(path):
            raise SystemExit("%s: %s: a profile without %s.paths beside it (the run "
                             "needs --paths=yes to write it)" % (prog, path, path))
        try:
            files.append(read(path))
        except (FormatError, ValueError, UnicodeError) as e:
            raise SystemExit("%s: %s" % (prog, e))
    return files


def main(argv, version):
    prog = "callgrind-bd_paths"
    ap = argparse.ArgumentParser(
        prog=prog,
        description="Folded stacks and flame graphs of a run made with "
                    "--paths=yes: every event per full call path.")
    ap.add_argument("files", nargs="+", metavar="FILE",
                    help="a .paths file or its profile (several: their sum)")
    ap.add_argument("--event", default=None,
                    help="the event (default: the file's first, Ir)")
    ap.add_argument("--part", type=int, default=None,
                    help="only part N of a run with dumps (default: all)")
    ap.add_argument("--thread-frames", action="store_true",
                    help="a frame 'thread N' at the root of every stack")
    ap.add_argument("--functions-only", action="store_true",
                    help="frames without their file names")
    ap.add_argument("--diff", metavar="BEFORE", action="append", default=None,
                    help="compare with BEFORE (a .paths file, may be repeated): "
                         "'stack before after' lines; with --svg widths "
                         "after, red grew, blue shrank")
    ap.add_argument("--svg", metavar="OUT.svg", default=None,
                    help="write a flame graph to OUT.svg instead of printing stacks")
    ap.add_argument("--title", default=None, help="the flame graph's title")
    ap.add_argument("--version", action="version", version="%(prog)s " + version)
    args = ap.parse_args(argv)

    files = _load(args.files, prog)
    event = args.event or files[0].parts[0].events[0]
    opts = dict(part=args.part, thread_frames=args.thread_frames,
                function_only=args.functions_only)
    try:
        after = folded(files, event, **opts)
        before = folded(_load(args.diff, prog), event, **opts) if args.diff else None
    except ValueError as e:
        raise SystemExit("%s: %s" % (prog, e))

    if args.svg:
        title = args.title or "%s per call path: %s" % (
            event, " ".join(os.path.basename(f) for f in args.files))
        try:
            with open(args.svg, "w") as out:
                out.write(svg(after, title, event, before))
        except OSError as e:
            raise SystemExit("%s: cannot write %s: %s" % (prog, args.svg, e.strerror))
        return 0
    try:
        if before is None:
            for stack in sorted(after):
                print("%s %d" % (stack, after[stack]))
        else:
            for stack in sorted(set(after) | set(before)):
                print("%s %d %d" % (stack, before.get(stack, 0), after.get(stack, 0)))
    except BrokenPipeError:
        sys.stderr.close()
    return 0
