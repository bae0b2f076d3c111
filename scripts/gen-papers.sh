#!/usr/bin/env bash
# Generates N invented scholarly papers (with a share of technical reports
# and slide decks) into OUT, runs colophon over them and scores the records
# with ../shared/corpus/score.py against OUT/truth.json (per kind, too).
#
# Usage: scripts/gen-papers.sh [N] [OUT] [SEED]     (defaults: 300, ../gen-papers, 1)
# SCANNED=1 also writes a scanned variant of each (OCR makes the run slow).
#
# Needs poppler-utils; pdflatex (texlive-latex-base, -latex-recommended,
# -fonts-recommended: article class, beamer, eso-pic) for the LaTeX
# producer, else lopdf writes everything (see scripts/gen-books.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-300}
out=${2:-../gen-papers}
seed=${3:-1}
target=${CARGO_TARGET_DIR:-target}

cargo build --release --quiet --example gen_books
[ -x "$target/release/colophon" ] || cargo build --release --quiet
mkdir -p "$out"
out=$(cd "$out" && pwd)
scan=()
[ -n "${SCANNED:-}" ] && scan=(--scanned)
"$target/release/examples/gen_books" --kind papers --seed "$seed" --count "$n" --out "$out" "${scan[@]}"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
ln -s "$out/pdfs" "$work/data"
cp scripts/corpus.toml "$work/colophon.toml"
bin=$(cd "$target/release" && pwd)/colophon
(cd "$work" && "$bin" run --json -q > "$out/colophon.jsonl") || true
scorer=../shared/corpus/score.py
if [ -f "$scorer" ]; then
  python3 "$scorer" "$out/colophon.jsonl" --truth "$out/truth.json" --by-kind | tee "$out/score.txt"
else
  echo "note: $scorer not found: records are in $out/colophon.jsonl, unscored" >&2
fi
