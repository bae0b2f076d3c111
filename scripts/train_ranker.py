#!/usr/bin/env python3
"""Trains colophon's ranker and measures it on held-out folds.

Usage (scripts/train-ranker.sh runs it after runs over the corpora):
    train_ranker.py --set NAME:RUN_DIR:TRUTH_JSON:GROUPING [--set ...]
                    [--weights src/decide/ranker/weights.rs] [--report docs/accuracy.md]
                    [--plot docs/precision-coverage.png]

Each set is a colophon run (its `records.jsonl` and
`diagnostics/<stem>/candidates.json`) over labelled PDFs. GROUPING says
which PDFs must stay in one fold: `doc` (the truth record's `doc`: every
variant of one book) or `package` (the Debian package named in `source`).

For every document and field with a known answer, each cluster of
candidates in `candidates.json` is labelled right or wrong with the
corpus scorer's own matching rules (shared/corpus/score.py). A logistic
regression per field is fitted on four fifths of the groups and predicts
the fifth; the held-out predictions give the tables, the precision-
coverage plot and the default MIN_CONFIDENCE (the lowest threshold at
which emitted titles, authors and years are each right >= 98% of the
time). The weights written are then fitted on all groups.
"""

import argparse
import hashlib
import json
import os
import sys

import numpy as np

FIELDS = ["title", "authors", "publisher", "year", "edition", "isbn", "doi", "loc"]
# Checked identifiers keep their checksum and context rules (almost never
# wrong on unseen PDFs); the ranker learns the free-text fields that have
# labels beyond the generated books. Edition is labelled on generated books
# only, and a model fitted there emitted paper volume numbers as editions
# on the gold corpus; its rules (precision 1.0 held out) stay.
TRAINED = ["title", "authors", "publisher", "year"]
PRECISION_FIELDS = ["title", "authors", "year"]
TARGET_PRECISION = 0.98
FOLDS = 5
L2 = 1.0
HERE = os.path.dirname(os.path.abspath(__file__))


def load_scorer(corpus_dir):
    sys.path.insert(0, corpus_dir)
    import score  # noqa: E402  (shared/corpus/score.py)
    return score


def feature_names():
    src = open(os.path.join(HERE, "..", "src", "decide", "features.rs")).read()
    body = src.split("pub const NAMES")[1].split("];")[0]
    return [p.split('"')[1] for p in body.split(",") if '"' in p]


def value_of(v):
    """A candidates.json value ({"Text": s} / {"Names": [...]} / {"Number": n})."""
    (kind, x), = v.items()
    return x


def load_set(name, run_dir, truth_path, grouping, score):
    truth = json.load(open(truth_path))
    by_base = {os.path.basename(t["file"]): t for t in truth}
    docs = []
    recs = [json.loads(l) for l in open(os.path.join(run_dir, "records.jsonl"))]
    for rec in recs:
        base = os.path.basename(rec["path"])
        t = by_base.get(base)
        if t is None:
            continue
        stem = rec["path"][:-4] if rec["path"].lower().endswith(".pdf") else rec["path"]
        cpath = os.path.join(run_dir, "diagnostics", stem, "candidates.json")
        clusters = json.load(open(cpath)) if os.path.exists(cpath) else []
        if grouping == "package":
            group = t.get("source", "").split(" ")[2] if t.get("source", "").startswith("Debian package") else t["doc"]
        else:
            group = t["doc"]
        docs.append({
            "set": name,
            "file": base,
            "condition": t.get("condition", "asis"),
            "kind": t.get("kind", ""),
            "group": f"{name}:{group}",
            "truth": t["truth"],
            "alt": t.get("alt") or {},
            "silver": name == "wild",
            "doi_absent": t.get("doi_absent", False),
            "clusters": clusters,
            "record": rec,
        })
    return docs


def known(doc, field):
    """Whether the field's answer is known: gold and generated truth is
    complete (null = nothing there); silver null means unknown."""
    tv = doc["truth"].get(field)
    if not doc["silver"]:
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


