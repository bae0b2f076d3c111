#!/usr/bin/env python3
"""The import layers of src/: no cycle between files, no import back up.

Reads every `crate::` and `super::` path of every file under src/ (in `use`
lines and inline, test code left out), resolves each to the file that
defines it, and builds the file-level import graph. Fails when

  - two or more files import each other (a cycle of any length; a
    folder's mod.rs and the files under it are one module and may), or
  - two or more top-level modules import each other, or
  - a file imports a file of a higher layer than its own (LAYERS below).

A file's layer is the first entry of LAYERS whose prefix its path (relative
to src/, without `.rs`) starts with; a file that matches no entry fails too,
so that a new module is given its place on purpose.

Usage: scripts/check-layers.py [--graph]   (--graph prints the edges)
"""

import os
import re
import sys

SRC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src")

# Top to bottom. A module may import from its own layer (no cycle) and
# from the layers below it, never from one above. Prefixes are module
# paths relative to src/; the longest matching prefix wins.
LAYERS = [
    # the binary: parse flags, map the exit status
    ["main"],
    # dispatch, and one module per command
    ["app", "commands"],
    # the pipeline: the run loop and the per-document flow
    ["pipeline"],
    # what the commands read beside the pipeline: the command line, the
    # project, merging shards, exports, the review page
    ["cli", "project", "merge", "review", "export"],
    # the late stages: catalogues, writing, hashing, finding files,
    # choosing pages, naming, the record
    ["online", "write", "fingerprint", "discover", "select", "name", "record"],
    # the cache: its keys name every reading stage's version
    ["cache"],
    # the reading stages: pdfium and the text reader, OCR, vision
    ["vision", "ocr", "inspect"],
    # run folders and shards
    ["runs", "shard"],
    # the report's data (records, counts) and the progress display
    ["report", "progress"],
    # the settings schema
    ["settings"],
    # the pure finders and the decision: page text in, candidates out
    ["extract", "decide"],
    # the nouns passed between stages, how a command ends
    ["model", "exit"],
    # the ground floor: no knowledge of colophon
    ["util"],
    # test support stands apart
    ["testing", "fixtures"],
]

# The crate root names every module (`pub mod x;`): that is not an import.
IGNORED_FILES = {"lib"}


def module_files():
    """Module path (tuple) -> file, for every .rs file under src/."""
    mods = {}
    for root, _, files in os.walk(SRC):
        for f in files:
            if not f.endswith(".rs"):
                continue
            rel = os.path.relpath(os.path.join(root, f), SRC)[:-3]
            parts = rel.split(os.sep)
            if parts[-1] == "mod":
                parts = parts[:-1]
            mods[tuple(parts)] = rel
    return mods


def strip_literals(text):
    """`text` without comments, string and char literals (a scan, as regexes
    cannot tell a `"` in a char literal or a raw string from a string's)."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
        elif text.startswith("/*", i):
            depth, i = 1, i + 2
            while i < n and depth:
                if text.startswith("/*", i):
                    depth, i = depth + 1, i + 2
                elif text.startswith("*/", i):
                    depth, i = depth - 1, i + 2
                else:
                    i += 1
        elif re.match(r'b?r#*"', text[i : i + 8]) and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")):
            m = re.match(r'b?r(#*)"', text[i:])
            end = '"' + m.group(1)
            j = text.find(end, i + m.end())
            i = n if j < 0 else j + len(end)
            out.append('""')
        elif c == '"':
            i += 1
            while i < n and text[i] != '"':
                i += 2 if text[i] == "\\" else 1
            i += 1
            out.append('""')
        elif c == "'":
            m = re.match(r"'(?:\\.[^']*|[^'\\])'", text[i:])
            if m:
                out.append("' '")
                i += m.end()
            else:
                out.append(c)
                i += 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def strip_tests_and_comments(text):
    """The file's text without comments, literals and `#[cfg(test)]` items."""
    text = strip_literals(text)
    out, i = [], 0
    for m in re.finditer(r"#\[cfg\(test\)\]", text):
        if m.start() < i:
            continue
        out.append(text[i : m.start()])
        # Skip the next item: up to the end of its block, or its `;`.
        j = m.end()
        depth = 0
        while j < len(text):
            c = text[j]
            if c == "{":
                depth += 1
            elif c == "}":
                depth -= 1
                if depth == 0:
                    j += 1
                    break
            elif c == ";" and depth == 0:
                j += 1
                break
            j += 1
        i = j
    out.append(text[i:])
    return "".join(out)


def expand_use(tree):
    """`a::{b, c::{d, e}}` -> ["a::b", "a::c::d", "a::c::e"]."""
    tree = re.sub(r"\s+", "", tree)
    m = re.match(r"^(.*?)::\{(.*)\}$", tree)
    if not m:
        return [re.sub(r"\bas\w+$", "", tree)]
    prefix, inner = m.group(1), m.group(2)
    parts, depth, cur = [], 0, ""
    for c in inner:
        if c == "," and depth == 0:
            parts.append(cur)
            cur = ""
            continue
        depth += c == "{"
        depth -= c == "}"
        cur += c
    if cur:
        parts.append(cur)
    paths = []
    for p in parts:
        if p == "self":
            paths.append(prefix)
        else:
            paths.extend(prefix + "::" + q for q in expand_use(p))
    return paths


