#!/usr/bin/env bash
# Generates N invented books (issue 13) with born-digital and scanned
# variants into OUT, runs colophon over them and scores the records with
# ../shared/corpus/score.py against OUT/truth.json.
#
# Usage: scripts/gen-books.sh [N] [OUT] [SEED]     (defaults: 500, ../gen-books, 1)
#
# Installs the LaTeX producer's Debian packages when pdflatex is missing
# (apt-get, quiet; skipped without root or apt-get, and the generator then
# writes every book with lopdf). Needs poppler-utils (pdftotext, pdftoppm).
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-500}
out=${2:-../gen-books}
seed=${3:-1}

if ! command -v pdflatex >/dev/null; then
  if command -v apt-get >/dev/null && [ "$(id -u)" = 0 ]; then
    echo "installing LaTeX (texlive-latex-base, -latex-recommended, -fonts-recommended)..." >&2
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
      texlive-latex-base texlive-latex-recommended texlive-fonts-recommended >/dev/null
  else
    echo "note: pdflatex missing and cannot be installed here: lopdf only" >&2
  fi
fi

cargo build --release --quiet --example gen_books
[ -x target/release/colophon ] || cargo build --release --quiet
mkdir -p "$out"
out=$(cd "$out" && pwd)
target/release/examples/gen_books --seed "$seed" --count "$n" --out "$out" --scanned

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
ln -s "$out/pdfs" "$work/data"
cp scripts/corpus.toml "$work/colophon.toml"
bin=$PWD/target/release/colophon
(cd "$work" && "$bin" run --json -q > "$out/colophon.jsonl") || true
scorer=../shared/corpus/score.py
if [ -f "$scorer" ]; then
  python3 "$scorer" "$out/colophon.jsonl" --truth "$out/truth.json" | tee "$out/score.txt"
else
  echo "note: $scorer not found: records are in $out/colophon.jsonl, unscored" >&2
fi