def trainable(doc, features):
    """Whether one cluster of one document is a training example.

    The gold corpus is never trained on: the CI gate scores it, so its
    figure is a held-out one. Silver labels exist only where the Info
    metadata agrees with the page, so on the as-is silver copies a value
    that only the Info dictionary gives is right by construction: those
    clusters are measured, never trained on. The as-is copies' other
    clusters are: there, a value printed on the page that the Info
    dictionary confirms is right, as it is on every gold and generated
    PDF where both say the same (docs/accuracy.md), and only the as-is
    copies show the model that agreement on real layouts."""
    if doc["set"] == "gold":
        return False
    if doc["silver"] and doc["condition"] == "asis":
        return TRAIN_SILVER_ASIS and not features[NAMES.index("info_only")]
    return True


# Whether the silver as-is copies' printed values are trained on.
TRAIN_SILVER_ASIS = os.environ.get("TRAIN_SILVER_ASIS", "1") == "1"


def fold_of(group):
    return int(hashlib.sha256(group.encode()).hexdigest(), 16) % FOLDS


# The model: per field, gradient-boosted depth-4 trees (deterministic with a
# fixed random_state and no subsampling). Held out on the same folds,
# trees beat the logistic regression they replaced (docs/accuracy.md).
PARAMS = dict(n_estimators=400, max_depth=4, learning_rate=0.05,
              min_samples_leaf=15, random_state=0)


def fit(X, y):
    from sklearn.ensemble import GradientBoostingClassifier
    m = GradientBoostingClassifier(**PARAMS)
    m.fit(X.astype(np.float32), y)
    return m


def predict(m, X):
    return m.predict_proba(X.astype(np.float32))[:, 1]


def export(m):
    """The model as colophon evaluates it: the prior log-odds and, per
    tree, nodes (feature, threshold, left, right, value) with leaves
    marked by feature None and values scaled by the learning rate."""
    prior = m.init_.class_prior_[1]
    base = float(np.log(prior / (1 - prior)))
    trees = []
    for est in m.estimators_[:, 0]:
        t = est.tree_
        nodes = []
        for i in range(t.node_count):
            if t.children_left[i] == -1:
                nodes.append((None, 0.0, 0, 0, float(m.learning_rate * t.value[i][0][0])))
            else:
                nodes.append((int(t.feature[i]), float(t.threshold[i]),
                              int(t.children_left[i]), int(t.children_right[i]), 0.0))
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
            out[r] += nodes[i][4]
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
            x = [c["features"][n] for n in NAMES]
            rows.append(x)
            ys.append(label(score, doc, field, value_of(c["value"]), c.get("subtitle")))
            owners.append(di)
            usable.append(trainable(doc, x))
    X = np.array(rows, dtype=float).reshape(-1, len(NAMES))
    return X, np.array(ys, dtype=float), owners, np.array(usable, dtype=bool)


# Knots of a calibration map at most: the map is a monotone
# piecewise-linear function from the trees' probability to the share of
# clusters that were right, so that one MIN_CONFIDENCE means the same for
# every field.
CALIBRATION_KNOTS = 40
# A sliver of the trees' own probability keeps the map strictly increasing,
# so that calibration never changes which cluster of a document wins.
CALIBRATION_SLOPE = 1e-4


def fit_calibration(p, y):
    """Knots (x, y) of the isotonic fit of labels on probabilities,
    thinned to CALIBRATION_KNOTS."""
    from sklearn.isotonic import IsotonicRegression
    iso = IsotonicRegression(y_min=0.0, y_max=1.0, out_of_bounds="clip")
    iso.fit(p, y)
    xs, ys = iso.X_thresholds_, iso.y_thresholds_
    if len(xs) > CALIBRATION_KNOTS:
        keep = np.unique(np.linspace(0, len(xs) - 1, CALIBRATION_KNOTS).round().astype(int))
        xs, ys = xs[keep], ys[keep]
    return [(float(a), float(b)) for a, b in zip(xs, ys)]


def calibrate(knots, p):
    """What src/decide/ranker.rs computes: linear between the knots, flat
    beyond them, plus the sliver of the raw probability."""
    xs = np.array([k[0] for k in knots], dtype=np.float32)
    ys = np.array([k[1] for k in knots], dtype=np.float32)
    q = np.interp(np.asarray(p, dtype=np.float32), xs, ys)
    return np.clip(q * (1 - CALIBRATION_SLOPE) + CALIBRATION_SLOPE * np.asarray(p), 0.0, 1.0)