def module_of(rel):
    parts = rel.split(os.sep)
    if parts[-1] == "mod":
        parts = parts[:-1]
    return parts


def resolve(path, here, mods):
    """The file a `crate::`/`super::` path names, or None (an outside crate)."""
    segs = [s for s in path.split("::") if s]
    cur = module_of(here)
    if segs and segs[0] == "crate":
        base, segs = [], segs[1:]
    elif segs and segs[0] in ("super", "self"):
        # `super` in a file is its parent module (in mod.rs, the folder's parent).
        base = list(cur)
        while segs and segs[0] in ("super", "self"):
            if segs[0] == "super":
                base = base[:-1]
            segs = segs[1:]
    else:
        return None
    full = base + segs
    # The longest prefix that is a module file.
    for n in range(len(full), -1, -1):
        key = tuple(full[:n])
        if key in mods:
            return mods[key]
    return None


def imports(rel, text, mods):
    text = strip_tests_and_comments(text)
    found = set()
    for m in re.finditer(r"\buse\s+((?:crate|super|self)::[^;]*);", text):
        for p in expand_use(m.group(1)):
            target = resolve(p, rel, mods)
            if target:
                found.add(target)
    for m in re.finditer(r"(?<![\w:])((?:crate|super)(?:::(?:super|\w+))+)", text):
        target = resolve(m.group(1), rel, mods)
        if target:
            found.add(target)
    found.discard(rel)
    # A folder's mod.rs declaring its children (`mod x;`) is no import:
    # only paths are read here, so declarations never show up.
    return found


def layer_of(rel):
    name = "/".join(module_of(rel)) or "lib"
    best = None
    for i, layer in enumerate(LAYERS):
        for prefix in layer:
            if name == prefix or name.startswith(prefix + "/"):
                if best is None or len(prefix) > best[1]:
                    best = (i, len(prefix))
    return None if best is None else best[0]


def related(a, b):
    """A folder's `mod.rs` and a file under that folder: the parent declares
    and re-exports its children, the children use the parent's types. One
    module in two files, not an import between two modules."""
    ma, mb = module_of(a), module_of(b)
    return mb[: len(ma)] == ma or ma[: len(mb)] == mb


def top(rel):
    return module_of(rel)[0] if module_of(rel) else "lib"


def cycles(graph):
    """Strongly connected components of more than one file (Tarjan)."""
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]
    sys.setrecursionlimit(10000)

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph.get(v, ()):
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

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def test_files(mods):
    """Files declared `#[cfg(test)] mod x;`: test code, left out."""
    out = set()
    for key, rel in mods.items():
        with open(os.path.join(SRC, rel + ".rs"), encoding="utf-8") as f:
            text = f.read()
        for m in re.finditer(r"#\[cfg\(test\)\]\s*(?:#\[[^\]]*\]\s*)*(?:pub(?:\([^)]*\))?\s+)?mod\s+(\w+)\s*;", text):
            child = key + (m.group(1),)
            if child in mods:
                out.add(mods[child])
    return out


def main():
    mods = module_files()
    tests = test_files(mods)
    graph = {}
    for rel in sorted(mods.values()):
        if rel in IGNORED_FILES or rel in tests:
            continue
        with open(os.path.join(SRC, rel + ".rs"), encoding="utf-8") as f:
            text = f.read()
        graph[rel] = sorted(
            t for t in imports(rel, text, mods) if t not in IGNORED_FILES and t not in tests
        )
    problems = []
    if "--graph" in sys.argv:
        for a, bs in graph.items():
            for b in bs:
                print(f"{a} -> {b}")
    for rel in graph:
        if layer_of(rel) is None:
            problems.append(f"{rel}.rs: in no layer (add it to LAYERS in scripts/check-layers.py)")
    for a, bs in graph.items():
        la = layer_of(a)
        for b in bs:
            lb = layer_of(b)
            if la is not None and lb is not None and lb < la:
                problems.append(f"{a}.rs (layer {la + 1}) imports {b}.rs (layer {lb + 1}, higher)")
    files = {a: [b for b in bs if not related(a, b)] for a, bs in graph.items()}
    for comp in cycles(files):
        problems.append("cycle between files: " + " <-> ".join(c + ".rs" for c in comp))
    modules = {}
    for a, bs in graph.items():
        modules.setdefault(top(a), set()).update(top(b) for b in bs if top(b) != top(a))
    for comp in cycles({m: sorted(t) for m, t in modules.items()}):
        problems.append("cycle between modules: " + " <-> ".join(comp))
    for p in problems:
        print(f"check-layers: {p}", file=sys.stderr)
    if problems:
        sys.exit(1)
    print(f"check-layers: {len(graph)} files, {sum(map(len, graph.values()))} imports, no cycle, none back up")


if __name__ == "__main__":
    main()
