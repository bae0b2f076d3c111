#!/usr/bin/env bash
# Runs colophon over ../shared/corpus/pdfs (back matter in `fallback` mode
# with every back.fields entry true), scores the records with the corpus'
# own scorer, and fails when the overall score drops below the floor in
# scripts/corpus-floor.txt. Usage: scripts/corpus-score.sh [colophon binary]
set -euo pipefail
cd "$(dirname "$0")/.."
corpus=$(cd ../shared/corpus && pwd)
bin=${1:-${CARGO_TARGET_DIR:-target}/debug/colophon}
[ -x "$bin" ] || cargo build --quiet
bin=$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
ln -s "$corpus/pdfs" "$work/data"
cp scripts/corpus.toml "$work/colophon.toml"
(cd "$work" && "$bin" run --json -q > "$work/out.jsonl") || true
python3 "$corpus/score.py" "$work/out.jsonl" --by-kind | tee "$work/score.txt"
score=$(awk '/^overall:/ {print $2}' "$work/score.txt")
floor=$(cat scripts/corpus-floor.txt)
if python3 -c "import sys; sys.exit(0 if float('$score') >= float('$floor') else 1)"; then
  echo "corpus score $score >= floor $floor"
else
  echo "corpus score $score is below the floor $floor (scripts/corpus-floor.txt)" >&2
  exit 1
fi
