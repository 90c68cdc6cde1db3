#!/usr/bin/env python3
"""Prints the include graph of src/ (one line per file: the project headers it includes) and
exits 1 when the graph has a cycle, printing each cycle found.

Why: a header cycle hides which part of the library rests on which (issue #49); the layers are
api -> core -> transport / bootstrap -> util, and inside core each header names what it stands on.
Only quoted includes that resolve to a file under src/ count (<...> headers are outside the project).
Usage: include_graph.py [SRC_DIR] [--quiet]   (ctest runs it as include_graph, label unit)
"""
import os
import re
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def graph(src):
    edges = {}
    for root, _, files in os.walk(src):
        for f in sorted(files):
            if not f.endswith(('.hpp', '.cpp', '.h', '.c')):
                continue
            path = os.path.join(root, f)
            name = os.path.relpath(path, src)
            with open(path, encoding='utf-8') as fh:
                text = fh.read()
            deps = []
            for inc in INCLUDE.findall(text):
                # Project includes are written from src/ ("core/wait.hpp"); a bare name is looked
                # up beside the including file.
                for cand in (inc, os.path.join(os.path.dirname(name), inc)):
                    if os.path.isfile(os.path.join(src, cand)):
                        cand = os.path.normpath(cand)
                        if cand not in deps:
                            deps.append(cand)
                        break
            edges[name] = deps
    return edges


def cycles(edges):
    """Every cycle reachable by depth-first search, each as the list of files around it."""
    found, state, stack = [], {}, []

    def visit(n):
        state[n] = 1
        stack.append(n)
        for d in edges.get(n, []):
            if state.get(d) == 1:
                found.append(stack[stack.index(d):] + [d])
            elif d not in state:
                visit(d)
        stack.pop()
        state[n] = 2

    for n in sorted(edges):
        if n not in state:
            visit(n)
    return found


def main():
    args = [a for a in sys.argv[1:] if not a.startswith('--')]
    src = args[0] if args else os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'src')
    edges = graph(src)
    if '--quiet' not in sys.argv:
        for n in sorted(edges):
            print(f"{n}: {' '.join(edges[n])}")
    found = cycles(edges)
    for c in found:
        print('cycle: ' + ' -> '.join(c), file=sys.stderr)
    if found:
        return 1
    print(f"{len(edges)} files, no include cycle")
    return 0


if __name__ == '__main__':
    sys.exit(main())
