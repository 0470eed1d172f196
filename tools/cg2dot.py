#!/usr/bin/env python3
"""cg2dot.py: a Callgrind-format profile as a Graphviz call graph, coloured
by the inclusive cost of one event.

    tools/cg2dot.py [--event=SpLoss1] [--threshold=1] PROFILE > graph.dot
    dot -Tpng graph.dot > graph.png

Model: one node per function of an object ("name [object]": the same name
in two objects, e.g. "(below main)" of the program and of libc, is two
nodes; all parts of a --combine-dumps file summed), one edge per call arc
with its inclusive cost and call count, read with the project's reader
(cgbd.cgfile, tools/cgbd/) with names qualified by object. A node's inclusive cost is the sum of the
inclusive costs of the arcs calling it (recursive arcs left out, so a
recursion is not counted twice); a function nobody calls (the root, e.g.
the loader's entry) gets its self cost plus its outgoing arcs. Nodes and
edges below THRESHOLD percent of the event's total are left out, so the
graph shows the chains that matter. Colour goes from white (0 %) to red
(100 % of the total); edge width grows with the share too.
"""

import argparse
import os
import sys

from cgbd import cgfile     # the package beside this script (tools/cgbd)


def qualify(name, obj):
    return "%s [%s]" % (name, os.path.basename(obj or "???"))


def parse_by_object(path):
    """Like cgfile.parse, with names qualified by object."""
    return cgfile.parse(path, fn_key=qualify)


def node_inclusive(part, event):
    """function name -> inclusive cost of event (see the module doc)."""
    incoming, outgoing = {}, {}
    for (caller, callee), arc in part.arcs.items():
        if caller == callee:
            continue
        cost = arc.inclusive.get(event, 0)
        incoming[callee] = incoming.get(callee, 0) + cost
        outgoing[caller] = outgoing.get(caller, 0) + cost
    incl = {}
    for name, fn in part.fns.items():
        if name in incoming:
            incl[name] = incoming[name]
        else:
            incl[name] = fn.self_cost.get(event, 0) + outgoing.get(name, 0)
    return incl


def event_total(part, event):
    totals = part.totals or part.summary or part.self_total()
    return totals.get(event, 0) or part.self_total().get(event, 0)


def colour(share):
    """White for 0, red for 1 (fill colour as #rrggbb)."""
    share = max(0.0, min(1.0, share))
    other = int(round(255 * (1 - share)))
    return "#ff%02x%02x" % (other, other)


def quote(text):
    return '"%s"' % text.replace("\\", "\\\\").replace('"', '\\"')


def to_dot(part, event, threshold):
    """The dot text of part's call graph for event (threshold in %)."""
    total = event_total(part, event)
    incl = node_inclusive(part, event)
    floor = total * threshold / 100.0

    def share(cost):
        return cost / total if total else 0.0

    shown = {n for n, c in incl.items() if total and c >= floor and c > 0}
    lines = ["digraph callgraph {",
             "  label=%s;" % quote("inclusive %s (total %d), threshold %g %%"
                                   % (event, total, threshold)),
             "  labelloc=t;",
             "  node [shape=box, style=\"rounded,filled\", "
             "fontname=\"Helvetica\"];",
             "  edge [fontname=\"Helvetica\", fontsize=10];"]
    for name in sorted(shown):
        self_cost = part.fns[name].self_cost.get(event, 0)
        label = "%s\\nincl %d (%.1f %%)\\nself %d" % (
            name.replace('"', '\\"'), incl[name], 100 * share(incl[name]),
            self_cost)
        lines.append('  %s [label="%s", fillcolor="%s"];'
                     % (quote(name), label, colour(share(incl[name]))))
    for (caller, callee), arc in sorted(part.arcs.items()):
        cost = arc.inclusive.get(event, 0)
        if caller not in shown or callee not in shown or cost < floor \
                or cost == 0:
            continue
        lines.append('  %s -> %s [label="%d\\n%dx", penwidth=%.1f];'
                     % (quote(caller), quote(callee), cost, arc.calls,
                        1 + 5 * share(cost)))
    lines.append("}")
    return "\n".join(lines) + "\n"


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("profile")
    ap.add_argument("--event", default=None,
                    help="event to colour by (default: the first one)")
    ap.add_argument("--threshold", type=float, default=1.0,
                    help="leave out nodes/edges below this %% of the total")
    args = ap.parse_args(argv)
    try:
        part = parse_by_object(args.profile).merged()
    except (OSError, cgfile.FormatError) as e:
        print("cg2dot: %s" % e, file=sys.stderr)
        return 1
    event = args.event or (part.events[0] if part.events else None)
    if event not in part.events:
        print("cg2dot: event %r not in the profile (events: %s)"
              % (event, " ".join(part.events)), file=sys.stderr)
        return 1
    sys.stdout.write(to_dot(part, event, args.threshold))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
