#!/usr/bin/env python3
"""Every `unsafe` block under src/ has its own `// SAFETY:` comment.

A block is explained when a comment line starting `// SAFETY:` comes after
the previous `unsafe` block and at most 8 lines above it (or on its line):
one comment per block, so that `grep -c 'SAFETY:'` is at least the number
of blocks (issue 37.7). `unsafe fn`, `unsafe impl` and `unsafe extern` are
declarations, not blocks, and are left to review.

Usage: scripts/check-safety.py   (exits 1 and names each block without one)
"""

import os
import re
import sys

SRC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src")
BLOCK = re.compile(r"\bunsafe\s*\{")
WINDOW = 8


def unexplained(lines):
    """Line numbers (1-based) of the blocks without their own comment."""
    out, last_comment, taken = [], None, set()
    for i, line in enumerate(lines):
        code = line.split("//", 1)[0]
        if line.lstrip().startswith("// SAFETY:") or "// SAFETY:" in line:
            last_comment = i
        if BLOCK.search(code):
            ok = (
                last_comment is not None
                and i - last_comment <= WINDOW
                and last_comment not in taken
            )
            if ok:
                taken.add(last_comment)
            else:
                out.append(i + 1)
    return out


def main():
    blocks = missing = 0
    for root, _, files in os.walk(SRC):
        for name in sorted(files):
            if not name.endswith(".rs"):
                continue
            path = os.path.join(root, name)
            with open(path, encoding="utf-8") as f:
                lines = f.read().split("\n")
            blocks += sum(1 for l in lines if BLOCK.search(l.split("//", 1)[0]))
            for n in unexplained(lines):
                missing += 1
                print(f"src/{os.path.relpath(path, SRC)}:{n}: unsafe block without its own // SAFETY: comment")
    if missing:
        return 1
    print(f"check-safety: {blocks} unsafe blocks, each with its SAFETY comment")
    return 0


if __name__ == "__main__":
    sys.exit(main())