def held_out(docs, field, score):
    """Per document: (best held-out probability, its cluster right?) or None
    when there is no cluster; only documents whose answer is known.

    The probabilities are calibrated, cross-fitted: the map applied to a
    fold is fitted on the other folds' held-out probabilities."""
    X, y, owners, usable = examples(docs, field, score)
    out = {}
    if len(y) == 0:
        return out
    folds = np.array([fold_of(docs[o]["group"]) for o in owners])
    probs = np.zeros(len(y))
    for k in range(FOLDS):
        train, test = (folds != k) & usable, folds == k
        if test.sum() == 0:
            continue
        if y[train].sum() == 0:
            probs[test] = 0.0
            continue
        w = fit(X[train], y[train])
        probs[test] = predict(w, X[test])
    raw = probs.copy()
    for k in range(FOLDS):
        test, other = folds == k, (folds != k) & usable
        if test.sum() and other.sum():
            probs[test] = calibrate(fit_calibration(raw[other], y[other]), raw[test])
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


def table(docs, preds, threshold, select, score):
    """Per field: documents with truth, accuracy, emitted, precision (held-out)."""
    rows = []
    for field in FIELDS:
        ids = [i for i, d in enumerate(docs) if select(d) and known(d, field)]
        with_truth = [i for i in ids if has_truth(docs[i], field)]
        if not with_truth:
            continue
        emitted = correct = 0
        for i in ids:
            p = preds[field].get(i)
            if p is None or p[0] < threshold:
                continue
            emitted += 1
            correct += int(p[1])
        fp = sum(1 for i in ids if not has_truth(docs[i], field)
                 and preds[field].get(i) is not None and preds[field][i][0] >= threshold)
        base_emit = base_ok = 0
        for i in ids:
            r = rule_choice(docs[i], field, score)
            if r is not None:
                base_emit += 1
                base_ok += r
        base_fp = sum(1 for i in ids if not has_truth(docs[i], field)
                      and rule_choice(docs[i], field, score) is not None)
        rows.append({
            "field": field,
            "docs": len(with_truth),
            "accuracy": correct / (len(with_truth) + fp),
            "emitted": emitted,
            "precision": correct / emitted if emitted else float("nan"),
            "rule_accuracy": base_ok / (len(with_truth) + base_fp),
            "rule_precision": base_ok / base_emit if base_emit else float("nan"),
        })
    return rows


def choose_threshold(docs, preds):
    """The lowest threshold at which the emitted titles, the emitted author
    lists and the emitted years are each right at least TARGET_PRECISION
    of the time."""
    for t in [x / 100 for x in range(5, 100)]:
        ok = True
        for field in PRECISION_FIELDS:
            right = emitted = 0
            for i, (p, good, _) in preds[field].items():
                if p >= t:
                    emitted += 1
                    right += int(good and has_truth(docs[i], field))
            ok &= emitted == 0 or right / emitted >= TARGET_PRECISION
        if ok:
            return t
    return 0.99


def fmt_rows(rows):
    out = ["| field | docs | accuracy | precision (emitted) | rule-based accuracy | rule-based precision |",
           "|---|---|---|---|---|---|"]
    for r in rows:
        out.append(f"| {r['field']} | {r['docs']} | {r['accuracy']:.3f} | {r['precision']:.3f} ({r['emitted']}) "
                   f"| {r['rule_accuracy']:.3f} | {r['rule_precision']:.3f} |")
    main = [r for r in rows if r["field"] in ("title", "authors", "year")]
    if main:
        out.append(f"\nmean of title, authors, year: {np.mean([r['accuracy'] for r in main]):.3f} "
                   f"(rule-based {np.mean([r['rule_accuracy'] for r in main]):.3f}); "
                   f"mean of all fields: {np.mean([r['accuracy'] for r in rows]):.3f} "
                   f"(rule-based {np.mean([r['rule_accuracy'] for r in rows]):.3f})")
    return "\n".join(out)


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
    lines += ["];", "", f"pub const MIN_CONFIDENCE: f32 = {threshold:.2};", ""]
    open(path, "w").write(with_model_id("\n".join(lines)))


