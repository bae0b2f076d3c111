#!/usr/bin/env python3
"""variants.py - the metadata conditions of issue 35 for every corpus document.

Usage: python3 variants.py CORPUS_DIR [--seed N] [--force]

Reads CORPUS_DIR/docs.json (written by `corpus.py truth`) and writes, next
to each document's as-is file:
  <stem>-stripped.pdf   the trailer /Info dictionary and the catalog
                        /Metadata (XMP) stream removed;
  <stem>-junkinfo.pdf   Info /Title, /Author, /Subject, /Keywords and the
                        XMP replaced by realistic junk (below); /Producer
                        and /Creator are kept, as a real tool leaves them.
Page content, outlines and page labels are untouched. Output is saved with
qpdf's deterministic /ID, and the junk is drawn from random.Random seeded by
(seed, document id), so the same seed gives the same files.

Junk titles, one kind per document, all seen in real libraries:
  other       another document's title
  filename    a file name or path ("paper_final_v2.pdf", "C:\\...\\x.doc")
  proofslug   a printer's proof slug ("OP-XYZ123 1215..1217")
  font        a font name ("TimesNewRomanPSMT")
  msword      "Microsoft Word - draft3.doc"
  abbrev      an abbreviation of the real title ("Intro Env Chem 5e")
  template    a template leftover ("Paper Title (use style: paper title)")
Junk authors: a login or machine name, another document's author, or none.

Needs pikepdf (PyPI; Debian python3-pikepdf).
"""

import argparse
import json
import os
import random
import re
import sys
import warnings

import pikepdf

# pikepdf warns about form widgets outside /AcroForm when saving some files;
# the pages are saved as they were, so the warning is noise here
warnings.filterwarnings("ignore", message=".*form widget annotation.*")

KINDS = ["other", "filename", "proofslug", "font", "msword", "abbrev", "template"]
FONTS = ["TimesNewRomanPSMT", "Arial-BoldMT", "CMR10", "MinionPro-Regular",
         "Helvetica-Bold", "Calibri", "NimbusRomNo9L-Regu", "SFRM1000",
         "Garamond-Italic", "LMRoman10-Regular", "Cambria-Bold", "DejaVuSans"]
TEMPLATES = ["Paper Title (use style: paper title)", "[project name] in [country]",
             "Title of the Article", "Insert your title here", "Untitled (1 page)",
             "Sin título (1 página)", "Ohne Titel (1 Seite)", "Document1",
             "Presentation Title", "TITLE OF THE THESIS", "Template for Proceedings",
             "Slide 1", "Title", "Untitled-1", "Manuscript Template"]
WORDS = ["draft", "final", "paper", "report", "manuscript", "thesis", "notes",
         "slides", "main", "doc", "revised", "camera-ready", "submission", "v2"]
USERS = ["Administrator", "user", "jsmith", "Owner", "HP Authorized Customer",
         "Preferred Customer", "admin", "Dell", "Unknown", "root", "IT Department"]
STOP = {"a", "an", "the", "of", "for", "and", "in", "on", "to", "with", "by",
        "der", "die", "das", "und", "la", "le", "de", "et", "des", "du"}


def title_words(t):
    return re.findall(r"[^\W_]+", t or "")


def abbreviate(title, rng):
    """A working title: the content words cut to 3-5 letters, at most 5."""
    ws = [w for w in title_words(title) if w.lower() not in STOP]
    if len(ws) < 2:
        return None
    ws = ws[:rng.choice([3, 4, 5])]
    out = []
    for w in ws:
        n = rng.choice([3, 4, 5])
        out.append(w if len(w) <= n + 1 or w.isdigit() else w[:n])
    s = " ".join(out)
    if rng.random() < 0.3:
        s += " " + rng.choice(["2e", "5e", "v3", "final", "rev"])
    return s


def slug(title, rng):
    ws = [w.lower() for w in title_words(title)][:rng.choice([1, 2, 3])] or ["document"]
    return rng.choice(["_", "-", ""]).join(ws)


def junk_title(doc, others, rng):
    real = (doc.get("truth") or {}).get("title") or ""
    kinds = KINDS[:]
    if not abbreviate(real, random.Random(0)):
        kinds.remove("abbrev")
    kind = rng.choice(kinds)
    if kind == "other":
        o = rng.choice(others)
        return kind, o
    if kind == "filename":
        base = slug(real, rng) + rng.choice(["", "_" + rng.choice(WORDS), "-v%d" % rng.randint(1, 9)])
        ext = rng.choice([".pdf", ".doc", ".docx", ".dvi", ".tex", ".indd", ".odt"])
        form = rng.randrange(4)
        if form == 0:
            return kind, "C:\\Users\\%s\\Documents\\%s%s" % (rng.choice(["jsmith", "admin", "user"]), base, ext)
        if form == 1:
            return kind, "/home/%s/%s%s" % (rng.choice(["tex", "build", "me"]), base, ext)
        return kind, base + ext
    if kind == "proofslug":
        a = rng.randint(1, 2400)
        return kind, "%s-%s%d %d..%d" % (
            rng.choice(["OP", "JA", "PR", "MS", "CH", "AR"]),
            "".join(rng.choice("ABCDEFGHJKLMNPQRSTUVWXYZ") for _ in range(3)),
            rng.randint(100, 999), a, a + rng.randint(1, 30))
    if kind == "font":
        return kind, rng.choice(FONTS)
    if kind == "msword":
        return kind, "Microsoft Word - %s%s.doc%s" % (
            rng.choice(WORDS), rng.randint(1, 9), rng.choice(["", "x"]))
    if kind == "abbrev":
        return kind, abbreviate(real, rng)
    return kind, rng.choice(TEMPLATES)


