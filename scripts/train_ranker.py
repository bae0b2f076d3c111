#!/usr/bin/env python3
"""Trains colophon's ranker and measures it leaving one source out at a time.

Usage (scripts/train-ranker.sh runs both steps):
    train_ranker.py --set NAME:RUN_DIR:TRUTH_JSON:SOURCES [--set ...]
                    [--weights src/decide/ranker/weights.rs] [--report docs/accuracy-ranker.md]
                    [--plot docs/precision-coverage.png]
    train_ranker.py variants --truth TRUTH_JSON --pdfs DIR --out DIR
                    [--sources SOURCES] [--max-per-source N] [--seed N]

Each set is a colophon run (its `records.jsonl` and
`diagnostics/<stem>/candidates.json`) over labelled PDFs. SOURCES says what
one *source* is, the unit held out whole:
  one       the whole set (gold, ../shared/realdocs, ../shared/pdfjs)
  package   the Debian package family named in the record's `source`
            ("Debian package NAME VERSION, path"; ../shared/wild)
  family    the record's `family` (the real corpus's truth.json, whose
            families are Debian package families and the shared sets)
Truth files are the project's truth.json schema or the shared sets'
labels.json (the same records); a PDF named `<stem>-stripped.pdf` or
`<stem>-junkinfo.pdf` without a record of its own takes the record of
`<stem>.pdf` with that condition.

Conditions. Every document is read as-is, stripped (Info and XMP removed)
and with junk Info (Info and XMP replaced by what real libraries hold: a
file name, a proof slug, a font name, "Microsoft Word - ...", another
document's title, an abbreviation of the title, a template leftover). The
`variants` step makes the two copies (scripts/corpus/variants.py, when the
repository has it, makes the real corpus's own).

Labels. For every document and field with a known answer, each cluster of
candidates in `candidates.json` is labelled right or wrong with the corpus
scorer's own matching rules (shared/corpus/score.py).

Validation: leave one source out. Every source with at least
MIN_SOURCE_DOCS documents is a fold of its own; the smaller ones are held
out together in a few folds (each still whole). Per field, gradient-boosted
trees are fitted on the other folds and predict the held-out one; the
probabilities are calibrated by a monotone map fitted on the other folds'
held-out probabilities. MIN_CONFIDENCE is the lowest threshold at which the
emitted titles, authors and years are each right >= TARGET_PRECISION on the
*worst* source with MIN_SOURCE_DOCS documents or more. The weights written
are fitted on every source, with the calibration map of all held-out folds.

Info alone never beats a printed title: a title or author cluster that only
the Info dictionary gives and no page read prints (feature `info_printed`
0) gets probability 0 in colophon (decide::unconfirmed_info); it is not
trained on and is given 0 here too.
"""

import argparse
import collections
import hashlib
import json
import os
import random
import re
import sys

import numpy as np

FIELDS = ["title", "authors", "publisher", "year", "edition", "isbn", "doi", "loc"]
# Checked identifiers keep their checksum and context rules (almost never
# wrong on unseen PDFs); the ranker learns the free-text fields that have
# labels beyond the generated books. Edition keeps its rules (precision 1.0
# held out; a model fitted on generated books emitted volume numbers).
TRAINED = ["title", "authors", "publisher", "year"]
PRECISION_FIELDS = ["title", "authors", "year"]
# A field is trained only with this many right clusters to learn from;
# below, its rule score stays (publisher, labelled on few real documents,
# kept its rules: a model fitted on a few dozen emitted nothing held out).
MIN_TRAIN_RIGHT = 200
TARGET_PRECISION = 0.98
# A source with this many documents is judged on its own for the threshold
# and is a fold of its own; smaller ones share folds.
MIN_SOURCE_DOCS = 30
SMALL_FOLDS = 4
HERE = os.path.dirname(os.path.abspath(__file__))
CONDITIONS = ("stripped", "junkinfo")


def load_scorer(corpus_dir):
    sys.path.insert(0, corpus_dir)
    import score  # noqa: E402  (shared/corpus/score.py)
    return score


def feature_names():
    src = open(os.path.join(HERE, "..", "src", "decide", "features.rs")).read()
    body = src.split("pub const NAMES")[1].split("];")[0]
    body = "\n".join(l.split("//")[0] for l in body.splitlines())
    return [p.split('"')[1] for p in body.split(",") if '"' in p]


def value_of(v):
    """A candidates.json value ({"Text": s} / {"Names": [...]} / {"Number": n})."""
    (kind, x), = v.items()
    return x


# ---------------------------------------------------------------- sources

def family_of(pkg):
    """Debian packages built from one source or collection are one source
    (as scripts/corpus groups them): all R vignettes, all TeX Live language
    packages."""
    if pkg.startswith(("r-cran-", "r-bioc-")):
        return "r-vignettes"
    if pkg.startswith("texlive-lang-"):
        return "texlive-lang"
    return pkg


def source_of(set_name, t, mode):
    if mode == "one":
        return set_name
    if mode == "package":
        src = t.get("source") or ""
        if src.startswith("Debian package "):
            return family_of(src.split(" ")[2])
        return set_name
    if mode == "family":
        return t.get("family") or t.get("source_set") or set_name
    raise SystemExit(f"train_ranker: unknown source mode {mode!r}")


def truth_index(truth_path):
    """Truth records by path and by basename."""
    truth = json.load(open(truth_path))
    by_path = {os.path.normpath(t["file"]): t for t in truth}
    by_base = {}
    for t in truth:
        by_base.setdefault(os.path.basename(t["file"]), t)
    return by_path, by_base


