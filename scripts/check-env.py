#!/usr/bin/env python3
"""No code outside src/settings/ reads the process environment.

Every knob is a setting in the schema (src/settings/schema.rs), read from
the config file or the environment by the settings layer alone
(`settings::process_env`). Test code may read its own fault-injection
variables (the child processes the tests spawn): files named tests.rs or
testing.rs, and everything from a `#[cfg(test)]` followed by `mod tests`
to the end of its file, as in check-fn-length.py.

Usage: scripts/check-env.py   (exits 1 and names each read found)
"""

import os
import re
import sys

SRC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src")
READ = re.compile(r"\benv::(var|var_os|vars|vars_os)\s*\(")
TEST_START = re.compile(r"#\[cfg\(test\)\]\s*\n\s*(pub(\([^)]*\))?\s+)?mod tests")


def product_code(text):
    """The part of a file that is not test code."""
    m = TEST_START.search(text)
    return text[: m.start()] if m else text


def main():
    found = []
    for root, _, files in os.walk(SRC):
        for name in sorted(files):
            path = os.path.join(root, name)
            rel = os.path.relpath(path, SRC)
            if not name.endswith(".rs") or name in ("tests.rs", "testing.rs"):
                continue
            if rel.startswith("settings" + os.sep):
                continue
            with open(path, encoding="utf-8") as f:
                code = product_code(f.read())
            for i, line in enumerate(code.splitlines(), 1):
                if READ.search(line) and not line.lstrip().startswith("//"):
                    found.append(f"src/{rel}:{i}: {line.strip()}")
    for f in found:
        print(f)
    if found:
        print("check-env: read the setting through src/settings/ instead", file=sys.stderr)
        return 1
    print("check-env: no environment read outside src/settings/")
    return 0


if __name__ == "__main__":
    sys.exit(main())
