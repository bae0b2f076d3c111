#!/usr/bin/env bash
# Trains the ranker's weights (src/decide/ranker/weights.rs) and writes the
# held-out figures (docs/accuracy-ranker.md, docs/precision-coverage.png).
#
# Runs colophon over every labelled corpus that is there, with -vv so that
# every document's diagnostics/<stem>/candidates.json is written, then
# scripts/train_ranker.py labels the candidates with the corpus scorer's
# rules and fits one logistic regression per field under grouped 5-fold
# cross-validation (a Debian package, or every variant of one book, stays
# in one fold).
#
#   ../shared/corpus            gold (46 PDFs; groups: the book/paper)
#   $WILD_DIR (../wild-pdfs)    silver, from ../shared/wild/fetch.sh (groups: package)
#   $GEN_DIR  (../gen-books)    generated books, from scripts/gen-books.sh (groups: book)
#   $PAPERS_DIR (../gen-papers) generated papers, reports and slides, from
#                               scripts/gen-papers.sh (groups: paper)
#
# Usage: scripts/train-ranker.sh [--eval-only] [--reuse]
#   --eval-only  measure and report, leave src/decide/ranker/weights.rs alone
#   --reuse      train on the runs already in $TRAIN_WORK (after a change
#                to the trainer only; rerun colophon after finder changes)
# GEN_CONDITIONS: which generated variants to run (default "asis"; the
# scanned ones cost an OCR pass per page).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
shared=$(cd ../shared && pwd)
WILD_DIR=${WILD_DIR:-$(cd .. && pwd)/wild-pdfs}
GEN_DIR=${GEN_DIR:-$(cd .. && pwd)/gen-books}
PAPERS_DIR=${PAPERS_DIR:-$(cd .. && pwd)/gen-papers}
work=${TRAIN_WORK:-$root/target/train}
python3 -c 'import numpy, matplotlib, sklearn' 2>/dev/null ||
  python3 -m pip install -q -r scripts/train-requirements.txt

eval_only=0 reuse=0
for a in "$@"; do
  case $a in
    --eval-only) eval_only=1 ;;
    --reuse) reuse=1 ;;
    *) echo "train-ranker: unknown option $a" >&2; exit 2 ;;
  esac
done
# After the options, which it reads: --reuse skips the build.
# COLOPHON_BIN: an already built binary (skips the build).
bin=${COLOPHON_BIN:-$root/target/release/colophon}
[ -n "${COLOPHON_BIN:-}" ] || ((reuse)) || cargo build --release --quiet

run_set() { # name pdf-dir
  local dir=$work/$1
  if ((reuse)) && [ -e "$dir/cache/runs/latest/records.jsonl" ]; then
    echo "$dir/cache/runs/latest"
    return
  fi
  mkdir -p "$dir"
  ln -sfn "$2" "$dir/data"
  # Every value, however unsure: the trainer sees all clusters anyway.
  { echo "MIN_CONFIDENCE = 0.0"; cat "$root/scripts/corpus.toml"; } > "$dir/colophon.toml"
  (cd "$dir" && "$bin" run --json -vv > out.jsonl 2> stderr.log) || true
  echo "$dir/cache/runs/latest"
}

sets=()
sets+=(--set "gold:$(run_set gold "$shared/corpus/pdfs"):$shared/corpus/truth.json:doc")
if [ -d "$WILD_DIR" ]; then
  sets+=(--set "wild:$(run_set wild "$WILD_DIR"):$shared/wild/truth.json:package")
fi
pick_generated() { # name gen-dir: links to the PDFs of the wanted conditions
  local pick=$work/$1-pdfs
  rm -rf "$pick" && mkdir -p "$pick"
  python3 - "$2" "$pick" "${GEN_CONDITIONS:-asis}" <<'PY'
import json, os, sys
gen, pick, conds = sys.argv[1], sys.argv[2], sys.argv[3].split()
for t in json.load(open(os.path.join(gen, "truth.json"))):
    if t.get("condition", "asis") in conds:
        name = os.path.basename(t["file"])
        os.symlink(os.path.join(gen, "pdfs", name), os.path.join(pick, name))
PY
  echo "$pick"
}
if [ -f "$GEN_DIR/truth.json" ]; then
  sets+=(--set "generated:$(run_set generated "$(pick_generated generated "$GEN_DIR")"):$GEN_DIR/truth.json:doc")
fi
if [ -f "$PAPERS_DIR/truth.json" ]; then
  # Every variant of one invented paper has the same "doc": one fold.
  sets+=(--set "papers:$(run_set papers "$(pick_generated papers "$PAPERS_DIR")"):$PAPERS_DIR/truth.json:doc")
fi
out=(--report docs/accuracy-ranker.md --plot docs/precision-coverage.png)
((eval_only)) || out+=(--weights src/decide/ranker/weights.rs)
python3 scripts/train_ranker.py --corpus "$shared/corpus" "${sets[@]}" "${out[@]}"
