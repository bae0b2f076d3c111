#!/usr/bin/env bash
# Measures what OCR costs (issue 36): runs colophon cold (fresh cache) over
# the given PDFs with scripts/corpus.toml, and prints
#   - the CPU-s (user+sys) of colophon and its children (pdfium workers),
#   - the CPU-s of the OCR server processes (libtesseract: Tesseract's own
#     time, model loading included), each timed by /usr/bin/time through
#     a wrapper given as WORKER_EXECUTABLE,
#   - the pages OCRed (the run's summary: one per reading, so a page read
#     first without its body and then whole counts twice),
#   - Tesseract CPU-s per OCRed page,
# and, with --truth, the field scores (score.py --by-kind).
# CPU time, not wall time: the machine is shared.
#
# Usage: scripts/ocr-cost.sh [--truth truth.json] [--keep DIR] [--languages eng+fra] PDF...
#   e.g. scripts/ocr-cost.sh --truth ../shared/corpus/truth.json ../shared/corpus/pdfs/*-scanned.pdf
# COLOPHON names the binary (else target/release, else target/debug).
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
truth=""
keep=""
languages=""
while [ $# -gt 0 ]; do
  case "$1" in
    --truth) truth=$(cd "$(dirname "$2")" && pwd)/$(basename "$2"); shift 2 ;;
    --keep) keep=$2; shift 2 ;;
    --languages) languages=$2; shift 2 ;;
    *) break ;;
  esac
done
[ $# -gt 0 ] || { echo "usage: $0 [--truth truth.json] [--keep DIR] [--languages eng+fra] PDF..." >&2; exit 2; }
. "$repo/scripts/colophon-bin.sh" ocr-cost.sh
colophon=$(cd "$(dirname "$colophon")" && pwd)/$(basename "$colophon")

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/data/pdfs"
for f in "$@"; do ln -s "$(cd "$(dirname "$f")" && pwd)/$(basename "$f")" "$work/data/pdfs/"; done
{
  if [ -n "$languages" ]; then echo "OCR_LANGUAGES = \"$languages\""; fi
  cat "$repo/scripts/corpus.toml"
} > "$work/colophon.toml"
# The wrapper runs OCR servers under /usr/bin/time in a child, so that the
# time is written when the server ends (on stdin's end once colophon
# stopped the wrapper), and anything else as colophon itself.
cat > "$work/worker.sh" <<EOF
#!/usr/bin/env bash
if [ "\${1:-}" = ocr-server ]; then
  /usr/bin/time -a -o "$work/servers.log" -f "%U %S" "$colophon" "\$@"
  exit \$?
fi
exec "$colophon" "\$@"
EOF
chmod +x "$work/worker.sh"
: > "$work/servers.log"
(cd "$work" && OMP_THREAD_LIMIT=1 WORKER_EXECUTABLE="$work/worker.sh" \
  /usr/bin/time -o "$work/time.txt" -f "%U %S" "$colophon" run --json > "$work/out.jsonl" 2> "$work/err.txt") || true
# Servers end shortly after colophon: wait for their lines.
for _ in $(seq 50); do
  if ! pgrep -f "$work/servers.log" > /dev/null; then break; fi
  sleep 0.2
done
read -r u s < "$work/time.txt"
ocred=$(grep -o '[0-9]* OCRed' "$work/err.txt" | tail -1 | cut -d' ' -f1)
servers=$(wc -l < "$work/servers.log")
python3 - "$u" "$s" "$work/servers.log" "${ocred:-0}" "$servers" <<'EOF'
import sys
u, s, log, pages, servers = float(sys.argv[1]), float(sys.argv[2]), sys.argv[3], int(sys.argv[4]), int(sys.argv[5])
tess = sum(float(a) + float(b) for a, b in (l.split() for l in open(log) if l.strip()))
print(f"colophon+workers CPU-s {u + s:.2f}; OCR servers {servers}, CPU-s {tess:.2f}; "
      f"total {u + s + tess:.2f}")
if pages:
    print(f"pages OCRed {pages}; Tesseract CPU-s per OCRed page {tess / pages:.3f}; "
          f"all CPU-s per OCRed page {(u + s + tess) / pages:.3f}")
EOF
tail -1 "$work/err.txt"
if [ -n "$truth" ]; then
  # Only the truth of the PDFs given: the others would count as missing.
  python3 - "$truth" "$work/truth.json" "$work/data/pdfs" <<'PY'
import json, os, sys
names = set(os.listdir(sys.argv[3]))
truth = [t for t in json.load(open(sys.argv[1])) if os.path.basename(t["file"]) in names]
json.dump(truth, open(sys.argv[2], "w"))
PY
  python3 "$repo/../shared/corpus/score.py" "$work/out.jsonl" --truth "$work/truth.json" --by-kind
fi
if [ -n "$keep" ]; then mkdir -p "$keep" && cp "$work/out.jsonl" "$work/err.txt" "$keep/"; fi
