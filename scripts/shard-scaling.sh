#!/usr/bin/env bash
# The figures of docs/scale.md (issue 16), on this machine, cold caches:
#
#   1. one shard: `colophon run --jobs 1` over the library;
#   2. two shards at once: `colophon run --shard 0/2 --jobs 1` and
#      `--shard 1/2 --jobs 1` as two concurrent processes, then `merge`
#      (its time separately), and a check that the merged records are
#      those of run 1;
#   3. for reference, one process with both cores: `colophon run --jobs 2`;
#   4. the cost model's rates: seconds per page read (the PDFs run 1 read
#      without OCR, again on their own) and seconds per OCRed page (the
#      rest of run 1's time, over its OCRed pages).
#
# Usage: scripts/shard-scaling.sh [LIBRARY] (default ../shared/corpus/pdfs).
# COLOPHON names the binary (default: target/release/colophon, else
# target/debug/colophon under CARGO_TARGET_DIR or the repository). Every run
# is a dry run in its own project under a temporary folder whose data/ is a
# symlink to the library; nothing is written under the library.
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
library="$(cd "${1:-$repo/../shared/corpus/pdfs}" && pwd)"
# shellcheck source=scripts/colophon-bin.sh
source "$repo/scripts/colophon-bin.sh" shard-scaling.sh
export WORKER_EXECUTABLE="$colophon"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# A fresh project over `$2` (a folder of PDFs) at `$1`.
project() {
  mkdir -p "$1"
  printf 'WRITE_PDF_CHANGES = false\n' >"$1/colophon.toml"
  ln -s "$2" "$1/data"
}

now() { date +%s.%N; }
elapsed() { python3 -c "print(f'{$2 - $1:.2f}')"; }
# CPU-seconds (user + system, the worker processes and Tesseract included)
# and the largest resident set of any one of those processes, of a
# command, appended to the file `$1`: CPU time is a figure the other work
# on a shared machine disturbs far less than the wall time.
cpu() {
  local out=$1
  shift
  /usr/bin/time -f '%U %S %M' -a -o "$out" "$@"
}
cpu_sum() {
  python3 -c "import sys; l=[x.split() for x in open(sys.argv[1]) if x.strip()]; print(f'{sum(float(a)+float(b) for a,b,_ in l):.1f}')" "$1"
}
rss_max() {
  python3 -c "import sys; print(max(int(x.split()[2]) for x in open(sys.argv[1]) if x.strip()) // 1024)" "$1"
}
field() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(d['summary'][sys.argv[2]] if sys.argv[2] != 'seconds' else d['seconds'])" "$1" "$2"; }

echo "library: $library ($(find -L "$library" -name '*.pdf' | wc -l) PDFs); binary: $colophon"
echo "machine: $(nproc) CPUs; load average before: $(cut -d' ' -f1-3 /proc/loadavg)"

project "$work/one" "$library"
t0=$(now)
(cd "$work/one" && cpu "$work/one.cpu" "$colophon" run --jobs 1 -v >/dev/null 2>"$work/one.log" || [ $? -le 1 ])
t1=$(now)
one=$(elapsed "$t0" "$t1")
end="$work/one/cache/runs/latest/summary.json"
echo "1 shard, --jobs 1:            $one s, $(cpu_sum "$work/one.cpu") CPU-s, largest process $(rss_max "$work/one.cpu") MB ($(field "$end" files) files, $(field "$end" pages_read) pages read, $(field "$end" ocr_pages) OCRed)"

project "$work/two" "$library"
t0=$(now)
(cd "$work/two" && cpu "$work/two.cpu" "$colophon" run --shard 0/2 --jobs 1 -q >/dev/null 2>&1 || [ $? -le 1 ]) &
a=$!
(cd "$work/two" && cpu "$work/two.cpu" "$colophon" run --shard 1/2 --jobs 1 -q >/dev/null 2>&1 || [ $? -le 1 ]) &
b=$!
wait "$a" "$b"
t1=$(now)
two=$(elapsed "$t0" "$t1")
(cd "$work/two" && "$colophon" merge 2 >/dev/null 2>&1 || [ $? -le 1 ])
t2=$(now)
echo "2 shards at once, --jobs 1:   $two s, $(cpu_sum "$work/two.cpu") CPU-s (then merge: $(elapsed "$t1" "$t2") s)"
python3 - "$work/one/cache/runs/latest/records.jsonl" "$work/two/cache/runs/latest/records.jsonl" <<'EOF'
import json, sys
def load(p):
    return sorted(json.dumps(json.loads(l), sort_keys=True) for l in open(p) if l.strip())
one, two = load(sys.argv[1]), load(sys.argv[2])
print(f"merged records identical to the single run: {one == two} ({len(two)} records)")
by_path = lambda rs: {json.loads(r)["path"]: json.loads(r) for r in rs}
a, b = by_path(one), by_path(two)
for path in sorted(set(a) | set(b)):
    if a.get(path) != b.get(path):
        keys = sorted(k for k in set(a.get(path, {})) | set(b.get(path, {}))
                      if a.get(path, {}).get(k) != b.get(path, {}).get(k))
        print(f"  differs: {path}: {', '.join(keys)}")
EOF
echo "ratio 1 shard / 2 shards:     $(python3 -c "print(f'{$one / $two:.2f}')")"

project "$work/jobs2" "$library"
t0=$(now)
(cd "$work/jobs2" && cpu "$work/jobs2.cpu" "$colophon" run --jobs 2 -q >/dev/null 2>&1 || [ $? -le 1 ])
t1=$(now)
echo "1 shard, --jobs 2:            $(elapsed "$t0" "$t1") s, $(cpu_sum "$work/jobs2.cpu") CPU-s"

# The PDFs run 1 read without OCR, on their own: seconds per page read.
mkdir -p "$work/text-pdfs"
grep -E '^[^:]+: hashed; record computed: [0-9]+ pages read, [0-9]+ from the cache; 0 OCRed' "$work/one.log" \
  | sed -E 's/: hashed; record computed.*//' \
  | while IFS= read -r rel; do
      mkdir -p "$work/text-pdfs/$(dirname "$rel")"
      ln -s "$library/$rel" "$work/text-pdfs/$rel"
    done
project "$work/text" "$work/text-pdfs"
t0=$(now)
(cd "$work/text" && cpu "$work/text.cpu" "$colophon" run --jobs 1 -q >/dev/null 2>&1 || [ $? -le 1 ])
t1=$(now)
text=$(elapsed "$t0" "$t1")
echo "(CPU-s: text PDFs alone $(cpu_sum "$work/text.cpu"))"
tend="$work/text/cache/runs/latest/summary.json"
python3 - "$text" "$(field "$tend" files)" "$(field "$tend" pages_read)" "$one" "$(field "$end" pages_read)" "$(field "$end" ocr_pages)" "$(cpu_sum "$work/text.cpu")" "$(cpu_sum "$work/one.cpu")" <<'EOF'
import sys
t_text, files, pages, t_one, read_one, ocr_one, c_text, c_one = map(float, sys.argv[1:])
for what, text, one in (("wall", t_text, t_one), ("CPU", c_text, c_one)):
    per_page = text / pages
    ocr = (one - read_one * per_page) / ocr_one if ocr_one else float("nan")
    print(f"{what}: text PDFs alone, --jobs 1: {text:.2f} s ({files:.0f} files, {pages:.0f} pages): "
          f"{per_page:.4f} s per page read ({1 / per_page:.0f} pages/s per core); "
          f"OCR: {ocr:.2f} s per OCRed page (run 1 beyond its page reads)")
EOF
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