def find_truth(rel, by_path, by_base):
    """The truth record of a PDF and its condition: its own record, else the
    as-is record of the file a -stripped/-junkinfo copy was made from."""
    t = by_path.get(os.path.normpath(rel)) or by_base.get(os.path.basename(rel))
    if t is not None:
        return t, t.get("condition", "asis")
    for cond in CONDITIONS:
        suffix = f"-{cond}.pdf"
        if rel.endswith(suffix):
            orig = rel[: -len(suffix)] + ".pdf"
            t = by_path.get(os.path.normpath(orig)) or by_base.get(os.path.basename(orig))
            if t is not None:
                return t, cond
    return None, None


def is_silver(set_name, t):
    """Silver labels (from Info/XMP the page confirms): null means unknown."""
    return set_name == "wild" or t.get("label") == "silver"


def is_partial(set_name, t):
    """Whether a null field means "not labelled" rather than "not there":
    silver labels, and the real corpus's labels (its records say so in
    `notes`); gold and the shared sets' read labels are complete."""
    return is_silver(set_name, t) or "null = not labelled" in (t.get("notes") or "")


def labelled(t):
    """Whether a truth record labels anything (the real corpus lists
    documents not labelled yet, every field null)."""
    return t.get("label") != "none" and any(
        v not in (None, [], "") for v in (t.get("truth") or {}).values())


def load_set(name, run_dir, truth_path, mode):
    by_path, by_base = truth_index(truth_path)
    docs = []
    recs = [json.loads(l) for l in open(os.path.join(run_dir, "records.jsonl"))]
    for rec in recs:
        t, cond = find_truth(rec["path"], by_path, by_base)
        if t is None or not labelled(t):
            continue
        stem = rec["path"][:-4] if rec["path"].lower().endswith(".pdf") else rec["path"]
        cpath = os.path.join(run_dir, "diagnostics", stem, "candidates.json")
        clusters = json.load(open(cpath)) if os.path.exists(cpath) else []
        source = source_of(name, t, mode)
        docs.append({
            "set": name,
            "file": rec["path"],
            "condition": cond,
            "kind": t.get("kind") or "",
            "source": source,
            "doc": f"{source}:{t['doc']}",
            "truth": t["truth"],
            "alt": t.get("alt") or {},
            "silver": is_silver(name, t),
            "partial": is_partial(name, t),
            "verdict": (t.get("info") or {}).get("verdict") or "",
            "doi_absent": t.get("doi_absent", False),
            "clusters": clusters,
        })
    return docs


def known(doc, field):
    """Whether the field's answer is known: gold and the shared sets' truth
    is complete (null = nothing there); in partial labels null means
    unknown."""
    tv = doc["truth"].get(field)
    if not doc["partial"]:
        return True
    if field == "doi" and doc["doi_absent"]:
        return True
    return tv not in (None, [], "")


def label(score, doc, field, value, subtitle=None):
    tool = {field: value}
    if subtitle:
        tool["subtitle"] = subtitle
    j = score.judge(field, tool, doc["truth"], doc["alt"])
    return 1 if j == "correct" else 0


def has_truth(doc, field):
    return doc["truth"].get(field) not in (None, [], "")


def unconfirmed_info(field, x):
    """decide::unconfirmed_info: a title or author cluster only the Info
    dictionary gives, which no page read prints. Probability 0."""
    return (field in ("title", "authors") and x[NAMES.index("info_only")] == 1
            and x[NAMES.index("info_printed")] == 0)


def trainable(doc, field, x):
    """Whether one cluster of one document is a training example.

    The gold corpus is never trained on: the CI gate scores it, so its
    figure is a held-out one. Silver labels exist only where the Info
    metadata agrees with the page, so on the as-is silver copies a value
    that only the Info dictionary gives is right by construction: those
    clusters are measured, never trained on; the stripped and junk-Info
    copies of the same documents show the model the pages without that
    help, and documents labelled by reading show Info titles that are
    wrong. Clusters colophon gives 0 by rule are not trained on."""
    if doc["set"] == "gold" or unconfirmed_info(field, x):
        return False
    if doc["silver"] and doc["condition"] == "asis":
        return not x[NAMES.index("info_only")]
    return True


# ---------------------------------------------------------------- model

# Per field, gradient-boosted trees of at most 4 levels on histograms:
# deterministic (no early stopping, no subsampling, fixed random_state),
# and fast enough to refit once per held-out source.
PARAMS = dict(max_iter=250, max_depth=4, max_leaf_nodes=16, learning_rate=0.06,
              min_samples_leaf=20, l2_regularization=1.0, early_stopping=False,
              random_state=0)


# Each example is weighted by SOURCE_BALANCE-th power of 1 / its source's
# size in documents (0 weighs every example alike; 1 gives every source one
# vote). Measured at 0.5 on 2026-11-28: pooled accuracy up by under a
# point, but the worst sources' precision at high thresholds fell
# (../shared/pdfjs and texlive-lang titles never reached 98%), so 0.
SOURCE_BALANCE = 0.0
# The generators' sets weigh this much a document against a real one:
# they invent given names no list of real ones holds, and with their
# weight the model learned that a byline of unknown given names is as
# sure as one of known names (feature given_share), which on real
# documents it is not (form labels, companies, headings).
GENERATED_WEIGHT = 0.25


