#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The layering check: no circle among the objects of the library and the
tool, from what nm says each defines and references.

    layering.py OBJ...

An object A depends on B when A references a symbol B defines.  Every
set of objects that reach each other (a strongly connected component of
more than one object) is printed, with the symbols of each edge, and
the exit status is 1; 0 when the objects form no circle.
"""
import subprocess
import sys


def symbols(obj):
    """(defined globals, undefined references) of @obj, from nm."""
    out = subprocess.run(["nm", obj], capture_output=True, text=True,
                         check=True).stdout
    defs, refs = set(), set()
    for line in out.splitlines():
        f = line.split()
        if len(f) == 2 and f[0] == "U":
            refs.add(f[1])
        elif len(f) == 3 and f[1] in "TDBRVWGSC" and f[1].isupper():
            defs.add(f[2])
    return defs, refs


def components(nodes, edges):
    """Tarjan's strongly connected components of the graph."""
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        work = [(v, iter(sorted(edges[v])))]
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        while work:
            node, it = work[-1]
            nxt = next(it, None)
            if nxt is None:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    comp = []
                    while True:
                        w = stack.pop()
                        on.discard(w)
                        comp.append(w)
                        if w == node:
                            break
                    out.append(sorted(comp))
            elif nxt not in index:
                index[nxt] = low[nxt] = counter[0]
                counter[0] += 1
                stack.append(nxt)
                on.add(nxt)
                work.append((nxt, iter(sorted(edges[nxt]))))
            elif nxt in on:
                low[node] = min(low[node], index[nxt])
    for v in nodes:
        if v not in index:
            visit(v)
    return out


def main(objs):
    syms = {o: symbols(o) for o in objs}
    owner = {}
    for o, (defs, _) in syms.items():
        for s in defs:
            owner.setdefault(s, o)
    edges = {o: {} for o in objs}
    for o, (_, refs) in syms.items():
        for s in refs:
            d = owner.get(s)
            if d and d != o:
                edges[o].setdefault(d, []).append(s)
    bad = [c for c in components(objs, edges) if len(c) > 1]
    for c in bad:
        print("circle: %s" % " ".join(c))
        for a in c:
            for b in c:
                if b in edges[a]:
                    print("  %s -> %s: %s" % (a, b,
                                              " ".join(sorted(edges[a][b])[:6])))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
