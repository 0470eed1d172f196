#!/usr/bin/env python3
"""Structure of callgrind/, from the symbol tables of the built objects (nm).

- layering: file A depends on file B when A calls a function B defines.
  Every strongly connected set of files (files reaching each other through
  such calls) must hold at most three files: a larger loop means the rooms
  of callgrind/README.md leak.
- declarations: every name a file defines and another file uses is
  declared in the header of the file that defines it: global.h's section
  for that file ("--- file.c: ..."), or the headers of a room of
  several files (ROOM_HEADERS: objects.h / objects_int.h for the data
  objects' files objects*.c, sim_int.h for the simulation's sim*.c), or
  a file's own header (paths.h: paths.c's per-call work, inline in
  callstack.c).
Needs the built tree (make)."""
import glob, os, re, subprocess, sys

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# the objects are in the build directory (tests/run: CGBD_BUILDDIR when
# it is not the source tree)
BUILDDIR = os.environ.get("CGBD_BUILDDIR") or TOP
MAX_LOOP = 3
# Rooms of several files with headers of their own: file-name prefix ->
# the headers that may declare the names their files share.
ROOM_HEADERS = {"objects": ("objects.h", "objects_int.h"),
                "sim": ("sim_int.h",),
                "paths": ("paths.h",)}


def symbols(obj, kinds="TW"):
    """(defined symbols of those nm kinds, used symbols) of one object file."""
    out = subprocess.run(["nm", obj], capture_output=True, text=True, check=True).stdout
    defined, used = set(), set()
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[1] in kinds:
            defined.add(parts[2])
        elif len(parts) == 2 and parts[0] == "U":
            used.add(parts[1])
    return defined, used


def objects():
    """{source file name: object file} of callgrind/."""
    name = lambda o: re.sub(r"^.*-", "", os.path.basename(o))[:-2] + ".c"
    # objects of files that no longer exist (a stale build) do not count
    return {name(o): o for o in sorted(glob.glob(os.path.join(BUILDDIR, "callgrind", "*.o")))
            if os.path.exists(os.path.join(TOP, "callgrind", name(o)))}


def header_sections():
    """{file.c: text of global.h's section declaring its names}."""
    text = open(os.path.join(TOP, "callgrind", "global.h")).read()
    sections = {}
    parts = re.split(r"/\*--- (.*?)\s*---\*/", text)
    for title, body in zip(parts[1::2], parts[2::2]):
        files = re.findall(r"(\w+\.c)", title.split(":")[0])
        for f in files:
            sections[f] = sections.get(f, "") + body
    return sections


def room_headers(src):
    """The text of the headers of src's room ("" when it has none)."""
    for prefix, headers in ROOM_HEADERS.items():
        if src.startswith(prefix):
            return "".join(open(os.path.join(TOP, "callgrind", h)).read()
                           for h in headers)
    return ""


def undeclared():
    """Names used across files but not declared with their definer."""
    syms = {src: symbols(o, "TWDBR") for src, o in objects().items()}
    owner = {f: src for src, (d, _) in syms.items() for f in d}
    used = {u for _, (_, us) in syms.items() for u in us}
    sections = header_sections()
    missing = []
    for name, src in sorted(owner.items()):
        if name not in used or src == "port.c":   # port.c: for cachesim/, backdate/
            continue
        text = sections.get(src, "") + room_headers(src)
        if not re.search(r"\b%s\b" % re.escape(name), text):
            missing.append("%s (%s)" % (name, src))
    return missing


def call_graph():
    syms = {src: symbols(o) for src, o in objects().items()}
    owner = {f: src for src, (d, _) in syms.items() for f in d}
    graph = {src: {owner[u] for u in used if u in owner and owner[u] != src}
             for src, (_, used) in syms.items()}
    return graph


def loops(graph):
    """Strongly connected components (Tarjan) with more than one file."""
    index, low, stack, on, out = {}, {}, [], set(), []
    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v); on.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w); low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop(); on.discard(w); comp.append(w)
                if w == v: break
            if len(comp) > 1: out.append(sorted(comp))
    for v in sorted(graph):
        if v not in index: visit(v)
    return out


def main():
    graph = call_graph()
    if len(graph) < 10:
        print("FAIL layering: callgrind/*.o not found (build first)")
        return 1
    if "-v" in sys.argv:
        for f in sorted(graph): print(f, "->", " ".join(sorted(graph[f])))
    failed = 0
    bad = [c for c in loops(graph) if len(c) > MAX_LOOP]
    for c in loops(graph):
        print("  loop:", " ".join(c))
    if bad:
        print("FAIL layering: call loop among %d files: %s" % (len(bad[0]), " ".join(bad[0])))
        failed = 1
    else:
        print("PASS layering: no call loop among more than %d files in callgrind/" % MAX_LOOP)
    missing = undeclared()
    if missing:
        print("FAIL declarations: not declared in the header section of their file: "
              + ", ".join(missing))
        failed = 1
    else:
        print("PASS declarations: every cross-file name is declared with its file")
    return failed


if __name__ == "__main__":
    sys.exit(main())
