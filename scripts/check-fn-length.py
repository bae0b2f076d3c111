#!/usr/bin/env python3
"""The length of every non-test function under src/: none above a limit.

A function is measured from its `fn` line to the closing brace at its own
indentation, both counted. Test code is left out: files named tests.rs or
testing.rs, and everything from a `#[cfg(test)]` followed by `mod tests`
to the end of its file. (This is the measure of issue 37, the same as the
house tool longfn.py.)

Usage: scripts/check-fn-length.py [LIMIT]   (LIMIT defaults to 80)

Prints every function longer than LIMIT, longest first, as
`LINES PATH NAME LINE`, and exits 1 when there is one; else prints the
longest function and exits 0.
"""

import os
import re
import sys

SRC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src")

FN = re.compile(
    r'^(\s*)(pub(\([^)]*\))?\s+)?(const\s+)?(unsafe\s+)?(extern "C"\s+)?fn\s+(\w+)'
)


def functions(path):
    """(length, name, first line) of each non-test function of one file."""
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    end = len(lines)
    for i, line in enumerate(lines):
        if line.startswith("#[cfg(test)]") and i + 1 < len(lines) and lines[i + 1].startswith("mod tests"):
            end = i
            break
    i = 0
    while i < end:
        m = FN.match(lines[i])
        if m:
            indent, name = len(m.group(1)), m.group(7)
            # The line that opens the body (or ends a bodiless declaration).
            j = i
            while j < end and "{" not in lines[j] and not lines[j].rstrip().endswith(";"):
                j += 1
            if j < end and lines[j].rstrip().endswith(";") and "{" not in lines[j]:
                i = j + 1
                continue
            k = j + 1
            while k < end and not (
                lines[k].startswith(" " * indent + "}")
                and len(lines[k]) - len(lines[k].lstrip()) == indent
            ):
                k += 1
            yield k - i + 1, name, i + 1
        i += 1


def main():
    limit = int(sys.argv[1]) if len(sys.argv) > 1 else 80
    found = []
    for root, _, files in os.walk(SRC):
        for name in files:
            if not name.endswith(".rs") or name in ("tests.rs", "testing.rs"):
                continue
            path = os.path.join(root, name)
            rel = os.path.relpath(path, os.path.join(SRC, ".."))
            found.extend((n, rel, fn, line) for n, fn, line in functions(path))
    found.sort(reverse=True)
    over = [f for f in found if f[0] > limit]
    for n, rel, fn, line in over:
        print(n, rel, fn, line)
    if over:
        print(f"{len(over)} function(s) longer than {limit} lines", file=sys.stderr)
        return 1
    if found:
        n, rel, fn, line = found[0]
        print(f"longest function: {n} lines ({rel} {fn}, line {line}); limit {limit}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
