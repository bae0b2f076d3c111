#!/usr/bin/env python3
"""Regression check of the reading layer: the words of page 1 as colophon
reads them (the `dump_pages` example) against `pdftotext -l 1`.

Usage:
    scripts/compare-pdftotext.py [--worst N] [--labels labels.json]
                                 [--dump-bin PATH] [--keep DIR] FOLDER|FILE...

For every PDF (folders are searched recursively; with --labels only the
files a labels.json lists, resolved next to it) the two readings of page 1
are cut into words (whitespace-separated, NFKC-normalised, outer punctuation
stripped, case kept) and compared as multisets. A file's agreement is the
F1 of the two word multisets; the folder's is the F1 over all words of all
files (files where either side reads no words are counted apart: image-only
pages, pages pdftotext cannot read). It prints the folder figure, then the
worst files with the words found only by colophon and only by pdftotext,
which is where a reading class (glued superscripts, split words, wrong
encodings) shows.

It is a measurement, not a test: it never fails on a low figure. The
dump binary is `target/debug/examples/dump_pages` (under CARGO_TARGET_DIR
when set); build it with `cargo build --example dump_pages`.
"""

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import unicodedata
from collections import Counter

# Marks around a word that neither reader is asked to agree on.
EDGE = re.compile(r"^[\W_]+|[\W_]+$", re.UNICODE)


# The superscript marks colophon writes for raised footnote and affiliation
# marks ("Smithᵃ"); pdftotext sets them apart as words of their own.
SUPERSCRIPTS = "⁰¹²³⁴⁵⁶⁷⁸⁹ᵃᵇᶜᵈᵉᶠᵍʰⁱʲᵏˡᵐⁿᵒᵖ\U000107A5ʳˢᵗᵘᵛʷˣʸᶻ"
MARK_RUN = re.compile("([%s]+)" % SUPERSCRIPTS)


def words(text, split_marks=False):
    out = []
    if split_marks:
        text = MARK_RUN.sub(r" \1 ", text)
    for w in unicodedata.normalize("NFKC", text).split():
        w = EDGE.sub("", w)
        if w:
            out.append(w)
    return out


def pdftotext_words(pdf):
    try:
        r = subprocess.run(["pdftotext", "-q", "-l", "1", "-enc", "UTF-8", pdf, "-"],
                           capture_output=True, timeout=120)
    except subprocess.TimeoutExpired:
        return None
    if r.returncode != 0:
        return None
    return words(r.stdout.decode("utf-8", "replace"))


