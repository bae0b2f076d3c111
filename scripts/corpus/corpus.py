#!/usr/bin/env python3
"""corpus.py - build the real, labelled training corpus of issue 35.

Sub-commands (build.sh runs `fetch` and `truth`; the rest were run once to
make the committed files and are kept so the choice can be redone):

  fetch OUT          download every package pinned in sources.lock with the
                     ordinary registry client (apt-get download NAME=VERSION),
                     check the .deb's sha256, unpack only the listed files,
                     check each file's sha256 and write OUT/pdfs/<id>.pdf;
                     link the labelled files of ../shared/pdfjs and
                     ../shared/realdocs into OUT/ext/.
  truth OUT          write OUT/truth.json from labels.json (+ the shared sets).
  scan DEBDIR WORK   (once) unpack the PDFs of every .deb in DEBDIR into
                     WORK/files/<sha256>.pdf and record Info/XMP, page count
                     and the text of pages 1-2 in WORK/scan.jsonl.
  select WORK        (once) choose the documents (filters and caps below),
                     make the silver labels, merge the labels read by hand
                     (read_labels.json), write sources.lock and labels.json.
  table TRUTH        print the sources table of docs/corpus.md.

Reserved packages (held-out measurement sets) are refused everywhere: a
package on RESERVED, or whose name shares a RESERVED_STEMS stem, is never
scanned, selected or fetched.

Python 3 standard library, plus pikepdf for reading Info/XMP in `scan`.
"""

import argparse
import collections
import glob
import gzip
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unicodedata
from difflib import SequenceMatcher

HERE = os.path.dirname(os.path.abspath(__file__))
LOCK = os.path.join(HERE, "sources.lock")
LABELS = os.path.join(HERE, "labels.json")
READ_LABELS = os.path.join(HERE, "read_labels.tsv")

# Held-out measurement sets of issue 35: no document may come from these.
RESERVED = set("""
c++-annotations-pdf chasen cmucl-docs coco-doc cvs ddd-doc debian-policy
device-tree-compiler enfuse glpk-doc gnuplot-doc gputils-doc haskell98-report
libsaclib-dev libsuitesparse-doc mit-scheme-doc octave-doc packaging-tutorial
pari-doc pftools r-cran-aer r-cran-coin r-cran-elliptic r-cran-lme4
r-cran-metafor r-cran-qtl r-cran-quantreg r-cran-sandwich r-cran-stringdist
r-cran-surveillance r-cran-ucminf r-doc-pdf sasview-doc slepc3.18-doc
texlive-bibtex-extra texlive-games texlive-lang-cyrillic texlive-lang-french
texlive-latex-recommended-doc texlive-metapost-doc texlive-music
texlive-pictures-doc texlive-plain-generic texlive-publishers-doc
""".split())
# PyPI source packages of PDF tools and extractors: reserved too.
RESERVED_PYPI = {n.lower() for n in """
PyMuPDF pypdf PyPDF2 pdfplumber pdfminer.six camelot-py tabula-py unstructured
marker-pdf docling magic-pdf papermage ocrmypdf pdf2doi pdftitle pdfx
""".split()}
# Packages from which only the files ../shared/wild lists may be taken. This
# corpus leaves ../shared/wild's documents to ../shared/wild, so it takes
# nothing from them at all.
WILD_ONLY = set("""
texlive-formats-extra texlive-lang-english texlive-lang-german
texlive-latex-base-doc texlive-luatex texlive-science-doc
""".split())
# Siblings of reserved packages (the same sources built into another binary
# package, other architectures, other versions) are refused as well, so that
# no reserved document reaches the corpus under another package name.
RESERVED_STEMS = set("""
c++-annotations chasen cmucl coco cvs ddd debian-policy device-tree-compiler
enfuse enblend glpk gnuplot gputils haskell98 libsaclib saclib suitesparse
libsuitesparse mit-scheme octave packaging-tutorial pari pftools r-doc r-base
sasview python3-sasview slepc texlive-bibtex-extra texlive-games
texlive-lang-cyrillic texlive-lang-french texlive-latex-recommended
texlive-metapost texlive-music texlive-pictures texlive-plain-generic
texlive-publishers texlive-formats-extra texlive-lang-english
texlive-lang-german texlive-latex-base texlive-luatex texlive-science
libgraphblas suitesparse-graphblas
""".split()) | {p for p in RESERVED if p.startswith("r-cran-")}


DISTINCTIVE = ("gnuplot", "slepc", "octave", "suitesparse", "glpk", "sasview", "cmucl",
               "enfuse", "enblend", "chasen", "gputils", "saclib", "graphblas", "umfpack",
               "cholmod")


def refused(pkg):
    """Why a Debian package may not be used, or None."""
    if pkg in RESERVED:
        return "reserved for measuring"
    if pkg in WILD_ONLY:
        return "only ../shared/wild's files may be taken (left to ../shared/wild)"
    # a distinctive reserved name anywhere in the package name (an Emacs
    # mode for gnuplot, Python bindings of slepc, ...) is refused too
    for tok in re.split(r"[-.+]", pkg):
        for s in DISTINCTIVE:
            if s in tok:
                return "named after a reserved package (%s)" % s
    base = re.sub(r"-(doc|docs|pdf|dev|common|data|utils|examples)$", "", pkg)
    for s in RESERVED_STEMS:
        if base == s or pkg == s or pkg.startswith(s + "-") or \
                re.sub(r"[0-9.]+$", "", base) == s:
            return "sibling of a reserved package (%s)" % s
    return None


def refused_pypi(name):
    n = name.lower().replace("_", "-")
    return "reserved for measuring" if n in RESERVED_PYPI else None


def log(*a):
    print(*a, file=sys.stderr, flush=True)