def source_weights(docs, owners):
    """Per example (a cluster of document owners[i]): its weight."""
    sizes = source_sizes(docs)
    w = np.array([sizes[docs[o]["source"]] ** -SOURCE_BALANCE
                  * (GENERATED_WEIGHT if docs[o]["source"].startswith("generated-") else 1.0)
                  for o in owners])
    return w / w.mean() if len(w) else w


def fit(X, y, w=None):
    from sklearn.ensemble import HistGradientBoostingClassifier
    m = HistGradientBoostingClassifier(**PARAMS)
    m.fit(X.astype(np.float32).astype(np.float64), y, sample_weight=w)
    return m


def predict(m, X):
    return m.predict_proba(X.astype(np.float32).astype(np.float64))[:, 1]


def export(m):
    """The model as colophon evaluates it: the prior log-odds and, per
    tree, nodes (feature, threshold, left, right, value) with leaves
    marked by feature None; leaf values are already scaled by the
    learning rate."""
    base = float(np.ravel(m._baseline_prediction)[0])
    trees = []
    for (pred,) in m._predictors:
        nodes = []
        for n in pred.nodes:
            if n["is_leaf"]:
                nodes.append((None, 0.0, 0, 0, float(n["value"])))
            else:
                nodes.append((int(n["feature_idx"]), float(n["num_threshold"]),
                              int(n["left"]), int(n["right"]), 0.0))
        trees.append(nodes)
    return base, trees


def exported_log_odds(model, X):
    """Evaluates an exported model the way src/decide/ranker.rs does."""
    base, trees = model
    X = X.astype(np.float32).astype(np.float64)
    out = np.full(len(X), base)
    for r, x in enumerate(X):
        for nodes in trees:
            i = 0
            while nodes[i][0] is not None:
                f, thr, left, right, _ = nodes[i]
                i = left if x[f] <= thr else right
            out[r] += np.float32(nodes[i][4])
    return out


def examples(docs, field, score):
    """Every labelled cluster of `field`: features, label (right = 1), the
    document it belongs to, and whether it is a training example."""
    rows, ys, owners, usable = [], [], [], []
    for di, doc in enumerate(docs):
        if not known(doc, field):
            continue
        for c in doc["clusters"]:
            if c["field"] != field:
                continue
            x = [c["features"].get(n, 0.0) for n in NAMES]
            rows.append(x)
            ys.append(label(score, doc, field, value_of(c["value"]), c.get("subtitle")))
            owners.append(di)
            usable.append(trainable(doc, field, x))
    X = np.array(rows, dtype=float).reshape(-1, len(NAMES))
    return X, np.array(ys, dtype=float), owners, np.array(usable, dtype=bool)


# Knots of a calibration map: the map is a monotone piecewise-linear
# function from the trees' probability to the share of clusters that were
# right, so that one MIN_CONFIDENCE means the same for every field.
CALIBRATION_KNOTS = 40
# A sliver of the trees' own probability keeps the map strictly increasing,
# so that calibration never changes which cluster of a document wins.
CALIBRATION_SLOPE = 1e-4


def fit_calibration(p, y):
    """Knots (x, y) of a logistic map of the trees' log-odds (Platt
    scaling), sampled evenly in log-odds over the range seen. Smooth and
    rising everywhere: an isotonic map pools the most probable clusters
    into one flat step, and then no threshold can pick the surest of them
    (a step right 97.7% of the time on average is all or nothing)."""
    from sklearn.linear_model import LogisticRegression
    p = np.clip(np.asarray(p, dtype=float), 1e-6, 1 - 1e-6)
    z = np.log(p / (1 - p)).reshape(-1, 1)
    lr = LogisticRegression(C=1e4)
    lr.fit(z, y)
    a, b = float(lr.coef_[0][0]), float(lr.intercept_[0])
    if a <= 0:
        raise SystemExit("train_ranker: the trees' probabilities do not rise with rightness")
    zs = np.linspace(z.min(), z.max(), CALIBRATION_KNOTS)
    xs = 1 / (1 + np.exp(-zs))
    ys = 1 / (1 + np.exp(-(a * zs + b)))
    return [(float(u), float(v)) for u, v in zip(xs, ys)]


def calibrate(knots, p):
    """What src/decide/ranker.rs computes: linear between the knots, flat
    beyond them, plus the sliver of the raw probability."""
    xs = np.array([k[0] for k in knots], dtype=np.float32)
    ys = np.array([k[1] for k in knots], dtype=np.float32)
    q = np.interp(np.asarray(p, dtype=np.float32), xs, ys)
    return np.clip(q * (1 - CALIBRATION_SLOPE) + CALIBRATION_SLOPE * np.asarray(p), 0.0, 1.0)


def source_sizes(docs):
    """Distinct documents per source."""
    per = collections.defaultdict(set)
    for d in docs:
        per[d["source"]].add(d["doc"])
    return {s: len(v) for s, v in per.items()}


def folds_of(docs):
    """Fold name per source: a large source is its own fold, the small
    ones are spread over SMALL_FOLDS folds by a hash of their name (each
    still held out whole)."""
    out = {}
    for s, n in source_sizes(docs).items():
        if n >= MIN_SOURCE_DOCS:
            out[s] = s
        else:
            k = int(hashlib.sha256(s.encode()).hexdigest(), 16) % SMALL_FOLDS
            out[s] = f"small sources {k + 1}"
    return out