def colophon_words(dump_bin, pdfs, out_dir):
    """Runs dump_pages over all files at once (front pages only) and returns
    {pdf: words of page 1 or None}."""
    for start in range(0, len(pdfs), 200):
        chunk = pdfs[start:start + 200]
        subprocess.run([dump_bin, "--front-only", out_dir] + chunk,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    got = {}
    for pdf in pdfs:
        stem = os.path.splitext(os.path.basename(pdf))[0]
        path = os.path.join(out_dir, stem + ".json")
        try:
            with open(path, encoding="utf-8") as f:
                dump = json.load(f)
        except (OSError, ValueError):
            got[pdf] = None
            continue
        pages = dump.get("pages") or []
        first = next((p for p in pages if p.get("index") == 0), None)
        if first is None:
            got[pdf] = None
            continue
        got[pdf] = dehyphenate(first.get("lines", []))
    return got


def dehyphenate(lines):
    """Joins a word broken by a hyphen at a line end to its rest on the line
    under it in the same column, dropping the hyphen, as pdftotext does, so
    that the comparison is about reading glyphs, not about treating hyphens.
    `lines` are the dump's lines (text and bbox), in colophon's order: top
    to bottom, then left to right, so the next line of a column may come
    after a line of the next column."""
    texts = [l["text"].strip() for l in lines]
    for i, l in enumerate(lines):
        if not re.search(r"\w-$", texts[i]):
            continue
        b = l["bbox"]
        height = b["bottom"] - b["top"]
        for j in range(i + 1, min(i + 8, len(lines))):
            c = lines[j]["bbox"]
            below = c["top"] >= b["top"] + 0.5 * height and c["top"] <= b["bottom"] + height
            same_column = abs(c["x0"] - b["x0"]) < 3 * height or b["x0"] <= c["x0"] < b["x1"]
            if below and same_column:
                head, _, rest = texts[j].partition(" ")
                if head[:1].isalpha():
                    texts[i] = texts[i][:-1] + head
                    texts[j] = rest
                break
    return "\n".join(texts)


def f1(common, a, b):
    return 2 * common / (a + b) if a + b else 1.0


def find_pdfs(args):
    pdfs = []
    if args.labels:
        base = os.path.dirname(os.path.abspath(args.labels))
        with open(args.labels, encoding="utf-8") as f:
            for rec in json.load(f):
                pdfs.append(os.path.join(base, rec["file"]))
    for p in args.paths:
        if os.path.isdir(p):
            for root, _, files in os.walk(p):
                pdfs.extend(os.path.join(root, n) for n in sorted(files)
                            if n.lower().endswith(".pdf"))
        else:
            pdfs.append(p)
    # dump_pages names its output by file stem: keep one file per stem.
    seen, unique = set(), []
    for p in pdfs:
        stem = os.path.splitext(os.path.basename(p))[0]
        if stem not in seen:
            seen.add(stem)
            unique.append(p)
    return unique


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("paths", nargs="*")
    ap.add_argument("--labels", help="a labels.json: compare only the files it lists")
    ap.add_argument("--worst", type=int, default=10)
    ap.add_argument("--dump-bin")
    ap.add_argument("--keep", help="keep the page dumps in this folder")
    args = ap.parse_args(argv)
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    target = os.environ.get("CARGO_TARGET_DIR", os.path.join(root, "target"))
    dump_bin = args.dump_bin or os.path.join(target, "debug", "examples", "dump_pages")
    if not os.access(dump_bin, os.X_OK):
        sys.exit(f"{dump_bin} not found: build it with `cargo build --example dump_pages` "
                 "or name it with --dump-bin")
    pdfs = find_pdfs(args)
    if not pdfs:
        sys.exit("no PDF files given")

    with tempfile.TemporaryDirectory() as tmp:
        out_dir = args.keep or tmp
        os.makedirs(out_dir, exist_ok=True)
        ours = colophon_words(dump_bin, pdfs, out_dir)

    rows, common_all, ours_all, theirs_all, apart = [], 0, 0, 0, []
    for pdf in pdfs:
        theirs = pdftotext_words(pdf)
        text = ours.get(pdf)
        mine = words(text) if text is not None else None
        if not theirs or not mine:
            apart.append((pdf, "no words from " + ("pdftotext" if not theirs else "colophon")))
            continue
        b = Counter(theirs)
        # pdftotext glues a raised mark to its word in some files and sets
        # it apart in others: colophon's marks are compared both ways, and
        # the closer reading counts.
        best = None
        for mine in (words(text), words(text, split_marks=True)):
            a = Counter(mine)
            common = sum((a & b).values())
            if best is None or common > best[0]:
                best = (common, mine, a)
        common, mine, a = best
        common_all += common
        ours_all += len(mine)
        theirs_all += len(theirs)
        rows.append((f1(common, len(mine), len(theirs)), pdf, a - b, b - a))

    print(f"files compared: {len(rows)} of {len(pdfs)}")
    print(f"word agreement (F1 over all words): {f1(common_all, ours_all, theirs_all):.4f}"
          f"  (colophon {ours_all} words, pdftotext {theirs_all}, common {common_all})")
    if rows:
        mean = sum(r[0] for r in rows) / len(rows)
        print(f"mean per-file F1: {mean:.4f}")
    for pdf, why in apart:
        print(f"  not compared: {pdf}: {why}")
    rows.sort(key=lambda r: r[0])
    print(f"worst {min(args.worst, len(rows))} files:")
    for score, pdf, only_ours, only_theirs in rows[:args.worst]:
        show = lambda c: " ".join(w for w, _ in c.most_common(12))
        print(f"  {score:.3f} {pdf}")
        print(f"      only colophon:  {show(only_ours)}")
        print(f"      only pdftotext: {show(only_theirs)}")


if __name__ == "__main__":
    main()
