#!/usr/bin/env bash
# Runs colophon over pdf.js's corpus of problem PDFs (../shared/pdfjs/pdfs,
# see its README) and fails on a crash (colophon's own, or a worker's: a
# worker that reaches WORKER_MEMORY_LIMIT_MB dies and its document says
# "worker crashed"), a hang (colophon over RUN_LIMIT, or a document over
# PDF_TIMEOUT), a missing record, or a worker whose address space reached
# its limit. Reports the records, the errors by kind, the peak memory of
# each worker, and the files whose text the quick reader reads otherwise
# than pdfium (examples/quick_compare.rs, first 3 pages).
# Usage: scripts/pdfjs-check.sh [--release]
set -euo pipefail
cd "$(dirname "$0")/.."
corpus=$(cd ../shared/pdfjs/pdfs && pwd)
profile=dev dir=debug
if [ "${1:-}" = --release ]; then profile=release dir=release; fi
cargo build --quiet --profile "$profile" --bin colophon --example quick_compare
target=$(cd "${CARGO_TARGET_DIR:-target}" && pwd)
bin=$target/$dir/colophon
compare=$target/$dir/examples/quick_compare
limit_mb=2048       # WORKER_MEMORY_LIMIT_MB's default, written to the config
run_limit=5400      # seconds for the whole run: more is a hang
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
ln -s "$corpus" "$work/data"
printf 'WORKER_MEMORY_LIMIT_MB = %s\n' "$limit_mb" > "$work/colophon.toml"
files=$(find -L "$work/data" -name '*.pdf' | wc -l)
fail=()

# The run, its workers' memory sampled twice a second (VmPeak is the
# kernel's high-water mark, so a sample after a peak still sees it).
start=$(date +%s)
(cd "$work" && exec timeout -s KILL "$run_limit" "$bin" run --json -q --jobs 2 \
  > "$work/records.jsonl" 2> "$work/stderr.txt") &
run=$!
declare -A peak hwm
while kill -0 "$run" 2>/dev/null; do
  for w in $(pgrep -f "^$bin worker" 2>/dev/null); do
    read -r p h < <(awk '/^VmPeak/ {p=$2} /^VmHWM/ {h=$2} END {print p+0, h+0}' \
      "/proc/$w/status" 2>/dev/null || echo "0 0")
    [ "$p" -gt "${peak[$w]:-0}" ] && peak[$w]=$p
    [ "$h" -gt "${hwm[$w]:-0}" ] && hwm[$w]=$h
  done
  sleep 0.5
done
status=0
wait "$run" || status=$?
elapsed=$(( $(date +%s) - start ))
if [ "$status" -eq 137 ]; then
  fail+=("hang: colophon ran over $run_limit s and was killed")
elif [ "$status" -gt 128 ]; then
  fail+=("crash: colophon died of signal $((status - 128))")
elif [ "$status" -ne 0 ] && [ "$status" -ne 1 ]; then
  # 1 says some PDFs failed, which the records tell; more is colophon's own.
  fail+=("crash: colophon exited with $status: $(tail -3 "$work/stderr.txt")")
fi

echo "== pdf.js corpus: $files PDFs, colophon exit $status in $elapsed s"
python3 - "$work/records.jsonl" "$files" > "$work/report.txt" <<'PY' || fail+=("records: see above")
import json, re, sys
from collections import Counter
path, files = sys.argv[1], int(sys.argv[2])
records = []
for line in open(path, encoding="utf-8", errors="replace"):
    line = line.strip()
    if line.startswith("{"):
        try:
            records.append(json.loads(line))
        except ValueError:
            pass
status = Counter(r.get("status") for r in records)
print(f"records: {len(records)} of {files} ({', '.join(f'{k} {v}' for k, v in sorted(status.items()))})")
KINDS = [
    ("password-protected", r"password-protected"),
    ("worker crashed", r"worker crashed"),
    ("timed out", r"timed out after"),
    ("too large", r"too large to read|too large to render"),
    ("no pages", r"has no pages"),
    ("unreadable", r"unreadable PDF|not a PDF|damaged"),
]
kinds = Counter()
for r in records:
    e = r.get("error")
    if not e:
        continue
    kind = next((k for k, rx in KINDS if re.search(rx, e)), "other: " + e[:60])
    kinds[kind] += 1
print("errors by kind:")
for k, n in kinds.most_common():
    print(f"  {n:4}  {k}")
for r in records:
    e = r.get("error") or ""
    if re.search(r"worker crashed|timed out after|password-protected|too large", e):
        print(f"    {r['path']}: {e}")
bad = len(records) < files or kinds["worker crashed"] or kinds["timed out"]
sys.exit(1 if bad else 0)
PY
cat "$work/report.txt"
grep -q "^records: $files of $files" "$work/report.txt" || fail+=("missing records")
grep -qE "^ +[0-9]+  worker crashed" "$work/report.txt" && fail+=("crash: a worker crashed (or reached its memory limit)")
grep -qE "^ +[0-9]+  timed out" "$work/report.txt" && fail+=("hang: a document ran past PDF_TIMEOUT")

echo "peak memory per worker (address space VmPeak / resident VmHWM, MiB; limit $limit_mb):"
over=0
for w in "${!peak[@]}"; do
  printf '  worker %-8s %6d / %6d\n' "$w" $((peak[$w] / 1024)) $((hwm[$w] / 1024))
  # Within 64 MiB of the limit: an allocation failed there.
  [ $((peak[$w] / 1024)) -ge $((limit_mb - 64)) ] && over=1
done
[ "$over" -eq 1 ] && fail+=("memory: a worker reached its limit of $limit_mb MiB")

# The quick reader against pdfium, a batch of files per process; a batch
# whose process dies (pdfium aborts on some files) is run file by file.
echo "quick reader vs pdfium (first 3 pages):"
: > "$work/compare.txt"
find -L "$work/data" -name '*.pdf' | sort > "$work/list.txt"
split -l 40 "$work/list.txt" "$work/batch."
for b in "$work"/batch.*; do
  if ! (ulimit -v $((limit_mb * 1024)); PAGES=3 SHOW=1000000 timeout 600 \
      xargs -d '\n' "$compare" < "$b" >> "$work/compare.txt" 2>/dev/null); then
    while read -r f; do
      (ulimit -v $((limit_mb * 1024)); PAGES=3 SHOW=1000000 timeout 120 \
        "$compare" "$f" >> "$work/compare.txt" 2>/dev/null) || echo "  (compare died on $(basename "$f"))"
    done < "$b"
  fi
done
differ=$(grep '^== ' "$work/compare.txt" | sed -E 's/^== (.*) page [0-9]+$/\1/' | sort -u)
echo "  $(printf '%s\n' "$differ" | grep -c . || true) files differ:"
printf '%s\n' "$differ" | grep . | xargs -r -d '\n' -n1 basename | sed 's/^/    /'

if [ ${#fail[@]} -gt 0 ]; then
  printf 'FAILED: %s\n' "${fail[@]}" >&2
  exit 1
fi
echo "pdf.js check passed"
