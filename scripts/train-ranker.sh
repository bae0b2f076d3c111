#!/usr/bin/env bash
# Trains the ranker's weights (src/decide/ranker/weights.rs) and writes the
# held-out figures (docs/accuracy-ranker.md, docs/precision-coverage.png).
#
# Every labelled document is read in three conditions: as-is, stripped of
# its Info dictionary and XMP, and with junk Info/XMP (scripts/train_ranker.py
# variants makes the copies of the sets that lack them; the real corpus
# comes with its own). colophon runs over each set with -vv, so that every
# document's diagnostics/<stem>/candidates.json is written; then
# scripts/train_ranker.py labels the candidates with the corpus scorer's
# rules, validates leaving one source out at a time, chooses MIN_CONFIDENCE
# on the worst source and fits the weights on every source.
#
#   ../shared/corpus      gold (46 PDFs): one source, never trained on
#   $WILD_DIR             ../shared/wild fetched by its fetch.sh (default
#                         ../wild-pdfs): a source per Debian package family
#   $REAL_DIR             the real corpus of scripts/corpus/build.sh (default
#                         ../real-corpus, with truth.json): a source per
#                         family; it holds ../shared/realdocs and ../shared/pdfjs
#   ../shared/realdocs, ../shared/pdfjs (labelled files): one source each,
#                         read from the shared folder when there is no real corpus
#   $GEN_DIR, $PAPERS_DIR books and papers of scripts/gen-books.sh and
#                         scripts/gen-papers.sh (default ../gen-books,
#                         ../gen-papers): one source per generator
#
# Usage: scripts/train-ranker.sh [--eval-only] [--reuse]
#   --eval-only  measure and report, leave src/decide/ranker/weights.rs alone
#   --reuse      train on the runs already in $TRAIN_WORK (after a change
#                to the trainer only; rerun colophon after finder changes)
# MAX_PER_SOURCE: documents taken from one source (default 150; 0 = all),
# chosen by a hash of their id: colophon reads every one three times.
# JOBS: colophon's --jobs (default 2).
# RANKER_THRESHOLD: see below.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
shared=$(cd ../shared && pwd)
WILD_DIR=${WILD_DIR:-$(cd .. && pwd)/wild-pdfs}
REAL_DIR=${REAL_DIR:-$(cd .. && pwd)/real-corpus}
work=${TRAIN_WORK:-$root/target/train}
max_per_source=${MAX_PER_SOURCE:-150}
jobs=${JOBS:-2}
# One thread: the trees' histograms are then summed in one order (the same
# weights on every machine), and the trainer leaves the other core alone.
export OMP_NUM_THREADS=1

eval_only=0 reuse=0
for a in "$@"; do
  case $a in
    --eval-only) eval_only=1 ;;
    --reuse) reuse=1 ;;
    *) echo "train-ranker: unknown option $a" >&2; exit 2 ;;
  esac
done

python3 -c 'import numpy, matplotlib, sklearn, pikepdf' 2>/dev/null ||
  python3 -m pip install -q -r scripts/train-requirements.txt
# COLOPHON_BIN: an already built binary (skips the build).
bin=${COLOPHON_BIN:-${CARGO_TARGET_DIR:-$root/target}/release/colophon}
[ -n "${COLOPHON_BIN:-}" ] || ((reuse)) || cargo build --release --quiet

run_set() { # name pdf-dir: runs colophon once, prints the run folder
  local dir=$work/runs/$1
  if ((reuse)) && [ -e "$dir/cache/runs/latest/records.jsonl" ]; then
    echo "$dir/cache/runs/latest"
    return
  fi
  mkdir -p "$dir"
  ln -sfn "$2" "$dir/data"
  # Every value, however unsure: the trainer sees all clusters anyway.
  { echo "MIN_CONFIDENCE = 0.0"; cat "$root/scripts/corpus.toml"; } > "$dir/colophon.toml"
  (cd "$dir" && "$bin" run --json -vv --jobs "$jobs" > out.jsonl 2> stderr.log) || true
  echo "$dir/cache/runs/latest"
}

pick() { # name truth pdf-dir sources [conditions]: the PDFs of one set in its three conditions
  local out=$work/pdfs/$1
  if ! ((reuse)) || [ ! -d "$out" ]; then
    python3 scripts/train_ranker.py variants --truth "$2" --pdfs "$3" --out "$out" \
      --sources "$4" --max-per-source "$max_per_source" --conditions "${5:-asis stripped junkinfo}" >&2
  fi
  echo "$out"
}

sets=()
# Gold: its own as-is, stripped and scanned copies, and junk-Info copies.
sets+=(--set "gold:$(run_set gold "$shared/corpus/pdfs"):$shared/corpus/truth.json:one")
sets+=(--set "gold:$(run_set gold-junk "$(pick gold-junk "$shared/corpus/truth.json" "$shared/corpus/pdfs" one junkinfo)"):$shared/corpus/truth.json:one")
for g in books:GEN_DIR papers:PAPERS_DIR; do
  # Generated books and papers (scripts/gen-books.sh, scripts/gen-papers.sh):
  # one source per generator, their born-digital copies in three conditions.
  name=${g%%:*} var=${g#*:}
  dir=${!var:-$(cd .. && pwd)/gen-$name}
  if [ -f "$dir/truth.json" ]; then
    sets+=(--set "generated-$name:$(run_set "gen-$name" "$(pick "gen-$name" "$dir/truth.json" "$dir/pdfs" one)"):$dir/truth.json:one")
  fi
done
if [ -d "$WILD_DIR" ]; then
  sets+=(--set "wild:$(run_set wild "$(pick wild "$shared/wild/truth.json" "$WILD_DIR" package)"):$shared/wild/truth.json:package")
fi
if [ -f "$REAL_DIR/truth.json" ]; then
  # The real corpus's PDFs sit in pdfs/ and ext/<set>/: one folder of links.
  sets+=(--set "real:$(run_set real "$(pick real "$REAL_DIR/truth.json" "$REAL_DIR" family)"):$REAL_DIR/truth.json:family")
else
  for s in realdocs pdfjs; do
    sets+=(--set "shared/$s:$(run_set "$s" "$(pick "$s" "$shared/$s/labels.json" "$shared/$s/pdfs" one)"):$shared/$s/labels.json:one")
  done
fi
out=(--report docs/accuracy-ranker.md --plot docs/precision-coverage.png --dump "$work/heldout.pkl")
((eval_only)) || out+=(--weights src/decide/ranker/weights.rs)
# RANKER_THRESHOLD: a MIN_CONFIDENCE to write instead of the rule's choice
# (the report states both).
[ -z "${RANKER_THRESHOLD:-}" ] || out+=(--threshold "$RANKER_THRESHOLD")
python3 scripts/train_ranker.py --corpus "$shared/corpus" "${sets[@]}" "${out[@]}"