def held_out(docs, field, score, fold_of):
    """Per document: (best held-out probability, its cluster right?, row) or
    None when there is no cluster; only documents whose answer is known.

    The probabilities are calibrated, cross-fitted: the map applied to a
    fold is fitted on the other folds' held-out probabilities."""
    X, y, owners, usable = examples(docs, field, score)
    out = {}
    if len(y) == 0:
        return out
    folds = np.array([fold_of[docs[o]["source"]] for o in owners])
    weights = source_weights(docs, owners)
    ruled = np.array([unconfirmed_info(field, x) for x in X], dtype=bool)
    probs = np.zeros(len(y))
    names = sorted(set(folds))
    for k in names:
        train, test = (folds != k) & usable, folds == k
        if y[train].sum() == 0:
            continue
        probs[test] = predict(fit(X[train], y[train], weights[train]), X[test])
        print(f"  {field}: held out {k} ({int(test.sum())} clusters)", file=sys.stderr)
    raw = probs.copy()
    for k in names:
        test, other = folds == k, (folds != k) & usable
        if test.sum() and other.sum():
            probs[test] = calibrate(fit_calibration(raw[other], y[other]), raw[test])
    probs[ruled] = 0.0
    CALIBRATION_INPUT[field] = (raw[usable], y[usable])
    for i, o in enumerate(owners):
        if o not in out or probs[i] > out[o][0]:
            out[o] = (probs[i], y[i], i)
    return out


# Per trained field: the held-out probabilities and labels the exported
# calibration map is fitted on.
CALIBRATION_INPUT = {}

RULE_MIN_SCORE = 0.3  # decide::MIN_SCORE


def rule_choice(doc, field, score):
    """What the rule-based decide (the best cluster by rule score, when it
    reaches MIN_SCORE) would emit: right (1), wrong (0), or None."""
    best = None
    for c in doc["clusters"]:
        if c["field"] == field and (best is None or c["score"] > best["score"]):
            best = c
    if best is None or best["score"] < RULE_MIN_SCORE:
        return None
    return label(score, doc, field, value_of(best["value"]), best.get("subtitle"))


def rule_preds(docs, field, score):
    """For an untrained field, what the rule emits, as probability 1."""
    out = {}
    for i, doc in enumerate(docs):
        if known(doc, field):
            r = rule_choice(doc, field, score)
            if r is not None:
                out[i] = (1.0, r, None)
    return out


# ---------------------------------------------------------------- figures

def field_stats(docs, preds, field, threshold, ids):
    """accuracy (scorer's: right / (with truth + false positives)), emitted,
    right among emitted, documents with truth, PDFs with an emitted value."""
    ids = [i for i in ids if known(docs[i], field)]
    with_truth = sum(1 for i in ids if has_truth(docs[i], field))
    emitted = right = fp = 0
    for i in ids:
        p = preds[field].get(i)
        if p is None or p[0] < threshold:
            continue
        emitted += 1
        if has_truth(docs[i], field):
            right += int(p[1])
        else:
            fp += 1
    return {
        "docs": with_truth,
        "accuracy": right / (with_truth + fp) if with_truth + fp else float("nan"),
        "emitted": emitted,
        "precision": right / emitted if emitted else float("nan"),
        "coverage": emitted / len(ids) if ids else float("nan"),
    }


def table(docs, preds, threshold, select, score):
    """Per field: documents with truth, accuracy, emitted, precision (held-out)
    and the rule-based decide's figures."""
    ids = [i for i, d in enumerate(docs) if select(d)]
    rows = []
    for field in FIELDS:
        st = field_stats(docs, preds, field, threshold, ids)
        if not st["docs"]:
            continue
        kn = [i for i in ids if known(docs[i], field)]
        base_emit = base_ok = base_fp = 0
        for i in kn:
            r = rule_choice(docs[i], field, score)
            if r is None:
                continue
            base_emit += 1
            if has_truth(docs[i], field):
                base_ok += r
            else:
                base_fp += 1
        rows.append(dict(st, field=field,
                         rule_accuracy=base_ok / (st["docs"] + base_fp),
                         rule_precision=base_ok / base_emit if base_emit else float("nan")))
    return rows


def judged_sources(docs):
    return sorted(s for s, n in source_sizes(docs).items() if n >= MIN_SOURCE_DOCS)


def worst_precision(docs, preds, t, sources=None):
    """The lowest precision of emitted titles, authors and years over the
    sources with MIN_SOURCE_DOCS documents or more (or `sources`), and
    where it is."""
    worst = (1.0, None, None)
    for s in judged_sources(docs) if sources is None else sources:
        ids = [i for i, d in enumerate(docs) if d["source"] == s]
        for field in PRECISION_FIELDS:
            st = field_stats(docs, preds, field, t, ids)
            if st["emitted"] and st["precision"] < worst[0]:
                worst = (st["precision"], s, field)
    return worst


THRESHOLDS = [x / 100 for x in range(5, 99)] + [x / 1000 for x in range(990, 1000)]


# Fewer emitted values than this do not show a precision of 98%.
MIN_EMITTED = 10
# A source reaches the target only at a threshold that keeps at least this
# share of the values it emits at the lowest threshold: a source that gets
# there only by giving up most of its values is reported as failing rather
# than allowed to take most values from every other source too. 0 gives
# the strict rule (every judged source, at any cost in coverage).
KEEP = 0.5


def reachable(docs, preds, source):
    """Whether a source's emitted titles, authors and years reach
    TARGET_PRECISION at some threshold at which it still emits at least
    KEEP of the values it emits at the lowest threshold (and MIN_EMITTED)."""
    ids = [i for i, d in enumerate(docs) if d["source"] == source]
    for field in PRECISION_FIELDS:
        seen = [field_stats(docs, preds, field, t, ids) for t in THRESHOLDS]
        floor = max(MIN_EMITTED, KEEP * seen[0]["emitted"])
        seen = [st for st in seen if st["emitted"] >= floor]
        if seen and max(st["precision"] for st in seen) < TARGET_PRECISION:
            return False
    return True


