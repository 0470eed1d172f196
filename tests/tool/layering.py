#!/usr/bin/env python3
"""Structure of callgrind/: the files call each other without big loops.

From the symbol tables of the built objects (nm), file A depends on file B
when A uses a function B defines. Every strongly connected set of files
(files reaching each other through such calls) must hold at most three
files: a larger loop means the rooms of callgrind/README.md leak.
Run from the build tree (after make)."""
import glob, os, re, subprocess, sys

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MAX_LOOP = 3


def symbols(obj):
    """(defined functions, used symbols) of one object file."""
    out = subprocess.run(["nm", obj], capture_output=True, text=True, check=True).stdout
    defined, used = set(), set()
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[1] in "TW":
            defined.add(parts[2])
        elif len(parts) == 2 and parts[0] == "U":
            used.add(parts[1])
    return defined, used


def call_graph():
    name = lambda o: re.sub(r"^.*-", "", os.path.basename(o))[:-2] + ".c"
    # objects of files that no longer exist (a stale build) do not count
    objs = [o for o in sorted(glob.glob(os.path.join(TOP, "callgrind", "*.o")))
            if os.path.exists(os.path.join(TOP, "callgrind", name(o)))]
    syms = {name(o): symbols(o) for o in objs}
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
    bad = [c for c in loops(graph) if len(c) > MAX_LOOP]
    for c in loops(graph):
        print("  loop:", " ".join(c))
    if bad:
        print("FAIL layering: call loop among %d files: %s" % (len(bad[0]), " ".join(bad[0])))
        return 1
    print("PASS layering: no call loop among more than %d files in callgrind/" % MAX_LOOP)
    return 0


if __name__ == "__main__":
    sys.exit(main())
