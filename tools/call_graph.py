#!/usr/bin/env python3
"""Prints the call graph between the .cpp files of src/ (from the build's object files: which
file uses a function or an object another file defines) and exits 1 when it has a circle,
printing each group of files that call each other (directly or around a chain).

Why: a pair or a chain of .cpp files that call into each other has no bottom: neither can be read,
tested or changed without the other (issue #49). Inside a layer, files stand on one another in one
direction; the lifecycle (core/runtime.cpp) calls down into every part and nothing calls up into it,
and state that everyone reads lives in a file of its own (core/state.cpp). A callback that a lower
file must run is registered with it (a hook), not called by name.

Edges: an undefined symbol of namespace ushmem:: in one object that another object defines
(text, data, bss, read-only; not weak: inline functions and template instances are defined in
every object that uses them). Functions declared extern "C" do not count (the C API's entry points
live in src/api, outside the internal library).
Usage: call_graph.py BUILD_DIR [--layer core] [--ignore NAME] [--quiet]   (ctest: call_graph, label unit)
BUILD_DIR is the build tree (its src/CMakeFiles/ushmem_internal.dir holds the objects); --layer
limits the check to the files under that folder of src/ (repeatable; default: every layer);
--ignore drops the edges of the symbols whose name contains NAME (repeatable: a known edge that
another change removes, named where the test is declared).
"""
import glob
import os
import subprocess
import sys


def objects(build):
    base = os.path.join(build, 'src', 'CMakeFiles', 'ushmem_internal.dir')
    found = {}
    for o in sorted(glob.glob(os.path.join(base, '**', '*.o'), recursive=True)):
        name = os.path.relpath(o, base)
        if name.endswith('.o'):
            name = name[:-2]
        found[name] = o
    return found


def symbols(path):
    """(defined, used): the ushmem:: symbols the object defines strongly and the ones it needs."""
    out = subprocess.run(['nm', '-C', path], capture_output=True, text=True, check=True).stdout
    defined, used = set(), set()
    for line in out.splitlines():
        if line.startswith(' '):
            kind, _, sym = line.strip().partition(' ')
        else:
            parts = line.split(None, 2)
            if len(parts) < 3:
                continue
            kind, sym = parts[1], parts[2]
        if not sym.startswith('ushmem::') or sym.startswith('guard variable'):
            continue
        if kind in 'TBDR':
            defined.add(sym)
        elif kind == 'U':
            used.add(sym)
    return defined, used


def graph(objs, ignore=()):
    defs, uses = {}, {}
    for name, path in objs.items():
        defs[name], uses[name] = symbols(path)
    owner = {s: n for n, d in defs.items() for s in d}
    edges = {n: {} for n in objs}
    for n, u in uses.items():
        for s in sorted(u):
            o = owner.get(s)
            if o and o != n and not any(i in s for i in ignore):
                edges[n].setdefault(o, []).append(s)
    return edges


def circles(edges):
    """The strongly connected components of more than one file (Tarjan), each sorted."""
    index, low, on, stack, out = {}, {}, set(), [], []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in edges.get(v, {}):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in sorted(edges):
        if v not in index:
            visit(v)
    return out


def main():
    args = sys.argv[1:]
    layers = [args[i + 1] for i, a in enumerate(args) if a == '--layer' and i + 1 < len(args)]
    ignore = [args[i + 1] for i, a in enumerate(args) if a == '--ignore' and i + 1 < len(args)]
    rest = [a for i, a in enumerate(args)
            if not a.startswith('--') and (i == 0 or args[i - 1] not in ('--layer', '--ignore'))]
    if not rest:
        print(__doc__, file=sys.stderr)
        return 2
    objs = objects(rest[0])
    if layers:
        objs = {n: p for n, p in objs.items() if any(n.startswith(l.rstrip('/') + '/') for l in layers)}
    if not objs:
        print(f"no object files under {rest[0]} (build first)", file=sys.stderr)
        return 2
    edges = graph(objs, ignore)
    if '--quiet' not in args:
        for n in sorted(edges):
            print(f"{n}: {' '.join(sorted(edges[n]))}")
    found = circles(edges)
    for comp in found:
        print('circle: ' + ' '.join(comp), file=sys.stderr)
        members = set(comp)
        for a in comp:
            for b, syms in sorted(edges[a].items()):
                if b in members:
                    more = f' (+{len(syms) - 3})' if len(syms) > 3 else ''
                    print(f'  {a} -> {b}: {"; ".join(syms[:3])}{more}', file=sys.stderr)
    if found:
        return 1
    print(f"{len(edges)} files, no call circle")
    return 0


if __name__ == '__main__':
    sys.exit(main())