def lowest_threshold(docs, preds, sources):
    for t in THRESHOLDS:
        if worst_precision(docs, preds, t, sources)[0] >= TARGET_PRECISION:
            return t
    return 1.0


def choose_threshold(docs, preds):
    """The lowest threshold at which the emitted titles, author lists and
    years are each right at least TARGET_PRECISION of the time on every
    source with MIN_SOURCE_DOCS documents or more that can reach it (see
    `reachable`), and the sources that cannot (reported, with their
    figures at the threshold chosen)."""
    judged = judged_sources(docs)
    hopeless = [s for s in judged if not reachable(docs, preds, s)]
    return lowest_threshold(docs, preds, [s for s in judged if s not in hopeless]), hopeless


def f3(x):
    return "–" if x != x else f"{x:.3f}"


def fmt_rows(rows):
    out = ["| field | docs | accuracy | precision (emitted) | coverage | rule-based accuracy | rule-based precision |",
           "|---|---|---|---|---|---|---|"]
    for r in rows:
        out.append(f"| {r['field']} | {r['docs']} | {f3(r['accuracy'])} | {f3(r['precision'])} ({r['emitted']}) "
                   f"| {f3(r['coverage'])} | {f3(r['rule_accuracy'])} | {f3(r['rule_precision'])} |")
    main = [r for r in rows if r["field"] in ("title", "authors", "year")]
    if main:
        out.append(f"\nmean of title, authors, year: {np.mean([r['accuracy'] for r in main]):.3f} "
                   f"(rule-based {np.mean([r['rule_accuracy'] for r in main]):.3f})")
    return "\n".join(out)


# Sources under this many documents share one row of the table.
SMALL_ROW_DOCS = 5


def threshold_table(docs, preds):
    """Per judged source and field: precision and coverage of emitted
    values as the threshold rises."""
    ts = [0.5, 0.7, 0.8, 0.9, 0.95, 0.98, 0.99]
    out = ["| source | field | " + " | ".join(str(t) for t in ts) + " |",
           "|---|---|" + "---|" * len(ts)]
    for s in judged_sources(docs):
        ids = [i for i, d in enumerate(docs) if d["source"] == s]
        for f in PRECISION_FIELDS:
            cells = []
            for t in ts:
                st = field_stats(docs, preds, f, t, ids)
                cells.append(f"{f3(st['precision'])} / {f3(st['coverage'])}")
            out.append(f"| {s} | {f} | " + " | ".join(cells) + " |")
    return "\n".join(out)


def source_table(docs, preds, threshold):
    """One row per source: documents, PDFs, producers, and per field of
    PRECISION_FIELDS accuracy / precision of emitted values; coverage =
    share of the source's PDFs with an emitted title."""
    head = ["| source | docs | PDFs | title acc / prec | title coverage | authors acc / prec "
            "| year acc / prec | fold |",
            "|---|---|---|---|---|---|---|---|"]
    sizes = source_sizes(docs)
    fold_of = folds_of(docs)
    rows = []
    small = [s for s in sizes if sizes[s] < SMALL_ROW_DOCS]
    groups = [(s, [s]) for s in sorted(sizes, key=lambda s: (-sizes[s], s)) if s not in small]
    if small:
        groups.append((f"{len(small)} sources of under {SMALL_ROW_DOCS} documents, together", small))
    for s, members in groups:
        ids = [i for i, d in enumerate(docs) if d["source"] in members]
        if len(members) > 1:
            sizes[s] = sum(sizes[m] for m in members)
            fold_of[s] = "small sources"
        st = {f: field_stats(docs, preds, f, threshold, ids) for f in PRECISION_FIELDS}
        cov = sum(1 for i in ids if preds["title"].get(i) and preds["title"][i][0] >= threshold) / len(ids)
        cell = lambda f: (f"{f3(st[f]['accuracy'])} / {f3(st[f]['precision'])}"
                          if st[f]["docs"] or st[f]["emitted"] else "–")
        mark = " **" if len(members) == 1 and sizes[s] >= MIN_SOURCE_DOCS else ""
        rows.append(f"| {s}{mark} | {sizes[s]} | {len(ids)} | {cell('title')} | {cov:.3f} "
                    f"| {cell('authors')} | {cell('year')} | {fold_of[s] if fold_of[s] != s else 'own'} |")
    return "\n".join(head + rows)


def write_weights(path, models, threshold, summary):
    lines = [
        "//! Generated by `scripts/train-ranker.sh`; do not edit by hand.",
        "//!",
    ]
    lines += [f"//! {s}" for s in summary]
    lines += [
        "",
        "use super::{LEAF, Model, Node};",
        "use crate::model::Field;",
        "",
        "/// Per field: the prior log-odds and the trees (`ranker::Node`).",
        "#[rustfmt::skip]",
        "pub const TRAINED: &[Model] = &[",
    ]
    for field, ((base, trees), knots) in models.items():
        lines.append(f"    Model {{ field: Field::{field.capitalize()}, base: {base:.9g},")
        lit = lambda x: repr(float(f"{x:.9g}"))  # always with a decimal point
        lines.append("        calibration: &[" + ", ".join(f"({lit(a)}, {lit(b)})" for a, b in knots) + "],")
        lines.append("        trees: &[")
        for nodes in trees:
            parts = []
            for f, thr, left, right, value in nodes:
                if f is None:
                    parts.append(f"Node(LEAF, 0.0, 0, 0, {value:.9g})")
                else:
                    parts.append(f"Node({f}, {thr!r}, {left}, {right}, 0.0)")
            lines.append("        &[" + ", ".join(parts) + "],")
        lines.append("    ] },")
    lines += ["];", "", f"pub const MIN_CONFIDENCE: f32 = {threshold};", ""]
    open(path, "w").write(with_model_id("\n".join(lines)))


