#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""
layering.py DOC SRC BUILD - check that runner/ keeps its layers.

DOC (docs/architecture.md) holds the layer table, one row a folder of SRC
(runner/), lowest first:  | 1 | `lib/` | ... |.  A file may use its own
folder and the folders below it, never one above. Two kinds of use are read:
  - every #include "FOLDER/x.h" of SRC/**/*.[ch] (a bare "x.h" must be a
    header of the file's own folder);
  - every call or reference the linker resolves: the undefined symbols of
    each object under BUILD/runner/, matched to the object that defines
    them (nm), each reported at the first line of code that names it.
And no two files may use each other, directly or around a circle.
Each problem is printed as FILE:LINE: what is wrong; exit 1 if any.
"""
import os
import re
import subprocess
import sys


def layers(doc):
    rank = {}
    for line in open(doc):
        m = re.match(r'^\|\s*(\d+)\s*\|\s*`([a-z]+)/`\s*\|', line)
        if m:
            folder = m.group(2)
            if folder in rank:
                sys.exit('%s: folder %s/ twice in the layer table' % (doc, folder))
            rank[folder] = int(m.group(1))
    if not rank:
        sys.exit('%s: no layer table (rows "| N | `folder/` | ... |")' % doc)
    if sorted(rank.values()) != list(range(1, len(rank) + 1)):
        sys.exit('%s: layers must be numbered 1..%d, once each' % (doc, len(rank)))
    return rank


def sources(src):
    out = []
    for d, _, files in os.walk(src):
        for f in files:
            if f.endswith(('.c', '.h')):
                out.append(os.path.join(d, f))
    return sorted(out)


def folder_of(src, path):
    rel = os.path.relpath(path, src)
    return rel.split(os.sep)[0] if os.sep in rel else ''


def first_use(path, sym):
    pat = re.compile(r'\b%s\b' % re.escape(sym))
    with open(path) as f:
        for n, line in enumerate(f, 1):
            code = line.split('//')[0].strip()
            if code.startswith(('/*', '*')):
                continue	# a comment that names it
            if pat.search(code):
                return n
    return 1


def nm(obj, *args):
    r = subprocess.run(['nm'] + list(args) + [obj], capture_output=True, text=True)
    return r.stdout.splitlines()


def main():
    doc, src, build = sys.argv[1:4]
    rank = layers(doc)
    problems = []
    files = sources(src)
    folders = {folder_of(src, f) for f in files}
    for f in sorted(folders):
        if f not in rank:
            problems.append('%s/%s: folder not in the layer table of %s' % (src, f, doc))
    for f in sorted(rank):
        if f not in folders:
            problems.append('%s: layer %s/ has no folder under %s' % (doc, f, src))

    inc = re.compile(r'^\s*#\s*include\s+"([^"]+)"')
    for path in files:
        me = folder_of(src, path)
        for n, line in enumerate(open(path), 1):
            m = inc.match(line)
            if not m:
                continue
            name = m.group(1)
            if '/' not in name:
                here = os.path.join(os.path.dirname(path), name)
                if not os.path.exists(here) and not name.endswith('.skel.h') \
                   and name not in ('describe.h',) and not os.path.exists(os.path.join('bpf', name)):
                    problems.append('%s:%d: "%s" is no header of %s/' % (path, n, name, me))
                continue
            top = name.split('/')[0]
            if top not in rank or me not in rank:
                continue
            if rank[top] > rank[me]:
                problems.append('%s:%d: includes "%s": %s/ (layer %d) is above %s/ (layer %d)'
                                % (path, n, name, top, rank[top], me, rank[me]))

    # Calls and references, as the linker resolves them.
    objs = {}
    for path in files:
        if path.endswith('.c'):
            obj = os.path.join(build, os.path.splitext(path)[0] + '.o')
            # a program of its own built from runner/ (the Makefile's HELPER_SRCS)
            helper = os.path.join(build, 'helper', os.path.splitext(path)[0] + '.o')
            if not os.path.exists(obj) and os.path.exists(helper):
                obj = helper
            if not os.path.exists(obj):
                problems.append('%s: not built (%s missing)' % (path, obj))
                continue
            objs[path] = obj
    defined = {}
    for path, obj in objs.items():
        for line in nm(obj, '--defined-only', '-g'):
            parts = line.split()
            if len(parts) == 3:
                defined[parts[2]] = path
    uses = {}
    for path, obj in objs.items():
        me = folder_of(src, path)
        for line in nm(obj, '-u'):
            parts = line.split()
            sym = parts[-1] if parts else ''
            other = defined.get(sym)
            if not other or other == path:
                continue
            uses.setdefault(path, {}).setdefault(other, []).append(sym)
            them = folder_of(src, other)
            if me in rank and them in rank and rank[them] > rank[me]:
                problems.append('%s:%d: uses %s of %s: %s/ (layer %d) is above %s/ (layer %d)'
                                % (path, first_use(path, sym), sym, other, them,
                                   rank[them], me, rank[me]))

    # Circles between files (Tarjan's strongly connected components).
    index, low, stack, on, comps = {}, {}, [], set(), []

    def strong(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(uses.get(v, {})):
            if w not in index:
                strong(w)
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
                comps.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in sorted(objs):
        if v not in index:
            strong(v)
    for comp in comps:
        ties = []
        for a in comp:
            for b in comp:
                if b in uses.get(a, {}):
                    syms = sorted(set(uses[a][b]))
                    ties.append('%s:%d -> %s (%s)' % (a, first_use(a, syms[0]), b,
                                                       ', '.join(syms[:4])))
        problems.append('circle of %d files: %s' % (len(comp), '; '.join(ties)))

    for p in problems:
        print(p)
    return 1 if problems else 0


if __name__ == '__main__':
    sys.exit(main())