def junk_author(doc, others_auth, rng):
    r = rng.random()
    if r < 0.45:
        return rng.choice(USERS)
    if r < 0.7 and others_auth:
        return rng.choice(others_auth)
    return None


def strip(src, dst):
    with pikepdf.open(src) as pdf:
        if "/Info" in pdf.trailer:
            del pdf.trailer["/Info"]
        if "/Metadata" in pdf.Root:
            del pdf.Root["/Metadata"]
        pdf.save(dst + ".part", deterministic_id=True)
    os.replace(dst + ".part", dst)


def junkinfo(src, dst, title, author):
    with pikepdf.open(src) as pdf:
        keep = {}
        if "/Info" in pdf.trailer:
            for k in ("/Producer", "/Creator", "/CreationDate", "/ModDate"):
                if k in pdf.trailer.Info:
                    keep[k] = pdf.trailer.Info[k]
            del pdf.trailer["/Info"]
        if "/Metadata" in pdf.Root:
            del pdf.Root["/Metadata"]
        info = pikepdf.Dictionary(keep)
        info["/Title"] = pikepdf.String(title)
        if author:
            info["/Author"] = pikepdf.String(author)
        pdf.trailer["/Info"] = pdf.make_indirect(info)
        # XMP that says the same junk, as a tool that syncs both would
        with pdf.open_metadata(set_pikepdf_as_editor=False, update_docinfo=False) as m:
            m["dc:title"] = title
            if author:
                m["dc:creator"] = [author]
        pdf.save(dst + ".part", deterministic_id=True)
    os.replace(dst + ".part", dst)


def has_junk(path, title, author):
    """Whether a -junkinfo file already carries this junk (the choice moves
    when the corpus's titles change; the file must follow it)."""
    try:
        with pikepdf.open(path) as pdf:
            info = pdf.trailer.get("/Info") or {}
            t = str(info.get("/Title", ""))
            a = str(info.get("/Author", "")) if "/Author" in info else None
            return t == title and a == author
    except Exception:
        return False


def make(job):
    """Both variants of one document; returns (made, errors)."""
    src, title, author, force = job
    stem = src[:-4]
    made, errs = 0, []
    for suffix, fn in (("-stripped.pdf", lambda s, o: strip(s, o)),
                       ("-junkinfo.pdf", lambda s, o: junkinfo(s, o, title, author))):
        out = stem + suffix
        if os.path.exists(out) and not force and \
                (suffix == "-stripped.pdf" or has_junk(out, title, author)):
            continue
        try:
            fn(src, out)
            made += 1
        except Exception as e:  # one damaged file never stops the batch
            errs.append("variants: %s: %s: %s" % (src, suffix[1:-4], e))
            if os.path.exists(out + ".part"):
                os.unlink(out + ".part")
    return made, errs


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("corpus")
    ap.add_argument("--seed", type=int, default=35)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--force", action="store_true", help="remake existing variants")
    a = ap.parse_args()
    docs = json.load(open(os.path.join(a.corpus, "docs.json"), encoding="utf-8"))
    titles = sorted({(d.get("truth") or {}).get("title") for d in docs} - {None, ""})
    auths = sorted({x for d in docs for x in ((d.get("truth") or {}).get("authors") or [])})
    jobs = []
    junk_log = {}
    for d in docs:
        src = os.path.join(a.corpus, d["file"])
        if not os.path.exists(src):
            continue
        # the junk depends on the seed and the document id only
        rng = random.Random("%d:%s" % (a.seed, d["doc"]))
        real = (d.get("truth") or {}).get("title")
        mine = (d.get("truth") or {}).get("authors") or []
        kind, title = junk_title(d, [t for t in titles if t != real], rng)
        author = junk_author(d, [x for x in auths if x not in mine], rng)
        junk_log[d["doc"]] = {"kind": kind, "title": title, "author": author}
        jobs.append((src, title, author, a.force))
    made = failed = 0
    from multiprocessing import Pool
    with Pool(a.jobs) as pool:
        for m, errs in pool.imap_unordered(make, jobs, chunksize=4):
            made += m
            failed += len(errs)
            for e in errs:
                print(e, file=sys.stderr)
    with open(os.path.join(a.corpus, "junkinfo.json"), "w", encoding="utf-8") as f:
        json.dump(junk_log, f, indent=1, ensure_ascii=False, sort_keys=True)
    print("variants: %d files made, %d failed (seed %d)" % (made, failed, a.seed), file=sys.stderr)


if __name__ == "__main__":
    main()