def with_model_id(text):
    """The weights' text with MODEL_ID, a checksum of it, appended: cached
    decisions are keyed by it, so new weights never meet old records."""
    digest = hashlib.sha256(text.encode()).hexdigest()[:8]
    return text + ("/// Checksum of the tables above; part of the cache key of decisions.\n"
                   f"pub const MODEL_ID: u32 = 0x{digest};\n")


def plot(path, docs, preds):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(6, 4.5), dpi=100)
    for field in FIELDS:
        pts = sorted(((p, ok, has_truth(docs[i], field)) for i, (p, ok, _) in preds[field].items()),
                     key=lambda x: -x[0])
        n_truth = sum(1 for i in preds[field] if has_truth(docs[i], field))
        if n_truth < 20:
            continue
        cov, prec, good = [], [], 0
        for k, (p, ok, ht) in enumerate(pts, 1):
            good += int(ok and ht)
            cov.append(good / n_truth)
            prec.append(good / k)
        ax.plot(cov, prec, label=field)
    ax.set_xlabel("coverage (right values / documents with an answer)")
    ax.set_ylabel("precision of emitted values")
    ax.set_ylim(0.5, 1.01)
    ax.axhline(TARGET_PRECISION, color="grey", lw=0.5, ls="--")
    ax.legend(loc="lower left")
    ax.set_title("colophon ranker, held-out folds")
    fig.tight_layout()
    fig.savefig(path)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--set", action="append", required=True)
    ap.add_argument("--corpus", default=os.path.join(HERE, "..", "..", "shared", "corpus"))
    ap.add_argument("--weights")
    ap.add_argument("--report")
    ap.add_argument("--plot")
    args = ap.parse_args()
    score = load_scorer(args.corpus)
    docs = []
    for s in args.set:
        name, run_dir, truth, grouping = s.split(":")
        docs += load_set(name, run_dir, truth, grouping, score)
    print(f"{len(docs)} documents, {len({d['group'] for d in docs})} groups", file=sys.stderr)

    preds = {f: held_out(docs, f, score) if f in TRAINED else rule_preds(docs, f, score)
             for f in FIELDS}
    threshold = choose_threshold(docs, preds)
    report = [f"Held-out (grouped {FOLDS}-fold) at MIN_CONFIDENCE = {threshold:.2f}; "
              f"{len(docs)} PDFs in {len({d['group'] for d in docs})} groups.\n"]
    slices = [("all", lambda d: True)]
    for name in sorted({d["set"] for d in docs}):
        for cond in sorted({d["condition"] for d in docs if d["set"] == name}):
            slices.append((f"{name} / {cond}", lambda d, n=name, c=cond: d["set"] == n and d["condition"] == c))
    for name in sorted({d["kind"] for d in docs}):
        slices.append((f"kind {name}", lambda d, k=name: d["kind"] == k))
    for title, sel in slices:
        n = sum(1 for d in docs if sel(d))
        if n < 5:
            continue
        report.append(f"### {title} ({n} PDFs)\n")
        report.append(fmt_rows(table(docs, preds, threshold, sel, score)) + "\n")
    text = "\n".join(report)
    print(text)

    weights, summary = {}, []
    for field in TRAINED:
        X, y, _, usable = examples(docs, field, score)
        X, y = X[usable], y[usable]
        if len(y) < 20 or y.sum() < 5 or y.sum() == len(y):
            summary.append(f"{field}: not trained ({len(y)} clusters, {int(y.sum())} right)")
            continue
        fitted = fit(X, y)
        model = export(fitted)
        # The exported trees must give what the trainer's model gives.
        drift = np.abs(exported_log_odds(model, X)
                       - fitted.decision_function(X.astype(np.float32))).max()
        assert drift < 1e-4, f"{field}: exported model differs by {drift}"
        weights[field] = (model, fit_calibration(*CALIBRATION_INPUT[field]))
        summary.append(f"{field}: {len(y)} clusters, {int(y.sum())} right")
    summary.append(f"MIN_CONFIDENCE {threshold:.2f}: held-out precision of emitted title, "
                   f"authors and year >= {TARGET_PRECISION}")
    if args.weights:
        write_weights(args.weights, weights, threshold, summary)
    if args.report:
        open(args.report, "w").write(text)
    if args.plot:
        plot(args.plot, docs, preds)


NAMES = feature_names()

if __name__ == "__main__":
    main()