def sha256_file(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for b in iter(lambda: f.read(1 << 20), b""):
            h.update(b)
    return h.hexdigest()


def run(cmd, timeout=60, **kw):
    try:
        p = subprocess.run(cmd, capture_output=True, timeout=timeout, **kw)
        return p.returncode, p.stdout, p.stderr
    except subprocess.TimeoutExpired:
        return 124, b"", b"timeout"


_APT_SHA = None


def apt_sha256(pkg, ver):
    """SHA256 of NAME=VERSION's .deb as the archive's Packages indexes give
    it (read once: `apt-cache show` per package is slow on a busy machine)."""
    global _APT_SHA
    if _APT_SHA is None:
        _APT_SHA = {}
        lists = sorted(glob.glob("/var/lib/apt/lists/*_Packages*"))
        rc, so, _ = run(["/usr/lib/apt/apt-helper", "cat-file"] + lists, timeout=300) if lists else (1, b"", b"")
        for stanza in so.decode("utf-8", "replace").split("\n\n"):
            f = dict(re.findall(r"^(Package|Version|SHA256): (\S+)", stanza, re.M))
            if len(f) == 3:
                _APT_SHA[(f["Package"], f["Version"])] = f["SHA256"]
    return _APT_SHA.get((pkg, ver))


# ------------------------------------------------------------------ scan

def info_of(path):
    """Info /Title /Author /Producer /Creator and XMP title/creator (pikepdf)."""
    import pikepdf
    out = {}
    try:
        with pikepdf.open(path) as pdf:
            out["encrypted"] = bool(pdf.is_encrypted)
            di = pdf.docinfo
            for k in ("Title", "Author", "Subject", "Producer", "Creator"):
                v = di.get("/" + k)
                if v is not None:
                    try:
                        out[k.lower()] = str(v)
                    except Exception:
                        pass
            try:
                meta = pdf.open_metadata()
                t = meta.get("dc:title")
                c = meta.get("dc:creator")
                if t:
                    out["xmp_title"] = str(t)
                if c:
                    out["xmp_creator"] = [str(x) for x in c] if isinstance(c, list) else [str(c)]
            except Exception:
                pass
    except Exception as e:  # damaged file: still scanned with poppler
        out["pikepdf_error"] = str(e)[:200]
    return out


def pages_of(path):
    rc, so, _ = run(["pdfinfo", path], timeout=30)
    if rc != 0:
        return None
    m = re.search(rb"^Pages:\s+(\d+)", so, re.M)
    return int(m.group(1)) if m else None


def text_of(path, last=2):
    rc, so, _ = run(["pdftotext", "-q", "-l", str(last), "-enc", "UTF-8", path, "-"], timeout=60)
    if rc != 0:
        return None
    return so.decode("utf-8", "replace")


def scan_one(args):
    path, rec = args
    rec["pages"] = pages_of(path)
    rec.update(info_of(path))
    t = text_of(path)
    rec["text"] = t
    return rec


def scan_deb(args):
    """Unpack the PDFs of one .deb into files/ and scan them (one worker)."""
    deb, files, work, done = args
    rc, so, _ = run(["dpkg-deb", "-f", deb, "Package", "Version"])
    fields = dict(l.split(": ", 1) for l in so.decode().splitlines() if ": " in l)
    pkg, ver = fields.get("Package"), fields.get("Version")
    if not pkg or refused(pkg):
        return deb, None, []
    want = apt_sha256(pkg, ver)
    got = sha256_file(deb)
    if want != got:  # still downloading, or not the archive's file
        return deb, "sha256 %s, the archive says %s" % (got, want), []
    recs = []
    with tempfile.TemporaryDirectory(dir=work) as tmp:
        p1 = subprocess.Popen(["dpkg-deb", "--fsys-tarfile", deb], stdout=subprocess.PIPE)
        subprocess.run(["tar", "-x", "-C", tmp, "--wildcards", "--no-anchored",
                        "--exclude=*/.*", "*.pdf", "*.pdf.gz", "*.PDF"],
                       stdin=p1.stdout, stderr=subprocess.DEVNULL)
        p1.wait()
        for root, _, names in os.walk(tmp):
            for n in sorted(names):
                src = os.path.join(root, n)
                if os.path.islink(src) or not os.path.isfile(src):
                    continue
                rel = os.path.relpath(src, tmp)
                if (pkg, rel) in done:
                    continue
                try:
                    if n.endswith(".gz"):
                        with gzip.open(src) as g:
                            data = g.read(40 << 20)
                    else:
                        if os.path.getsize(src) > 40 << 20:
                            continue
                        with open(src, "rb") as g:
                            data = g.read()
                except Exception:
                    continue
                if len(data) > 30 << 20 or b"%PDF" not in data[:1024]:
                    continue
                sha = hashlib.sha256(data).hexdigest()
                dst = os.path.join(files, sha + ".pdf")
                if not os.path.exists(dst):
                    with open(dst, "wb") as g:
                        g.write(data)
                recs.append(scan_one((dst, {"package": pkg, "version": ver, "path": rel,
                                            "sha256": sha, "size": len(data),
                                            "deb": os.path.basename(deb), "deb_sha256": got})))
    return deb, None, recs


def cmd_scan(a):
    from multiprocessing import Pool
    files = os.path.join(a.work, "files")
    os.makedirs(files, exist_ok=True)
    out = os.path.join(a.work, "scan.jsonl")
    done = set()
    if os.path.exists(out):
        with open(out) as f:
            for line in f:
                r = json.loads(line)
                done.add((r["package"], r["path"]))
    if a.order:
        debs = [os.path.join(a.debdir, l.strip()) for l in open(a.order) if l.strip()]
        debs = [d for d in debs if os.path.exists(d)]
    else:
        debs = sorted(glob.glob(os.path.join(a.debdir, "*.deb")))
    with open(out, "a") as fo, Pool(a.jobs) as pool:
        for deb, err, recs in pool.imap_unordered(scan_deb, [(d, files, a.work, done) for d in debs]):
            if err:
                log("skip %s: %s" % (deb, err))
            for rec in recs:
                fo.write(json.dumps(rec) + "\n")
            fo.flush()
            log("scanned %s: %d files" % (os.path.basename(deb), len(recs)))


# ---------------------------------------------------------------- labels

def load_read_labels(shas):
    """read_labels.tsv -> {full sha256: label}; shas: the scanned sha256s
    (a line's 16-hex prefix must name exactly one of them)."""
    out = {}
    if not os.path.exists(READ_LABELS):
        return out
    for n, line in enumerate(open(READ_LABELS, encoding="utf-8"), 1):
        if line.startswith("#") or not line.strip():
            continue
        f = line.rstrip("\n").split("\t")
        if len(f) != 7:
            raise SystemExit("%s:%d: %d fields, want 7" % (READ_LABELS, n, len(f)))
        pre, kind, verdict, title, authors, year, extra = f
        full = [s for s in shas if s.startswith(pre)]
        if len(full) != 1:
            raise SystemExit("%s:%d: %s names %d scanned files" % (READ_LABELS, n, pre, len(full)))
        extra = json.loads(extra or "{}")
        if kind == "-":  # looked at, not labellable (no citable title on the page)
            out[full[0]] = {"skip": True, "notes": extra.get("notes")}
            continue
        truth = {"title": title}
        if authors:
            truth["authors"] = [x.strip() for x in authors.split(";")]
        elif extra.get("authors_none"):
            truth["authors"] = []
        if year:
            truth["year"] = int(year)
        for k in ("subtitle", "edition", "publisher", "doi"):
            if extra.get(k):
                truth[k] = extra[k]
        if verdict not in ("matches", "junk", "empty"):
            raise SystemExit("%s:%d: verdict %r" % (READ_LABELS, n, verdict))
        out[full[0]] = {"truth": truth, "kind": kind, "verdict": verdict,
                        "alt": extra.get("alt"), "notes": extra.get("notes"),
                        "seen": {"title": "read on page 1-2",
                                 **({"authors": "read on page 1-2"} if authors else {}),
                                 **({"authors": "read on page 1-2: no person named as author"}
                                    if not authors and extra.get("authors_none") else {}),
                                 **({"year": "read on page 1-2"} if year else {})}}
    return out


MONTHS = ("january february march april may june july august september october "
          "november december jan feb mar apr jun jul aug sep sept oct nov dec "
          "januar februar märz mai juni juli oktober dezember janvier février "
          "mars avril juin juillet août septembre octobre novembre décembre "
          "enero febrero marzo abril mayo junio julio agosto septiembre "
          "octubre noviembre diciembre gennaio febbraio aprile maggio giugno "
          "luglio settembre ottobre dicembre").split()
JUNK_TITLE = re.compile(
    r"^(untitled|untitled document|document\d*|title|paper title|no title|"
    r"slide ?\d*|presentation|pdf|null|none|unknown|\(anonymous\)|anonymous|"
    r"latex|tex|r graphics output|print|printout|main|manual|doc|draft|"
    r"template|default|new document|lorem ipsum|test|sample|example)$", re.I)
JUNK_PREFIX = re.compile(r"^(microsoft (word|powerpoint|excel)|tex output|"
                         r"untitled|c:|/|\.\.?/)", re.I)
FILE_NAME = re.compile(r"\.(dvi|tex|pdf|ps|eps|doc|docx|odt|rtf|txt|indd|qxd|"
                       r"fm|png|jpe?g|html?|xml|texi|sgml|md|rst|ppt|pptx)$", re.I)
ORG_WORDS = re.compile(
    r"\b(university|universit\w+|institute|institut|team|group|project|inc|"
    r"ltd|llc|gmbh|corp|corporation|foundation|society|department|dept|"
    r"association|committee|developers|contributors|community|authors|"
    r"consortium|laboratory|lab|center|centre|school|college|company|"
    r"software|core|maintainers|staff|office|press|organization|"
    r"organisation|council|agency|network|club|the|et al|others|various|"
    r"copyright|version|documentation|package)\b", re.I)
PARTICLES = {"van", "von", "de", "der", "den", "da", "di", "du", "le", "la",
             "del", "della", "des", "dos", "das", "ten", "ter", "y", "bin", "al"}


def fold(s):
    s = unicodedata.normalize("NFKD", s or "")
    s = "".join(c for c in s if not unicodedata.combining(c))
    return s.casefold()


def alnum(s):
    return re.sub(r"[\W_]+", "", fold(s))


def fix_mojibake(s):
    """UTF-8 read as Latin-1 ('Ã©') back to UTF-8."""
    if re.search(r"[ÃÂ][\x80-\xbf]", s):
        try:
            return s.encode("latin-1").decode("utf-8")
        except Exception:
            return s
    return s


def clean_title(t):
    t = unicodedata.normalize("NFKC", fix_mojibake(t or "")).strip()
    t = re.sub(r"https?://\S+", "", t)
    t = re.sub(r"\s+", " ", t).strip(" ,;:-")
    return t


def title_junk(t):
    """Why a metadata title cannot be a title at all, or None."""
    if not t:
        return "empty"
    if JUNK_TITLE.match(t) or JUNK_PREFIX.match(t):
        return "placeholder"
    if FILE_NAME.search(t) or (("/" in t or "\\" in t) and " " not in t):
        return "file name or path"
    if re.search(r"[\\{}]|\[\d+(mm|pt|ex|em)\]", t):
        return "TeX residue"
    if not re.search(r"[^\W\d_]{2}", t):
        return "no word"
    return None


def page_lines(text):
    pages = (text or "").split("\f")
    out = []
    for pi, p in enumerate(pages[:2]):
        for line in p.splitlines():
            line = re.sub(r"\s+", " ", line).strip()
            if line:
                out.append((pi + 1, line))
    return out


def printed_title(title, lines):
    """Where the title is printed as a block of 1-6 lines on pages 1-2."""
    want = alnum(re.sub(r"\bLaTeX\b", "latex", title))
    if len(want) < 2:
        return None
    short = len(title.split()) <= 1 or len(want) < 8
    la = [alnum(l) for _, l in lines]
    # where a title may start: anywhere on pages 1-2; a short title (one
    # word) only near the top of a page, so that a word in a figure, a
    # heading or a table further down does not count
    top = set()
    for pg in (1, 2):
        idx = [i for i, (p, _) in enumerate(lines) if p == pg]
        top |= set(idx[:15 if pg == 1 else 5])
    for i in range(len(lines)):
        if short and i not in top:
            continue
        acc = ""
        for j in range(i, min(i + 6, len(lines))):
            acc += la[j]
            if len(acc) > len(want) * 1.2 + 5:
                break
            if short and j > i:
                break
            if acc == want or (len(want) >= 12 and len(acc) >= 0.8 * len(want)
                               and SequenceMatcher(None, acc, want).ratio() >= 0.9):
                return "p%d line %d%s" % (lines[i][0], i + 1, "" if j == i else "-%d" % (j + 1))
    # a line among the first 15 that starts with the title and only adds a
    # version, a bracketed remark or a dash
    for i, (pg, l) in enumerate(lines[:15]):
        a = alnum(l)
        if not short and a.startswith(want) and len(a) - len(want) <= 20:
            rest = l[len(title):] if l.lower().startswith(title.lower()) else ""
            if re.match(r"^\s*([,–—:-]|\(|v\d|version|\d)", rest, re.I):
                return "p%d line %d (title + version)" % (pg, i + 1)
    return None


def split_authors(a):
    a = fix_mojibake(a or "")
    a = re.sub(r"\S+@\S+", "", a)
    a = re.sub(r"https?://\S+", "", a)
    a = re.sub(r"[\(\[<][^\)\]>]*[\)\]>]", "", a)
    a = unicodedata.normalize("NFKC", a).strip(" ,;")
    if not a:
        return []
    if ";" in a:
        parts = a.split(";")
    else:
        parts = re.split(r",|\band\b|&|\bund\b|\bet\b|\ben\b", a)
    return [re.sub(r"\s+", " ", p).strip(" ,.") for p in parts if p.strip(" ,.")]


def person_like(n):
    w = n.split()
    if not 2 <= len(w) <= 4 or re.search(r"\d", n) or ORG_WORDS.search(n):
        return False
    if re.search(r"[^\w\s.'’-]", n):
        return False
    if n.isupper() and len(n) <= 6:
        return False
    caps = [x for x in w if x.lower() not in PARTICLES]
    return all(x[0].isupper() for x in caps) and len(caps) >= 2 and \
        any(len(x.strip(".")) > 1 for x in caps)


def name_printed(name, text):
    ft = fold(text)
    w = [x.strip(".") for x in name.split() if x.lower() not in PARTICLES]
    last, first = fold(w[-1]), fold(w[0])
    if not re.search(r"\b%s\b" % re.escape(last), ft):
        return False
    if re.search(r"\b%s\b" % re.escape(first), ft):
        return True
    return bool(re.search(r"\b%s\.?\s*(\w\.\s*)*%s\b" % (re.escape(first[0]), re.escape(last)), ft))


NAMEISH = re.compile(r"\b[A-Z][a-z]+(?:\s+[A-Z]\.)?\s+[A-Z][a-z]{2,}\b")


def silver_authors(meta_authors, lines, text12):
    """Info authors when every one is printed on pages 1-2 and no other
    person-like name stands beside them (or None with the reason)."""
    names = split_authors(meta_authors)
    if not names:
        return None, "unknown: no Info/XMP author"
    if not all(person_like(n) for n in names):
        return None, "unknown: Info author not all plausible person names"
    if not all(name_printed(n, text12) for n in names):
        return None, "unknown: Info author names not all printed on p1-2"
    # lines holding the printed names; another name-like pair next to them
    # means Info listed only some of the people
    idx = [i for i, (_, l) in enumerate(lines)
           if any(fold(n.split()[-1]) in fold(l) for n in names)]
    for i in idx:
        for j in range(max(0, i - 2), min(len(lines), i + 3)):
            l = lines[j][1]
            for m in NAMEISH.finditer(l):
                cand = m.group(0)
                if any(fold(n.split()[-1]) in fold(cand) or fold(cand.split()[-1]) in fold(n)
                       for n in names):
                    continue
                if ORG_WORDS.search(cand) or len(l) > 90:
                    continue
                if re.match(r"^(and|und|by|von|par|with)?\s*[A-Z][a-z]+(\s+[A-Z]\.)?\s+[A-Z][a-z]+(\s*(,|and|&|\d|\*|†|$))", l.strip()) \
                        or re.search(r"\band\b|,|&", l):
                    return None, "unknown: another person-like name (%s) beside the printed authors" % cand
    return names, "Info Author, every name printed on p1-2"


YEAR = re.compile(r"(?<!\d)(1[89]\d\d|20[0-2]\d)(?!\d)")


def silver_year(page1):
    ys = set(YEAR.findall(page1))
    if len(ys) != 1:
        return None, "unknown: %d distinct years on p1" % len(ys)
    y = ys.pop()
    f = fold(page1)
    mon = "|".join(MONTHS)
    if re.search(r"\b(%s)\.?\s+(\d{1,2}(st|nd|rd|th)?,?\s+)?%s\b" % (mon, y), f) or \
            re.search(r"\b\d{1,2}\.?\s+(%s)\.?,?\s+%s\b" % (mon, y), f):
        return int(y), "p1: single year %s printed with a month name" % y
    if re.search(r"\b%s[/.-]\d{1,2}[/.-]\d{1,2}\b|\b\d{1,2}[/.]\d{1,2}[/.]%s\b" % (y, y), f):
        return int(y), "p1: single year %s printed in a numeric date" % y
    if re.search(r"(©|\(c\)|copyright)\s*(\d{4}\s*[-–,]\s*)?%s" % y, f):
        return int(y), "p1: single year %s printed with (c)/Copyright" % y
    return None, "unknown: year %s on p1 without a month, date or (c)" % y


def info_verdict(rec, lines):
    """(verdict, metadata title, where printed): verdict of the Info title
    (XMP title where Info has none): matches | junk | empty."""
    raw = rec.get("title") or rec.get("xmp_title") or ""
    t = clean_title(raw)
    if not t:
        return "empty", None, None
    if title_junk(t):
        return "junk", t, None
    where = printed_title(t, lines)
    return ("matches" if where else "junk"), t, where


PRODUCERS = [
    ("ConTeXt", r"context"), ("LuaTeX", r"luatex|lualatex"), ("XeTeX", r"xetex|xdvipdfmx"),
    ("dvipdfmx", r"dvipdfm"), ("pdfTeX", r"pdftex"), ("Texinfo", r"texinfo"),
    ("dblatex", r"dblatex"), ("Sphinx", r"sphinx"), ("Asciidoctor", r"asciidoctor"),
    ("groff", r"groff|troff"), ("Apache FOP", r"\bfop\b"), ("RenderX XEP", r"xep"),
    ("Antenna House", r"antenna"), ("Prince", r"prince"), ("wkhtmltopdf", r"wkhtmltopdf|qt "),
    ("LibreOffice", r"libreoffice|openoffice|staroffice|neooffice"),
    ("Microsoft Word", r"word|microsoft"), ("InDesign", r"indesign"),
    ("QuarkXPress", r"quark"), ("FrameMaker", r"framemaker"), ("PageMaker", r"pagemaker"),
    ("Illustrator", r"illustrator"), ("Inkscape", r"inkscape"), ("Scribus", r"scribus"),
    ("R graphics", r"^r$|r graphics|^r \d"), ("matplotlib", r"matplotlib"), ("cairo", r"cairo"),
    ("Acrobat Distiller", r"distiller"), ("Ghostscript", r"ghostscript|gpl gs|afpl|aladdin"),
    ("dvips", r"dvips"), ("ReportLab", r"reportlab"), ("Quartz", r"quartz|mac os"),
    ("PDFlib", r"pdflib"), ("iText", r"itext"), ("Skia/Chrome", r"skia|chrom"),
    ("Adobe PDF Library", r"adobe pdf library"), ("Acrobat", r"acrobat|pdfwriter|pdfmaker"),
    ("TeX (other)", r"\btex\b|latex"),
]


def producer_family(producer, creator):
    both = "%s | %s" % (creator or "", producer or "")
    for fam, rx in PRODUCERS:
        if re.search(rx, fold(creator or "")) and fam in ("ConTeXt", "Texinfo", "dblatex", "Sphinx",
                                                          "Asciidoctor", "groff", "LibreOffice",
                                                          "Microsoft Word", "InDesign", "QuarkXPress",
                                                          "FrameMaker", "PageMaker", "Illustrator",
                                                          "Inkscape", "Scribus", "R graphics",
                                                          "matplotlib", "Apache FOP"):
            return fam
    for fam, rx in PRODUCERS:
        if re.search(rx, fold(producer or "")):
            return fam
    for fam, rx in PRODUCERS:
        if re.search(rx, fold(both)):
            return fam
    return "unknown" if not (producer or creator) else "other"


def guess_kind(rec, text):
    f = fold(text[:6000])
    pages = rec.get("pages") or 0
    path = rec["path"].lower()
    if re.search(r"\b(thesis|dissertation|doktorarbeit|diplomarbeit|these de doctorat)\b", f):
        return "thesis"
    if re.search(r"beamer|slides?\b|talk", path) or re.search(r"\bbeamer\b", fold(rec.get("creator") or "")):
        return "slides"
    if re.search(r"\babstract\b|\bzusammenfassung\b|\bresume\b", f) and \
            re.search(r"\b(journal|proceedings|conference|vol\.|volume|university|universit|institute|doi)\b", f):
        return "paper"
    if "vignette" in path or "/doc/" in path and rec["package"].startswith(("r-cran-", "r-bioc-")):
        if re.search(r"\babstract\b", f):
            return "paper"
    if re.search(r"\b(form|formular)\b", path):
        return "form"
    if re.search(r"\breport\b", f[:800]):
        return "report"
    if pages >= 150 and re.search(r"\b(chapter|contents|preface)\b", f):
        return "book"
    if re.search(r"\b(manual|guide|documentation|package|reference|handbook|tutorial|"
                 r"user|usage|howto|install|version|release|class|command)\b", f):
        return "manual"
    if re.search(r"\babstract\b", f):
        return "paper"
    return "other"


def family_of(pkg):
    """Grouping of packages built from one source or collection."""
    if pkg.startswith(("r-cran-", "r-bioc-")):
        return "r-vignettes"
    if pkg.startswith("texlive-lang-"):
        return "texlive-lang"
    for p in ("lilypond-doc", "installation-guide", "linuxcnc-doc", "debian-edu-doc",
              "fonts-sil-", "context", "expeyes", "eyes17", "freedombox-doc", "maxima"):
        if pkg.startswith(p):
            return p.rstrip("-")
    return pkg


def words(s):
    return len(re.findall(r"[^\W\d_]{2,}", s or ""))


# ---------------------------------------------------------------- select

def shared_exclusions(shared):
    """sha256 of every PDF already in the project's other corpora."""
    shas = set()
    for f in ("wild/manifest.json", "pdfjs/manifest.json", "realdocs/labels.json"):
        p = os.path.join(shared, f)
        if os.path.exists(p):
            d = json.load(open(p))
            items = d if isinstance(d, list) else (d.get("documents") or d.get("files") or list(d.values()))
            for r in items:
                if isinstance(r, dict) and r.get("sha256"):
                    shas.add(r["sha256"])
    for p in glob.glob(os.path.join(shared, "corpus", "pdfs", "**", "*.pdf"), recursive=True):
        shas.add(sha256_file(p))
    return shas


def label_record(rec):
    text = rec.get("text") or ""
    lines = page_lines(text)
    page1 = text.split("\f")[0]
    text12 = "\n".join(text.split("\f")[:2])
    verdict, mtitle, where = info_verdict(rec, lines)
    lab = {"info": {"title": mtitle, "verdict": verdict,
                    "producer": rec.get("producer"), "creator": rec.get("creator"),
                    "author": rec.get("author")},
           "producer": producer_family(rec.get("producer"), rec.get("creator")),
           "kind": guess_kind(rec, text), "pages": rec.get("pages"),
           "truth": None, "seen": {}}
    if verdict == "matches":
        truth = {"title": mtitle, "subtitle": None, "authors": None, "publisher": None,
                 "year": None, "edition": None, "isbn": [], "doi": None, "loc": None}
        seen = {"title": "Info Title, printed on %s" % where}
        au, why = silver_authors(rec.get("author") or "; ".join(rec.get("xmp_creator") or []), lines, text12)
        truth["authors"] = au
        seen["authors"] = why
        y, why = silver_year(page1)
        truth["year"] = y
        seen["year"] = why
        alt = []
        m = re.split(r"\s*(?::| – | — | - )\s*", mtitle, maxsplit=1)
        if len(m) == 2 and len(m[0]) >= 4:
            alt.append(m[0])
        m = re.sub(r"\s*(\(.*\)|,?\s*v(ersion)?\s*[\d.]+.*|\d{4}[/-]\d\d[/-]\d\d)$", "", mtitle, flags=re.I)
        if m and m != mtitle and len(m) >= 4:
            alt.append(m)
        lab.update(truth=truth, seen=seen, label="silver")
        if alt:
            lab["alt"] = {"title": sorted(set(alt))}
    return lab


def cmd_select(a):
    excl = shared_exclusions(a.shared)
    recs = load_scans(a.work)
    read = load_read_labels({r["sha256"] for r in recs})
    seen_sha, seen_title, seen_text = set(), set(), set()
    cands = []
    drop = collections.Counter()
    for r in sorted(recs, key=lambda r: (r["package"], r["path"])):
        if refused(r["package"]):
            drop["refused"] += 1
            continue
        if r["sha256"] in excl:
            drop["in another corpus"] += 1
            continue
        if r["sha256"] in seen_sha:
            drop["duplicate"] += 1
            continue
        seen_sha.add(r["sha256"])
        t = r.get("text")
        if not r.get("pages") or t is None:
            drop["unreadable"] += 1
            continue
        p1 = t.split("\f")[0]
        if words(t) < 40 or (r["pages"] < 2 and words(p1) < 150):
            drop["figure or near-empty"] += 1
            continue
        key = alnum(p1[:400])
        if key in seen_text:
            drop["same first page"] += 1
            continue
        seen_text.add(key)
        lab = label_record(r)
        if r["sha256"] in read and not read[r["sha256"]].get("skip"):
            rl = read[r["sha256"]]
            lab["truth"] = {"title": None, "subtitle": None, "authors": None, "publisher": None,
                            "year": None, "edition": None, "isbn": [], "doi": None, "loc": None}
            lab["truth"].update(rl["truth"])
            lab["seen"] = rl.get("seen", {"title": "read on the page"})
            lab["label"] = "read"
            if rl.get("notes"):
                lab["notes"] = rl["notes"]
            if rl.get("kind"):
                lab["kind"] = rl["kind"]
            if rl.get("verdict"):
                lab["info"]["verdict"] = rl["verdict"]
            lab.pop("alt", None)
            if rl.get("alt"):
                lab["alt"] = rl["alt"]
        if lab.get("truth") is None:
            # no label yet: kept for robustness and the conditions, never
            # scored (every field null = unknown); the list to read next
            lab["truth"] = {"title": None, "subtitle": None, "authors": None, "publisher": None,
                            "year": None, "edition": None, "isbn": [], "doi": None, "loc": None}
            lab["label"] = "none"
            lab["seen"] = {"title": "not labelled yet (Info title %s)" % lab["info"]["verdict"]}
        else:
            tk = alnum(lab["truth"]["title"])
            if tk in seen_title and lab.get("label") != "read":
                drop["title repeats"] += 1
                continue
            seen_title.add(tk)
        r["lab"] = lab
        cands.append(r)
    # caps: per folder (TeX Live: 2 per package folder, as ../shared/wild),
    # per source, and no source above a quarter of the whole
    by_src = collections.defaultdict(list)
    for r in cands:
        by_src[r["package"]].append(r)
    chosen = []
    for pkg, rs in sorted(by_src.items()):
        per_dir = collections.Counter()
        keep = []
        # read labels first, then silver, then unlabelled; by sha256 within
        # (a fixed, content-given order)
        rank = {"read": 0, "silver": 1, "none": 2}
        for r in sorted(rs, key=lambda r: (rank[r["lab"]["label"]], r["sha256"])):
            d = os.path.dirname(r["path"])
            if pkg.startswith("texlive-"):
                parts = r["path"].split("/")
                d = "/".join(parts[:6])
            cap_dir = a.texlive_per_folder if pkg.startswith("texlive-") else 25
            if per_dir[d] >= cap_dir and r["lab"]["label"] != "read":
                drop["folder cap"] += 1
                continue
            per_dir[d] += 1
            keep.append(r)
        if len(keep) > a.max_per_source:
            drop["source cap"] += len(keep) - a.max_per_source
            keep = keep[:a.max_per_source]
        by_src[pkg] = keep
    # no family above a quarter of the whole (shared sets included): cut the
    # largest family's unlabelled tail until that holds
    n_ext = len(external_docs(a.shared))
    fam = collections.defaultdict(list)
    for pkg, keep in by_src.items():
        fam[family_of(pkg)] += keep
    while True:
        total = sum(len(v) for v in fam.values()) + n_ext
        big = max(fam, key=lambda f: len(fam[f]))
        if len(fam[big]) <= total // 4:
            break
        excess = len(fam[big]) - total // 4
        cut = max(1, excess // 2)
        fam[big].sort(key=lambda r: (rank[r["lab"]["label"]], r["sha256"]))
        drop["quarter cap"] += cut
        fam[big] = fam[big][:-cut]
    for v in fam.values():
        chosen += v
    log("drops:", dict(drop))
    # ids: stable from sha256 (content-given)
    docs = []
    for r in sorted(chosen, key=lambda r: (r["package"], r["path"])):
        lab = r["lab"]
        docs.append(collections.OrderedDict([
            ("id", "rc-" + r["sha256"][:10]), ("package", r["package"]), ("version", r["version"]),
            ("path", r["path"]), ("sha256", r["sha256"]), ("size", r["size"]),
            ("family", family_of(r["package"])), ("kind", lab["kind"]),
            ("producer", lab["producer"]), ("info", lab["info"]), ("label", lab["label"]),
            ("truth", lab["truth"]), ("alt", lab.get("alt")), ("seen", lab["seen"]),
            ("pages", lab["pages"]), ("notes", lab.get("notes"))]))
    fam = collections.Counter(d["family"] for d in docs)
    log("labels:", dict(collections.Counter(d["label"] for d in docs)))
    log("documents:", len(docs), "packages:", len({d["package"] for d in docs}),
        "families:", len(fam), "largest:", fam.most_common(5))
    json.dump(docs, open(LABELS, "w"), indent=1, ensure_ascii=False)
    debs = {}
    for r in recs:
        debs[r["package"]] = (r["version"], r["deb_sha256"])
    with open(LOCK, "w") as f:
        f.write("# sources.lock - pinned inputs of the real corpus (scripts/corpus/build.sh)\n"
                "# deb <package> <version> <sha256 of the .deb>\n"
                "# doc <id> <package> <path inside the package (.gz: gunzipped)> <sha256 of the PDF>\n")
        for pkg in sorted({d["package"] for d in docs}):
            v, s = debs[pkg]
            f.write("deb\t%s\t%s\t%s\n" % (pkg, v, s))
        for d in docs:
            f.write("doc\t%s\t%s\t%s\t%s\n" % (d["id"], d["package"], d["path"], d["sha256"]))


def load_scans(works):
    """Records of every scan.jsonl under the given work folders; one record
    per (package, path), the first one read."""
    seen, out = set(), []
    for w in works:
        p = os.path.join(w, "scan.jsonl")
        if not os.path.exists(p):
            continue
        for line in open(p):
            r = json.loads(line)
            k = (r["package"], r["path"])
            if k not in seen:
                seen.add(k)
                out.append(r)
    return out


def cmd_worklist(a):
    """Documents to label by reading: Info empty or junk, spread over
    packages and producers (at most --per-package from one package)."""
    recs = load_scans(a.work)
    read = load_read_labels({r["sha256"] for r in recs})
    excl = shared_exclusions(a.shared)
    a.unlabelled_chosen = None
    if a.chosen and os.path.exists(LABELS):
        # only documents already in the corpus without a label
        a.unlabelled_chosen = {d["sha256"] for d in json.load(open(LABELS, encoding="utf-8"))
                               if d["label"] == "none"}
    pkg_of = {r["sha256"]: r["package"] for r in recs}
    per = collections.Counter(pkg_of[s] for s in read)
    seen = set()
    out = []
    for r in sorted(recs, key=lambda r: r["sha256"]):
        t = r.get("text")
        if refused(r["package"]) or r["sha256"] in excl or r["sha256"] in seen or \
                r["sha256"] in read or not r.get("pages") or t is None:
            continue
        seen.add(r["sha256"])
        p1 = t.split("\f")[0]
        if words(t) < 40 or (r["pages"] < 2 and words(p1) < 150):
            continue
        if a.unlabelled_chosen and r["sha256"] not in a.unlabelled_chosen:
            continue
        if a.package and not (r["package"] == a.package or
                              a.package.endswith("*") and r["package"].startswith(a.package[:-1])):
            continue
        v, mt, _ = info_verdict(r, page_lines(t))
        if v == "matches" or per[r["package"]] >= a.per_package:
            continue
        per[r["package"]] += 1
        out.append((r, v, mt, p1))
    for r, v, mt, p1 in out[:a.n]:
        print("=" * 78)
        print("sha=%.16s pkg=%s pages=%s verdict=%s\nprod=%r creator=%r\ninfo title=%r author=%r\npath=%s" % (
            r["sha256"], r["package"], r["pages"], v, r.get("producer"), r.get("creator"),
            mt, r.get("author"), r["path"]))
        ls = [re.sub(r"\s+", " ", l).strip() for l in p1.splitlines()]
        print("\n".join(l for l in ls if l)[:a.chars])


# ---------------------------------------------------------------- fetch

def read_lock(lock=None):
    lock = lock or LOCK
    debs, docs = {}, []
    for n, line in enumerate(open(lock, encoding="utf-8"), 1):
        if line.startswith("#") or not line.strip():
            continue
        f = line.rstrip("\n").split("\t")
        if f[0] == "deb" and len(f) == 4:
            debs[f[1]] = (f[2], f[3])
        elif f[0] == "doc" and len(f) == 5:
            docs.append({"id": f[1], "package": f[2], "path": f[3], "sha256": f[4]})
        else:
            raise SystemExit("%s:%d: cannot read this line" % (LOCK, n))
    for pkg in debs:
        why = refused(pkg)
        if why:
            raise SystemExit("%s: package %s is refused: %s" % (LOCK, pkg, why))
    return debs, docs


def external_docs(shared):
    """The labelled documents of ../shared/pdfjs and ../shared/realdocs,
    used by reference: (set, label record) pairs."""
    out = []
    for name in ("pdfjs", "realdocs"):
        p = os.path.join(shared, name, "labels.json")
        if not os.path.exists(p):
            log("note: %s not found; the %s documents are left out" % (p, name))
            continue
        for r in json.load(open(p)):
            if r.get("condition", "asis") != "asis":
                continue
            if "DUP of" in (r.get("notes") or ""):
                continue
            out.append((name, r))
    return out


def cmd_fetch(a):
    out = os.path.abspath(a.out)
    pdfs = os.path.join(out, "pdfs")
    os.makedirs(pdfs, exist_ok=True)
    debs, docs = read_lock(a.lock)
    by_pkg = collections.defaultdict(list)
    for d in docs:
        by_pkg[d["package"]].append(d)

    def have(d):
        p = os.path.join(pdfs, d["id"] + ".pdf")
        return os.path.exists(p) and sha256_file(p) == d["sha256"]

    problems = []
    for pkg in sorted(by_pkg):
        want = [d for d in by_pkg[pkg] if not have(d)]
        if not want:
            continue
        ver, debsha = debs[pkg]
        with tempfile.TemporaryDirectory(prefix="corpus-fetch.") as tmp:
            # a .deb already at hand (--debs) with the pinned sha256 saves the download
            cached = [p for d in (a.debs or []) for p in glob.glob(os.path.join(d, "%s_*.deb" % pkg))
                      if sha256_file(p) == debsha]
            if cached:
                os.symlink(os.path.abspath(cached[0]), os.path.join(tmp, os.path.basename(cached[0])))
                rc, err = 0, b""
            else:
                rc, _, err = run(["apt-get", "download", "-q", "%s=%s" % (pkg, ver)], timeout=1800, cwd=tmp)
            got = glob.glob(os.path.join(tmp, "*.deb"))
            if rc != 0 or len(got) != 1:
                problems.append("%s=%s: apt-get download failed (%s); run `apt-get update`, or the "
                                "version left the archive (then re-pin sources.lock with `corpus.py select`)"
                                % (pkg, ver, err.decode("utf-8", "replace").strip()[-200:]))
                continue
            if sha256_file(got[0]) != debsha:
                problems.append("%s=%s: the .deb's sha256 differs from sources.lock; not used" % (pkg, ver))
                continue
            root = os.path.join(tmp, "root")
            os.makedirs(root)
            members = []
            for d in want:
                members.append("./" + d["path"])
            p1 = subprocess.Popen(["dpkg-deb", "--fsys-tarfile", got[0]], stdout=subprocess.PIPE)
            subprocess.run(["tar", "-x", "-C", root] + members, stdin=p1.stdout, stderr=subprocess.DEVNULL)
            p1.wait()
            os.unlink(got[0])
            for d in want:
                src = os.path.join(root, d["path"])
                if not os.path.isfile(src):
                    problems.append("%s: %s has no %s" % (d["id"], pkg, d["path"]))
                    continue
                opener = gzip.open if d["path"].endswith(".gz") else open
                with opener(src, "rb") as f:
                    data = f.read()
                if hashlib.sha256(data).hexdigest() != d["sha256"]:
                    problems.append("%s: %s:%s differs from sources.lock's sha256; skipped"
                                    % (d["id"], pkg, d["path"]))
                    continue
                dst = os.path.join(pdfs, d["id"] + ".pdf")
                with open(dst + ".part", "wb") as f:
                    f.write(data)
                os.replace(dst + ".part", dst)
        log("fetched %s %s: %d files" % (pkg, ver, len(want)))
    # files of documents no longer pinned (a re-pinned lock) are removed, so
    # the folder holds exactly what the lock names
    ids = {d["id"] for d in docs}
    for p in glob.glob(os.path.join(pdfs, "rc-*.pdf")):
        stem = re.sub(r"-(stripped|junkinfo)$", "", os.path.basename(p)[:-4])
        if stem not in ids:
            os.unlink(p)
    # the shared labelled sets, by reference (symbolic links)
    for name, r in external_docs(a.shared):
        src = os.path.join(a.shared, name, r["file"])
        d = os.path.join(out, "ext", name)
        os.makedirs(d, exist_ok=True)
        dst = os.path.join(d, os.path.basename(r["file"]))
        if os.path.exists(src) and not os.path.lexists(dst):
            os.symlink(os.path.abspath(src), dst)
    ok = sum(1 for d in docs if have(d))
    log("%d of %d Debian documents in place in %s" % (ok, len(docs), pdfs))
    for p in problems:
        log("PROBLEM: " + p)
    return 0 if ok == len(docs) else 1


def all_docs(out, shared):
    """Every document of the corpus as a truth-record skeleton (asis)."""
    labels = json.load(open(LABELS, encoding="utf-8"))
    res = []
    for d in labels:
        res.append({
            "file": "pdfs/%s.pdf" % d["id"], "doc": d["id"], "kind": d["kind"],
            "truth": d["truth"], "alt": d.get("alt") or {}, "seen": d["seen"],
            "source": "Debian package %s %s, %s" % (d["package"], d["version"], d["path"]),
            "source_set": d["package"], "family": d["family"], "producer": d["producer"],
            "info": {k: d["info"].get(k) for k in ("title", "verdict", "producer", "creator")},
            "label": d["label"], "sha256": d["sha256"], "pages": d.get("pages"),
            "notes": {"silver": "silver label (Info/XMP checked against the text of pages 1-2); "
                                "null = not labelled, not scored",
                      "read": "label read on the page; null = not labelled, not scored",
                      "none": "not labelled yet: every field null = unknown, not scored"}[d["label"]]
                     + ("; " + d["notes"] if d.get("notes") else "")})
    pj = {}  # ../shared/pdfjs keeps each file's Producer in its manifest
    mp = os.path.join(shared, "pdfjs", "manifest.json")
    if os.path.exists(mp):
        m = json.load(open(mp, encoding="utf-8"))
        for k, v in (m.items() if isinstance(m, dict) else ((x.get("file"), x) for x in m)):
            if isinstance(v, dict):
                pj[os.path.basename(k or v.get("file") or "")] = v.get("producer")
    for name, r in external_docs(shared):
        info = dict(r.get("info") or {})
        if name == "pdfjs" and not info.get("producer"):
            info["producer"] = pj.get(os.path.basename(r["file"]))
        fam = r.get("producer") or producer_family(info.get("producer"), info.get("creator"))
        src = r.get("source") or ("../shared/%s %s" % (name, r["file"]))
        res.append({
            "file": "ext/%s/%s" % (name, os.path.basename(r["file"])),
            "doc": ("pj-" + r["doc"]) if name == "pdfjs" else r["doc"],
            "kind": r.get("kind"), "truth": r["truth"], "alt": r.get("alt") or {},
            "seen": r.get("seen") or {}, "source": "../shared/%s (%s)" % (name, src),
            "source_set": "shared/" + name, "family": "shared/" + name, "producer": fam,
            "info": {"title": info.get("title"), "verdict": info.get("verdict"),
                     "producer": info.get("producer"), "creator": info.get("creator")},
            "label": "read", "sha256": r.get("sha256"), "pages": info.get("pages"),
            "notes": r.get("notes")})
    return res


def cmd_truth(a):
    out = os.path.abspath(a.out)
    recs = []
    jp = os.path.join(out, "junkinfo.json")
    junk = json.load(open(jp, encoding="utf-8")) if os.path.exists(jp) else {}
    for d in all_docs(out, a.shared):
        stem = d["file"][:-4]
        for cond, f in (("asis", d["file"]), ("stripped", stem + "-stripped.pdf"),
                        ("junkinfo", stem + "-junkinfo.pdf")):
            if not os.path.exists(os.path.join(out, f)):
                continue
            r = collections.OrderedDict()
            r["file"] = f
            r["doc"] = d["doc"]
            r["kind"] = d["kind"]
            r["condition"] = cond
            for k in ("truth", "alt", "seen", "source", "source_set", "family", "producer",
                      "info", "label", "sha256", "pages", "notes"):
                r[k] = d[k]
            if cond == "junkinfo" and d["doc"] in junk:
                r["junkinfo"] = junk[d["doc"]]  # what variants.py wrote into Info/XMP
            recs.append(r)
    with open(os.path.join(out, "truth.json"), "w", encoding="utf-8") as f:
        json.dump(recs, f, indent=1, ensure_ascii=False)
    # the list variants.py works from
    with open(os.path.join(out, "docs.json"), "w", encoding="utf-8") as f:
        json.dump(all_docs(out, a.shared), f, indent=1, ensure_ascii=False)
    n = collections.Counter(r["condition"] for r in recs)
    log("truth.json: %d records (%s)" % (len(recs), dict(n)))


def cmd_table(a):
    """The sources table of docs/corpus.md, from a built truth.json (asis
    records), or from labels.json + the shared sets when none is given."""
    if a.truth:
        recs = [r for r in json.load(open(a.truth, encoding="utf-8")) if r["condition"] == "asis"]
    else:
        recs = all_docs(None, a.shared)

    def fmt(c, n=4):
        items = c.most_common()
        s = ", ".join("%s %d" % (k, v) for k, v in items[:n])
        if len(items) > n:
            s += ", +%d more (%d)" % (len(items) - n, sum(v for _, v in items[n:]))
        return s

    def has(r, f):
        v = (r.get("truth") or {}).get(f)
        return v is not None and v != []

    fam = collections.defaultdict(list)
    for r in recs:
        fam[r["family"]].append(r)
    n_fam = len(fam)
    largest = max(len(v) for v in fam.values())
    # families too small for a row of their own share one row
    small = [f for f in fam if len(fam[f]) < a.min_rows and not f.startswith("shared/")]
    if len(small) > 1:
        label = "other Debian packages (%d families of < %d documents)" % (len(small), a.min_rows)
        for f in small:
            for r in fam.pop(f):
                fam[label].append(r)
    total = len(recs)
    out = []
    out.append("| source (family) | packages | documents | share | producers | kinds | Info title verdict | labels | labelled title / authors / year |")
    out.append("|---|---|---|---|---|---|---|---|---|")
    for f in sorted(fam, key=lambda f: (-len(fam[f]), f)):
        rs = fam[f]
        pk = collections.Counter(r["source_set"] for r in rs)
        out.append("| %s | %d | %d | %.1f%% | %s | %s | %s | %s | %d / %d / %d |" % (
            f, len(pk), len(rs), 100.0 * len(rs) / total,
            fmt(collections.Counter(r["producer"] for r in rs)),
            fmt(collections.Counter(r["kind"] or "other" for r in rs)),
            fmt(collections.Counter((r.get("info") or {}).get("verdict") or "?" for r in rs), 3),
            fmt(collections.Counter(r["label"] for r in rs), 3),
            sum(has(r, "title") for r in rs), sum(has(r, "authors") for r in rs),
            sum(has(r, "year") for r in rs)))
    C = collections.Counter
    lab = [r for r in recs if r["label"] != "none"]
    out.append("")
    out.append("Totals: %d documents from %d families (%d packages or sets); largest family %.1f%%." % (
        total, n_fam, len({r["source_set"] for r in recs}), 100.0 * largest / total))
    out.append("Labels: %s; labelled fields: title %d, authors %d (of which %d name nobody), year %d." % (
        ", ".join("%s %d" % kv for kv in C(r["label"] for r in recs).most_common()),
        sum(has(r, "title") for r in recs), sum((r.get("truth") or {}).get("authors") is not None for r in recs),
        sum((r.get("truth") or {}).get("authors") == [] for r in recs), sum(has(r, "year") for r in recs)))
    out.append("Info title verdict: all documents %s; labelled documents %s." % (
        ", ".join("%s %d" % kv for kv in C((r.get("info") or {}).get("verdict") for r in recs).most_common()),
        ", ".join("%s %d" % kv for kv in C((r.get("info") or {}).get("verdict") for r in lab).most_common())))
    out.append("Producers (%d families): %s." % (
        len({r["producer"] for r in recs}),
        ", ".join("%s %d" % kv for kv in C(r["producer"] for r in recs).most_common())))
    out.append("Kinds: %s." % ", ".join("%s %d" % kv for kv in C(r["kind"] or "other" for r in recs).most_common()))
    text = "\n".join(out)
    if a.write:
        # replace the generated part of the doc between its two markers
        doc = open(a.write, encoding="utf-8").read()
        b, e = "<!-- sources table: generated by corpus.py table -->", "<!-- end of sources table -->"
        i, j = doc.index(b), doc.index(e)
        doc = doc[:i + len(b)] + "\n" + text + "\n" + doc[j:]
        open(a.write, "w", encoding="utf-8").write(doc)
    else:
        print(text)


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("scan")
    s.add_argument("debdir")
    s.add_argument("work")
    s.add_argument("--jobs", type=int, default=2)
    s.add_argument("--order", help="file listing the .deb names to scan, in this order")
    s = sub.add_parser("select")
    s.add_argument("work", nargs="+")
    s.add_argument("--shared", default="/work/shared")
    s.add_argument("--max-per-source", type=int, default=600)
    s.add_argument("--texlive-per-folder", type=int, default=3,
                   help="documents per TeX Live package folder (../shared/wild took 2)")
    s = sub.add_parser("worklist")
    s.add_argument("work", nargs="+")
    s.add_argument("--shared", default="/work/shared")
    s.add_argument("--package")
    s.add_argument("--per-package", type=int, default=3)
    s.add_argument("--chosen", action="store_true", help="only unlabelled documents of labels.json")
    s.add_argument("-n", type=int, default=20)
    s.add_argument("--chars", type=int, default=900)
    s = sub.add_parser("fetch")
    s.add_argument("out")
    s.add_argument("--lock", help="another lock file (default: sources.lock beside this script)")
    s.add_argument("--debs", action="append", help="folder of .deb files to use before downloading "
                   "(each is used only if its sha256 is the pinned one); may be repeated")
    s.add_argument("--shared", default="/work/shared")
    s = sub.add_parser("truth")
    s.add_argument("out")
    s.add_argument("--shared", default="/work/shared")
    s = sub.add_parser("table")
    s.add_argument("truth", nargs="?")
    s.add_argument("--write", help="a Markdown file whose generated table part is replaced")
    s.add_argument("--min-rows", type=int, default=8, help="families with fewer documents share a row")
    s.add_argument("--shared", default="/work/shared")
    a = ap.parse_args()
    sys.exit({"scan": cmd_scan, "select": cmd_select, "worklist": cmd_worklist,
              "fetch": cmd_fetch, "truth": cmd_truth, "table": cmd_table}[a.cmd](a) or 0)