def with_model_id(text):
    """The weights' text with MODEL_ID, a checksum of it, appended: cached
    decisions are keyed by it, so new weights never meet old records."""
    digest = hashlib.sha256(text.encode()).hexdigest()[:8]
    return text + ("/// Checksum of the tables above; part of the cache key of decisions.\n"
                   f"pub const MODEL_ID: u32 = 0x{digest};\n")


def plot(path, docs, preds):
    """Precision against coverage of emitted titles, per judged source and
    over all sources, as the threshold falls."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.5), dpi=100)
    for ax, field in zip(axes, ["title", "authors"]):
        groups = [("all", None)] + [(s, s) for s in judged_sources(docs)]
        for name, s in groups:
            ids = [i for i in preds[field] if s is None or docs[i]["source"] == s]
            pts = sorted(((preds[field][i][0], preds[field][i][1], has_truth(docs[i], field))
                          for i in ids), key=lambda x: -x[0])
            n = sum(1 for i, d in enumerate(docs) if (s is None or d["source"] == s) and known(d, field))
            if not pts or not n:
                continue
            cov, prec, good = [], [], 0
            for k, (p, ok, ht) in enumerate(pts, 1):
                good += int(ok and ht)
                cov.append(k / n)
                prec.append(good / k)
            ax.plot(cov, prec, label=name, lw=2 if s is None else 0.8)
        ax.set_xlabel("coverage (PDFs with an emitted value / PDFs)")
        ax.set_ylabel("precision of emitted values")
        ax.set_ylim(0.5, 1.01)
        ax.axhline(TARGET_PRECISION, color="grey", lw=0.5, ls="--")
        ax.set_title(f"{field}, each source held out")
    axes[0].legend(loc="lower left", fontsize=6)
    fig.tight_layout()
    fig.savefig(path)


def train_main(args):
    score = load_scorer(args.corpus)
    docs = []
    for s in args.set:
        name, run_dir, truth, mode = s.split(":")
        docs += load_set(name, run_dir, truth, mode)
    sizes = source_sizes(docs)
    print(f"{len(docs)} PDFs, {len({d['doc'] for d in docs})} documents, {len(sizes)} sources",
          file=sys.stderr)
    fold_of = folds_of(docs)
    trained = []
    for field in TRAINED:
        _, y, _, usable = examples(docs, field, score)
        if y[usable].sum() >= MIN_TRAIN_RIGHT and y[usable].sum() < usable.sum():
            trained.append(field)
    preds = {f: held_out(docs, f, score, fold_of) if f in trained else rule_preds(docs, f, score)
             for f in FIELDS}
    threshold, hopeless = choose_threshold(docs, preds)
    chosen = threshold
    if args.threshold is not None:
        threshold = args.threshold
    judged = judged_sources(docs)
    worst = worst_precision(docs, preds, chosen, [s for s in judged if s not in hopeless])
    report = [
        "# Ranker: each source held out\n",
        "Generated by `scripts/train-ranker.sh` (scripts/train_ranker.py); do not edit by hand.\n",
        f"{len(docs)} PDFs: {len({d['doc'] for d in docs})} documents from {len(sizes)} sources, "
        f"each read as-is, stripped of Info/XMP and with junk Info/XMP. Every figure is held out: "
        f"the model that scored a source was trained without it (sources under {MIN_SOURCE_DOCS} "
        f"documents are held out together in {SMALL_FOLDS} folds, each source still whole), and its "
        f"calibration was fitted on the other folds.\n",
        (f"**MIN_CONFIDENCE = {threshold}, set by hand** (`--threshold`; the rule below gives "
         f"{chosen}).\n" if threshold != chosen else ""),
        f"**MIN_CONFIDENCE = {chosen}**: the lowest threshold at which emitted titles, authors and "
        f"years are each right at least {TARGET_PRECISION:.0%} of the time on the worst of the "
        f"{len(judged) - len(hopeless)} sources with {MIN_SOURCE_DOCS} documents or more"
        + (f" (worst: {worst[1]}, {worst[2]}, precision {worst[0]:.3f})" if worst[1] else "")
        + ("." if not hopeless else
           f". **Not reachable** on {', '.join(hopeless)}: there titles, authors or years are "
           f"wrong more than {1 - TARGET_PRECISION:.0%} of the time at every threshold that keeps "
           f"{KEEP:.0%} of the values the source emits at the lowest one; those sources are left "
           f"out of the choice and fail the target (their figures are below, at this threshold). "
           f"The strict rule (every judged source, whatever the coverage) gives "
           f"{lowest_threshold(docs, preds, judged)}, where "
           f"{field_stats(docs, preds, 'title', lowest_threshold(docs, preds, judged), list(range(len(docs))))['coverage']:.1%}"
           f" of all PDFs get a title.")
        + "\n",
        "## Per source (held out)\n",
        "accuracy = right / (documents with an answer + values emitted where there is none); "
        "precision = right / emitted; title coverage = share of the PDFs with a title emitted "
        f"at MIN_CONFIDENCE. ** = {MIN_SOURCE_DOCS} documents or more (judged for the threshold).\n",
        source_table(docs, preds, threshold) + "\n",
        "## Precision / coverage of emitted values per judged source, by threshold\n",
        threshold_table(docs, preds) + "\n",
        "## Threshold against worst-source precision\n",
        "| MIN_CONFIDENCE | worst precision (source, field) | title coverage (all PDFs) |",
        "|---|---|---|",
    ]
    all_ids = list(range(len(docs)))
    for t in [0.5, 0.7, 0.8, 0.9, 0.95, 0.97, 0.98, 0.99, threshold]:
        w = worst_precision(docs, preds, t)
        cov = field_stats(docs, preds, "title", t, all_ids)["coverage"]
        report.append(f"| {t} | {w[0]:.3f} ({w[1]}, {w[2]}) | {cov:.3f} |" if w[1]
                      else f"| {t} | 1.000 | {cov:.3f} |")
    report.append("")
    slices = [("all", lambda d: True)]
    for cond in sorted({d["condition"] for d in docs}):
        slices.append((f"condition {cond}", lambda d, c=cond: d["condition"] == c))
    for v in sorted({d["verdict"] for d in docs if d["verdict"]}):
        slices.append((f"Info title verdict {v} (read labels)",
                       lambda d, v=v: d["verdict"] == v and not d["silver"]))
    for name in sorted({d["kind"] for d in docs}):
        slices.append((f"kind {name}", lambda d, k=name: d["kind"] == k))
    report.append("## All fields, by slice (held out)\n")
    for title, sel in slices:
        n = sum(1 for d in docs if sel(d))
        if n < 10:
            continue
        report.append(f"### {title} ({n} PDFs)\n")
        report.append(fmt_rows(table(docs, preds, threshold, sel, score)) + "\n")
    text = "\n".join(report)
    print(text)
    if args.dump:
        import pickle
        with open(args.dump, "wb") as f:
            pickle.dump((docs, preds), f)

    weights, summary = {}, []
    for field in TRAINED:
        X, y, owners, usable = examples(docs, field, score)
        w = source_weights(docs, owners)[usable]
        X, y = X[usable], y[usable]
        if field not in trained:
            summary.append(f"{field}: not trained, rule score kept ({len(y)} clusters, "
                           f"{int(y.sum())} right; {MIN_TRAIN_RIGHT} right needed)")
            continue
        fitted = fit(X, y, w)
        model = export(fitted)
        # The exported trees must give what the trainer's model gives.
        drift = np.abs(exported_log_odds(model, X)
                       - fitted.decision_function(X.astype(np.float32).astype(np.float64))).max()
        assert drift < 1e-4, f"{field}: exported model differs by {drift}"
        weights[field] = (model, fit_calibration(*CALIBRATION_INPUT[field]))
        summary.append(f"{field}: {len(y)} clusters, {int(y.sum())} right")
    if threshold != chosen:
        summary.append(f"MIN_CONFIDENCE {threshold}: set by hand (--threshold); the rule gives {chosen}")
    summary.append(f"MIN_CONFIDENCE {chosen}: held-out precision of emitted title, authors and "
                   f"year >= {TARGET_PRECISION} on the worst source of {MIN_SOURCE_DOCS}+ documents"
                   + (f" (not reachable on {', '.join(hopeless)})" if hopeless else ""))
    if args.weights:
        write_weights(args.weights, weights, threshold, summary)
    if args.report:
        open(args.report, "w").write(text)
    if args.plot:
        plot(args.plot, docs, preds)


# ---------------------------------------------------------------- variants

# A minimal maker of the stripped and junk-Info copies, for the sets that
# do not come with them (gold, ../shared/wild, ../shared/realdocs,
# ../shared/pdfjs); scripts/corpus/variants.py makes the real corpus's.
FONTS = ["TimesNewRomanPSMT", "Arial-BoldMT", "CMR10", "MinionPro-Regular",
         "Helvetica-Bold", "Calibri", "LMRoman10-Regular", "Cambria-Bold"]
TEMPLATES = ["Paper Title (use style: paper title)", "[project name] in [country]",
             "Title of the Article", "Insert your title here", "Untitled (1 page)",
             "Sin título (1 página)", "Document1", "Presentation Title",
             "TITLE OF THE THESIS", "Template for Proceedings", "Untitled-1"]
WORDS = ["draft", "final", "paper", "report", "manuscript", "notes", "main", "revised", "v2"]
USERS = ["Administrator", "user", "jsmith", "Owner", "Preferred Customer", "admin", "root"]
STOP = {"a", "an", "the", "of", "for", "and", "in", "on", "to", "with", "by"}


def junk_title(real, others, rng):
    words = [w for w in re.findall(r"[^\W_]+", real or "") if w.lower() not in STOP]
    kinds = ["other", "filename", "proofslug", "font", "msword", "template"]
    if len(words) >= 2:
        kinds.append("abbrev")
    kind = rng.choice(kinds)
    if kind == "other" and others:
        return rng.choice(others)
    if kind == "filename":
        base = "_".join(w.lower() for w in words[:rng.choice([1, 2, 3])]) or "document"
        return base + rng.choice(["", "_" + rng.choice(WORDS)]) + rng.choice([".pdf", ".docx", ".tex", ".indd"])
    if kind == "proofslug":
        a = rng.randint(1, 2400)
        return "%s-%s%d %d..%d" % (rng.choice(["OP", "JA", "PR", "MS"]),
                                   "".join(rng.choice("ABCDEFGHJKLMNPQRSTUVWXYZ") for _ in range(3)),
                                   rng.randint(100, 999), a, a + rng.randint(1, 30))
    if kind == "font":
        return rng.choice(FONTS)
    if kind == "msword":
        return "Microsoft Word - %s%d.doc" % (rng.choice(WORDS), rng.randint(1, 9))
    if kind == "abbrev":
        return " ".join(w if len(w) <= 4 else w[:rng.choice([3, 4, 5])] for w in words[:4])
    return rng.choice(TEMPLATES)


def write_variant(src, dst, title=None, author=None):
    """src without Info and XMP, or (title given) with junk Info and XMP."""
    import pikepdf
    with pikepdf.open(src) as pdf:
        keep = {}
        if "/Info" in pdf.trailer:
            for k in ("/Producer", "/Creator"):
                if k in pdf.trailer.Info:
                    keep[k] = pdf.trailer.Info[k]
            del pdf.trailer["/Info"]
        if "/Metadata" in pdf.Root:
            del pdf.Root["/Metadata"]
        if title is not None:
            info = pikepdf.Dictionary(keep)
            info["/Title"] = pikepdf.String(title)
            if author:
                info["/Author"] = pikepdf.String(author)
            pdf.trailer["/Info"] = pdf.make_indirect(info)
            with pdf.open_metadata(set_pikepdf_as_editor=False, update_docinfo=False) as m:
                m["dc:title"] = title
                if author:
                    m["dc:creator"] = [author]
        pdf.save(dst + ".part", deterministic_id=True)
    os.replace(dst + ".part", dst)


def variants_main(args):
    """Links the as-is PDFs of a truth file into OUT (at most N documents
    per source, chosen by a hash of their id) and makes each one's
    -stripped and -junkinfo copy there (a copy already beside the original
    is linked instead)."""
    truth = [t for t in json.load(open(args.truth))
             if t.get("condition", "asis") == "asis" and labelled(t)]
    per = collections.defaultdict(list)
    for t in truth:
        per[source_of("set", t, args.sources)].append(t)
    chosen = []
    for s, ts in sorted(per.items()):
        ts.sort(key=lambda t: hashlib.sha256(t["doc"].encode()).hexdigest())
        chosen += ts[: args.max_per_source or None]
    titles = sorted({t["truth"].get("title") for t in truth} - {None, ""})
    authors = sorted({a for t in truth for a in (t["truth"].get("authors") or [])})
    os.makedirs(args.out, exist_ok=True)
    made = failed = 0
    conditions = args.conditions.split()
    for t in chosen:
        src = os.path.join(args.pdfs, t["file"])
        if not os.path.exists(src):
            src = os.path.join(args.pdfs, os.path.basename(t["file"]))
        if not os.path.exists(src):
            continue
        base = os.path.basename(src)[:-4]
        link = os.path.join(args.out, base + ".pdf")
        if "asis" in conditions and not os.path.lexists(link):
            os.symlink(os.path.abspath(src), link)
        rng = random.Random(f"{args.seed}:{t['doc']}")
        real = t["truth"].get("title")
        title = junk_title(real, [x for x in titles if x != real], rng)
        r = rng.random()
        own = t["truth"].get("authors") or []
        author = (rng.choice(USERS) if r < 0.45 else
                  rng.choice([a for a in authors if a not in own] or USERS) if r < 0.7 else None)
        for cond, junk in (("stripped", None), ("junkinfo", title)):
            dst = os.path.join(args.out, f"{base}-{cond}.pdf")
            beside = os.path.join(os.path.dirname(src), f"{base}-{cond}.pdf")
            if cond not in conditions or os.path.lexists(dst):
                continue
            if os.path.exists(beside):
                os.symlink(os.path.abspath(beside), dst)
                continue
            try:
                write_variant(src, dst, junk, author if junk else None)
                made += 1
            except Exception as e:  # a damaged file never stops the batch
                failed += 1
                print(f"variants: {src}: {cond}: {e}", file=sys.stderr)
                if os.path.exists(dst + ".part"):
                    os.unlink(dst + ".part")
    print(f"variants: {len(chosen)} documents in {args.out}, {made} copies made, {failed} failed",
          file=sys.stderr)


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "variants":
        ap = argparse.ArgumentParser(prog="train_ranker.py variants")
        ap.add_argument("--truth", required=True)
        ap.add_argument("--pdfs", required=True)
        ap.add_argument("--out", required=True)
        ap.add_argument("--sources", default="one")
        ap.add_argument("--max-per-source", type=int, default=0)
        ap.add_argument("--seed", type=int, default=35)
        ap.add_argument("--conditions", default="asis stripped junkinfo")
        variants_main(ap.parse_args(sys.argv[2:]))
        return
    ap = argparse.ArgumentParser()
    ap.add_argument("--set", action="append", required=True)
    ap.add_argument("--corpus", default=os.path.join(HERE, "..", "..", "shared", "corpus"))
    ap.add_argument("--weights")
    ap.add_argument("--report")
    ap.add_argument("--plot")
    ap.add_argument("--dump", help="pickle of the documents and held-out predictions, for study")
    ap.add_argument("--threshold", type=float,
                    help="MIN_CONFIDENCE to write and report instead of the rule's choice")
    train_main(ap.parse_args())


NAMES = feature_names()

if __name__ == "__main__":
    main()
