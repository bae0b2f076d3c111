#!/usr/bin/env bash
# The speed figures of issue 7 ("speed at library scale"), side by side:
#
#   1. cold dry run over the corpus, --jobs 1 against --jobs 2;
#   2. cost per page of born-digital text: colophon cold against
#      `pdftotext -f 1 -l 8` over the same files, same parallelism;
#   3. a library of PERF_FILES (10,000) PDFs: cold (time, peak memory, and
#      peak memory at a tenth and half of the files), warm reruns (and at a quarter
#      and half of the files: time per file), 10 new PDFs added;
#   4. vision overlap: 40 pages, a fake backend answering in 1 s,
#      VLM_CONCURRENCY = 4 (ideal 10 s; 40 s if nothing overlapped);
#   5. a real library (issue 18), when PERF_LIBRARY names a folder of PDFs
#      (e.g. the 1,276 files of ../shared/wild/fetch.sh): cold and warm runs
#      at --jobs 2 (wall and CPU time, pages read per PDF, pages per
#      second, peak memory of the coordinator, of the largest pdfium
#      worker and of the largest Tesseract), against `pdftotext -f 1 -l 8`
#      over the same files two at a time,
#      interleaved round by round (and against PERF_BASELINE, an older
#      colophon binary, when given).
#
# Libraries are copies of the corpus PDFs that have a text layer, each under
# its own name with a comment line `%colophon-bench-<tag>-<n>` appended, so
# every copy has its own hash. Everything is built under PERF_DIR (default:
# a new folder in /tmp, removed at the end unless PERF_KEEP=1); nothing is
# written under the corpus (runs are forced dry: WRITE_PDF_CHANGES=false).
# The machine should be otherwise idle: each figure is the best of
# PERF_REPEAT runs (default 3; 1 for the long cold runs).
#
# Environment: PERF_SECTIONS ("1 2 3 4", and 5 when PERF_LIBRARY is set:
# which figures), PERF_LIBRARY (a folder of real PDFs, read in place, never
# written), PERF_CONFIG (a colophon.toml for section 5, e.g.
# scripts/corpus.toml; default: the default settings), PERF_BASELINE (an
# older colophon binary timed in the same rounds of section 5), PERF_FILES (10000), PERF_DIR, PERF_KEEP, PERF_REPEAT (3),
# PERF_MAX_KB (1024: larger corpus files are left out of the 10,000-file
# library to keep it near 2 GB), PERF_FLOOR_FILES (300), COLOPHON_CORPUS
# (default ../shared/corpus/pdfs), COLOPHON (the colophon binary to time;
# default: a release build of this tree, built first).
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
corpus="${COLOPHON_CORPUS:-$repo/../shared/corpus/pdfs}"
library="${PERF_LIBRARY:-}"
if [ -n "$library" ]; then
  library="$(cd "$library" && pwd)"
  sections="${PERF_SECTIONS:-1 2 3 4 5}"
else
  sections="${PERF_SECTIONS:-1 2 3 4}"
fi
wants() { [[ " $sections " == *" $1 "* ]]; }
# Sections 1 to 4 start from the corpus; 5 needs only PERF_LIBRARY.
if wants 1 || wants 2 || wants 3 || wants 4; then
  corpus="$(cd "$corpus" && pwd)"
fi
files="${PERF_FILES:-10000}"
repeat="${PERF_REPEAT:-3}"
max_kb="${PERF_MAX_KB:-1024}"
floor_files="${PERF_FLOOR_FILES:-300}"

for tool in pdftotext pdfinfo qpdf python3; do
  command -v "$tool" >/dev/null || { echo "perf.sh: $tool is needed (poppler-utils, qpdf, python3)" >&2; exit 2; }
done
if [ ! -x /usr/bin/time ]; then
  echo "perf.sh: /usr/bin/time is needed for peak memory; installing the 'time' package" >&2
  apt-get install -y time >/dev/null
fi

cd "$repo"
target_dir="${CARGO_TARGET_DIR:-$repo/target}"
fake="$target_dir/release/examples/fake_ollama"
if [ -n "${COLOPHON:-}" ]; then
  # A given binary (an older build, say): built as it is, not here.
  bin="$(cd "$(dirname "$COLOPHON")" && pwd)/$(basename "$COLOPHON")"
  if wants 4; then
    echo "building the fake vision backend (release)..." >&2
    cargo build --release --quiet --example fake_ollama
  fi
else
  echo "building (release)..." >&2
  cargo build --release --quiet --bin colophon --example fake_ollama
  bin="$target_dir/release/colophon"
fi
export WORKER_EXECUTABLE="$bin"
# Dry runs only, and settings from defaults, whatever the caller's shell says.
export WRITE_PDF_CHANGES=false ANALYZE_WITH_VISION=false
unset VLM_ENDPOINT VLM_CONCURRENCY MATTER_CONFIG 2>/dev/null || true

work="${PERF_DIR:-$(mktemp -d /tmp/colophon-perf.XXXXXX)}"
mkdir -p "$work"
cleanup() {
  if [ -n "${fake_pid:-}" ]; then kill "$fake_pid" 2>/dev/null || true; fi
  if [ "${PERF_KEEP:-0}" != 1 ] && [ -z "${PERF_DIR:-}" ]; then rm -rf "$work"; fi
}
trap cleanup EXIT
echo "working in $work" >&2

# ---------------------------------------------------------------- helpers

# seconds ROOT ARGS...: wall seconds of `colophon run -q ARGS` in project ROOT.
seconds() {
  local root=$1; shift
  local t="$work/.time"
  (cd "$root" && /usr/bin/time -f "%e" -o "$t" "$bin" run -q "$@" >/dev/null 2>"$work/.stderr") || {
    echo "perf.sh: colophon failed in $root:" >&2; cat "$work/.stderr" >&2; exit 1; }
  cat "$t"
}

# set_aside ROOT: moves ROOT's cache out of the way (deleted at the end:
# deleting thousands of files just before a run slows the file creation
# of that run, which a user's first run does not suffer).
set_aside() {
  if [ -e "$1/cache" ]; then
    mkdir -p "$work/trash"
    mv "$1/cache" "$(mktemp -d "$work/trash/cache.XXXXXX")/"
  fi
}

# best_cold ROOT ARGS...: best of $repeat cold runs (cache set aside before each).
best_cold() {
  local root=$1; shift
  local best="" s
  for _ in $(seq "$repeat"); do
    set_aside "$root"
    s=$(seconds "$root" "$@")
    best=$(min "$best" "$s")
  done
  echo "$best"
}

# best_warm ROOT ARGS...: best of $repeat reruns.
best_warm() {
  local root=$1; shift
  local best="" s
  for _ in $(seq "$repeat"); do
    s=$(seconds "$root" "$@")
    best=$(min "$best" "$s")
  done
  echo "$best"
}

min() { if [ -z "$1" ]; then echo "$2"; else python3 -c "print(min($1, $2))"; fi; }
calc() { python3 -c "print($1)"; }

# summary ROOT KEY: a count from the last run's summary.md ("pages read by pdfium" ...).
summary() {
  sed -n "s/^| $2 | \([0-9]*\) |$/\1/p" "$1/cache/runs/latest/summary.md"
}

# peak_run ROOT ARGS...: runs colophon once; prints "seconds coordinator_kib tree_kib",
# tree_kib being the peak of the summed resident memory of colophon, its
# worker processes and Tesseract, sampled every 0.2 s.
peak_run() {
  local root=$1; shift
  local t="$work/.time" pid peak=0 sum p r
  (cd "$root" && exec /usr/bin/time -f "%e %M" -o "$t" "$bin" run -q "$@" >/dev/null 2>"$work/.stderr") &
  pid=$!
  while kill -0 "$pid" 2>/dev/null; do
    sum=0
    for p in $pid $(descendants "$pid"); do
      r=$(awk '/^VmRSS/ {print $2}' "/proc/$p/status" 2>/dev/null || true)
      sum=$((sum + ${r:-0}))
    done
    [ "$sum" -gt "$peak" ] && peak=$sum
    sleep 0.2
  done
  wait "$pid" || { echo "perf.sh: colophon failed in $root:" >&2; cat "$work/.stderr" >&2; exit 1; }
  echo "$(cat "$t") $peak"
}

descendants() {
  local c
  for c in $(pgrep -P "$1"); do
    echo "$c"
    descendants "$c"
  done
}

# copies OUT FIRST COUNT TAG SOURCE...: COUNT copies of the SOURCEs (round
# robin), numbered from FIRST, under OUT/dNNN/ (1000 a folder).
copies() {
  python3 - "$@" <<'EOF'
import os, sys
out, first, count, tag = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
srcs = [(os.path.splitext(os.path.basename(s))[0], open(s, "rb").read()) for s in sys.argv[5:]]
for n in range(first, first + count):
    stem, data = srcs[n % len(srcs)]
    d = os.path.join(out, "d%03d" % (n // 1000))
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "%s-%05d.pdf" % (stem, n)), "wb") as f:
        f.write(data)
        f.write(b"\n%%colophon-bench-%s-%d\n" % (tag.encode(), n))
EOF
}

# title_pdf OUT TEXT...: a one-page PDF with these lines of Helvetica.
title_pdf() {
  python3 - "$@" <<'EOF'
import sys
out, lines = sys.argv[1], sys.argv[2:]
content = "BT /F1 24 Tf 72 700 Td 30 TL\n" + "".join("(%s) Tj T*\n" % l for l in lines) + "ET"
objs = ["<< /Type /Catalog /Pages 2 0 R >>",
        "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R "
        "/Resources << /Font << /F1 5 0 R >> >> >>",
        "<< /Length %d >>\nstream\n%s\nendstream" % (len(content), content),
        "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>"]
pdf, offsets = b"%PDF-1.4\n", []
for i, o in enumerate(objs, 1):
    offsets.append(len(pdf))
    pdf += b"%d 0 obj\n%s\nendobj\n" % (i, o.encode())
xref = len(pdf)
pdf += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objs) + 1)
pdf += b"".join(b"%010d 00000 n \n" % o for o in offsets)
pdf += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objs) + 1, xref)
open(out, "wb").write(pdf)
EOF
}

report=()
line() { report+=("$(printf "$@")"); printf "$@" >&2; echo >&2; }

echo "machine: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)" >&2

# ------------------------------------------- 1. cold corpus, jobs 1 vs 2
if wants 1 || wants 2 || wants 3 || wants 4; then
mkdir -p "$work/corpus"
ln -sfn "$corpus" "$work/corpus/data"
ncorpus=$(find -L "$corpus" -name '*.pdf' | wc -l)
echo "1. cold dry run over the corpus ($ncorpus PDFs)..." >&2
saved_repeat=$repeat; repeat=1
if wants 1; then
  c1=$(best_cold "$work/corpus" --jobs 1)
else
  c1=$(best_cold "$work/corpus" --jobs 2) # only for the text sources below
fi
# Text sources for the rest: files of which no page was rendered for OCR.
text_sources=()
for f in "$corpus"/*.pdf; do
  stem=$(basename "$f" .pdf)
  if ! ls "$work/corpus/cache/runs/latest/diagnostics/$stem/"page-*.png >/dev/null 2>&1; then
    text_sources+=("$f")
  fi
done
ocr_pages=$(summary "$work/corpus" "pages OCRed")
repeat=$saved_repeat
wants 1 && c2=$(repeat=1 best_cold "$work/corpus" --jobs 2) &&
line "cold corpus (%s PDFs, %s pages OCRed)   --jobs 1: %6.1f s   --jobs 2: %6.1f s   ratio %.2f (target <= 0.60)" \
  "$ncorpus" "$ocr_pages" "$c1" "$c2" "$(calc "$c2 / $c1")"
fi

# ----------------------------------------- 2. per page against pdftotext
if wants 2; then
echo "2. per page of born-digital text against pdftotext ($floor_files files)..." >&2
mkdir -p "$work/floor/data"
copies "$work/floor/data" 0 "$floor_files" floor "${text_sources[@]}"
find "$work/floor/data" -name '*.pdf' | sort > "$work/floor/list"
# Pages pdftotext reads: the first 8 of each file.
pt_pages=$(while read -r f; do pdfinfo "$f" 2>/dev/null | sed -n 's/^Pages: *//p'; done < "$work/floor/list" |
  awk '{p += ($1 < 8 ? $1 : 8)} END {print p}')
# Interleaved (colophon, then pdftotext, in each round) so that a change in
# the machine's speed hits both; pdftotext runs without a shell around it.
for j in 1 2; do
  s="" best=""
  for _ in $(seq "$repeat"); do
    set_aside "$work/floor"
    s=$(min "$s" "$(seconds "$work/floor" --jobs "$j")")
    start=$(date +%s.%N)
    xargs -P "$j" -a "$work/floor/list" -I{} pdftotext -f 1 -l 8 {} /dev/null
    best=$(min "$best" "$(calc "$(date +%s.%N) - $start")")
  done
  pages=$(summary "$work/floor" "pages read by pdfium")
  ocr=$(summary "$work/floor" "pages OCRed")
  line "per page, parallelism %s   colophon: %.2f ms/page (%s pages, %s OCRed, %.2f s)   pdftotext -f 1 -l 8: %.2f ms/page (%s pages, %.2f s)   ratio %.2f (target <= 1)" \
    "$j" "$(calc "$s * 1000 / $pages")" "$pages" "$ocr" "$s" "$(calc "$best * 1000 / $pt_pages")" "$pt_pages" "$best" \
    "$(calc "($s / $pages) / ($best / $pt_pages)")"
done
fi

# ---------------------------------------------------- 3. the library
if wants 3; then
echo "3. library of $files PDFs..." >&2
lib_sources=()
for f in "${text_sources[@]}"; do
  [ "$(stat -c %s "$f")" -le $((max_kb * 1024)) ] && lib_sources+=("$f")
done
copies "$work/lib/pdfs" 0 "$files" lib "${lib_sources[@]}"
folders=$(ls "$work/lib/pdfs" | wc -l)
# link_folders ROOT K: ROOT/data holds the first K folders of the library.
link_folders() {
  rm -rf "$1/data"; mkdir -p "$1/data"
  for d in $(ls "$work/lib/pdfs" | head -n "$2"); do ln -s "$work/lib/pdfs/$d" "$1/data/$d"; done
}
count_files() { find -L "$1/data" -name '*.pdf' | wc -l; }

# Peak memory at a tenth and at half of the library, then all of it.
for part in 10 2; do
  k=$(( folders / part > 0 ? folders / part : 1 ))
  mkdir -p "$work/lib/part$part"
  link_folders "$work/lib/part$part" "$k"
  read -r s_sec s_coord s_tree < <(peak_run "$work/lib/part$part" --jobs 2)
  line "cold %6s PDFs --jobs 2: %7.1f s   peak RSS coordinator %4d MiB, all processes %4d MiB" \
    "$(count_files "$work/lib/part$part")" "$s_sec" "$((s_coord / 1024))" "$((s_tree / 1024))"
done

main="$work/lib/main"
mkdir -p "$main"
link_folders "$main" "$folders"
n_all=$(count_files "$main")
read -r cold_sec cold_coord cold_tree < <(peak_run "$main" --jobs 2)
line "cold %6s PDFs --jobs 2: %7.1f s   peak RSS coordinator %4d MiB, all processes %4d MiB (target < 1024, flat)" \
  "$n_all" "$cold_sec" "$((cold_coord / 1024))" "$((cold_tree / 1024))"

for k in $(( folders / 4 > 0 ? folders / 4 : 1 )) $(( folders / 2 > 0 ? folders / 2 : 1 )) "$folders"; do
  link_folders "$main" "$k"
  n=$(count_files "$main")
  w=$(best_warm "$main" --jobs 2)
  cached=$(summary "$main" "records from the cache")
  line "warm %6s PDFs --jobs 2: %7.2f s   %.0f us/file   (%s records from the cache; target < 2 s at 10,000, linear)" \
    "$n" "$w" "$(calc "$w * 1e6 / $n")" "$cached"
done
warm_all=$w

# Incremental: 10 new PDFs, first timed alone in a project of their own
# (cold), then added to the warm library.
copies "$work/lib/new" 0 10 "new-$$" "${lib_sources[@]}"
mkdir -p "$work/lib/newonly"
ln -sfn "$work/lib/new" "$work/lib/newonly/data"
new_cold=$(seconds "$work/lib/newonly" --jobs 2)
ln -sfn "$work/lib/new" "$main/data/new"
# The warm runs above had no surplus run folder to delete; nor does this
# one (run folders beyond the newest ten are deleted at the end of every
# run, which is housekeeping, not the cost of the new files).
keep=$(readlink "$main/cache/runs/latest")
mkdir -p "$work/trash/runs"
for d in "$main"/cache/runs/2*; do
  [ "$(basename "$d")" = "$keep" ] || mv "$d" "$work/trash/runs/"
done
inc=$(seconds "$main" --jobs 2)
computed=$(summary "$main" "records computed")
rm "$main/data/new"
line "incremental %s + 10 new --jobs 2: %.2f s (%s records computed)   = cold 10 (%.2f s) + warm %s (%.2f s) = %.2f s expected" \
  "$n_all" "$inc" "$computed" "$new_cold" "$n_all" "$warm_all" "$(calc "$new_cold + $warm_all")"
fi

# ------------------------------------------------------- 4. vision overlap
if wants 4; then
echo "4. vision overlap..." >&2
mkdir -p "$work/vision/data" "$work/vision/titles"
for n in $(seq 0 39); do
  src="${text_sources[$(( n % ${#text_sources[@]} ))]}"
  title_pdf "$work/vision/titles/t$n.pdf" "Collected Papers on Lighthouses, Volume $n" "Second Line of Book $n" "A. N. Author"
  qpdf --empty --pages "$work/vision/titles/t$n.pdf" "$src" -- "$work/vision/data/v$n.pdf"
done
cpu_only=$(best_cold "$work/vision" --jobs 2)
coproc FAKE { exec "$fake" 1; }
fake_pid=$FAKE_PID
read -r endpoint <&"${FAKE[0]}"
set_aside "$work/vision"
vis=$(ANALYZE_WITH_VISION=true VLM_ENDPOINT="$endpoint" VLM_CONCURRENCY=4 VLM_TIMEOUT=30 \
  seconds "$work/vision" --jobs 2)
asked=$(summary "$work/vision" "vision requests")
kill "$fake_pid" 2>/dev/null || true; fake_pid=""
line "vision: 40 docs, %s pages asked, backend 1 s/page, VLM_CONCURRENCY 4, --jobs 2: %.1f s   (ideal 10 s, serial 40 s; same run without vision %.1f s)" \
  "$asked" "$vis" "$cpu_only"
fi

# ----------------------------------------------------- 5. a real library
# Real, different PDFs (PERF_LIBRARY) instead of copies of a few: every
# document brings its own fonts, structure and page count, which copies of
# the same 46 files hide behind warm caches. The library is read in place
# (the project's data is a symlink to it; runs are dry). "Cold" is an empty
# colophon cache; the files themselves are read once first, so that
# neither colophon nor pdftotext pays the disk and both see the same page
# cache. Rounds interleave colophon (and PERF_BASELINE) with pdftotext, so
# that a change in the machine's load hits all of them.

# real_run ROOT BIN ARGS...: one run of BIN (as colophon and as its
# workers); prints "wall cpu coordinator_kib worker_kib tesseract_kib
# tree_kib": wall and CPU seconds (user + sys, children included), the
# peak resident memory (VmHWM, sampled every 0.2 s) of the coordinator, of
# the largest pdfium worker and of the largest Tesseract, and the peak of
# the summed resident memory of all of them.
real_run() {
  local root=$1 exe=$2; shift 2
  local t="$work/.time" pid sampler coord child tess tree wall user sys
  (cd "$root" && WORKER_EXECUTABLE="$exe" exec /usr/bin/time -f "%e %U %S" -o "$t" \
    "$exe" run -q "$@" >/dev/null 2>"$work/.stderr") &
  pid=$!
  # One sampler process for the whole run: forking awk and pgrep five
  # times a second took CPU from the run it measured (pdftotext's runs
  # had no such load).
  python3 - "$pid" >"$work/.peaks" <<'EOF' &
import os, sys, time
top = int(sys.argv[1])
def kids(pid):
    out = []
    try:
        for t in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{t}/children") as f:
                out += [int(c) for c in f.read().split()]
    except OSError:
        pass
    return out
def mem(pid):
    hwm = rss = 0
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    hwm = int(line.split()[1])
                elif line.startswith("VmRSS:"):
                    rss = int(line.split()[1])
    except OSError:
        pass
    return hwm, rss
coord = child = tess = tree = 0
while os.path.exists(f"/proc/{top}"):
    total = 0
    # The subshell execs /usr/bin/time, whose child is colophon.
    for p in kids(top):
        hwm, rss = mem(p)
        coord, total = max(coord, hwm), total + rss
        stack = kids(p)
        while stack:
            c = stack.pop()
            stack += kids(c)
            hwm, rss = mem(c)
            total += rss
            # Tesseract: the program, or an OCR server (`colophon ocr-server`).
            try:
                with open(f"/proc/{c}/comm") as f:
                    ocr = f.read().strip() == "tesseract"
                with open(f"/proc/{c}/cmdline", "rb") as f:
                    ocr = ocr or b"ocr-server" in f.read().split(b"\0")
            except OSError:
                ocr = False
            if ocr:
                tess = max(tess, hwm)
            else:
                child = max(child, hwm)
    tree = max(tree, total)
    time.sleep(0.2)
print(coord, child, tess, tree)
EOF
  sampler=$!
  wait "$pid" || { echo "perf.sh: colophon failed in $root:" >&2; cat "$work/.stderr" >&2; exit 1; }
  wait "$sampler"
  read -r coord child tess tree < "$work/.peaks"
  read -r wall user sys < "$t"
  echo "$wall $(calc "$user + $sys") $coord $child $tess $tree"
}

if wants 5 && [ -n "$library" ]; then
  real="$work/real"
  mkdir -p "$real"
  ln -sfn "$library" "$real/data"
  [ -n "${PERF_CONFIG:-}" ] && cp "$PERF_CONFIG" "$real/colophon.toml"
  find -L "$library" -name '*.pdf' | sort > "$work/real.list"
  nreal=$(wc -l < "$work/real.list")
  echo "5. real library: $nreal PDFs in $library..." >&2
  xargs -a "$work/real.list" -d '\n' cat > /dev/null
  pt_pages=$(while read -r f; do pdfinfo "$f" 2>/dev/null | sed -n 's/^Pages: *//p'; done < "$work/real.list" |
    awk '{p += ($1 < 8 ? $1 : 8)} END {print p}')
  bins=("$bin")
  [ -n "${PERF_BASELINE:-}" ] && bins+=("$(cd "$(dirname "$PERF_BASELINE")" && pwd)/$(basename "$PERF_BASELINE")")
  declare -A r_wall r_cpu r_coord r_child r_tess r_tree r_pages r_ocr r_warm
  pt_wall="" pt_cpu=""
  for round in $(seq "${PERF_REAL_ROUNDS:-1}"); do
    for i in "${!bins[@]}"; do
      set_aside "$real"
      read -r w c co ch te tr < <(real_run "$real" "${bins[$i]}" --jobs 2)
      echo "  round $round, ${bins[$i]}: cold ${w} s, ${c} CPU-s (load $(cut -d' ' -f1 /proc/loadavg))" >&2
      if [ -z "${r_wall[$i]:-}" ] || python3 -c "import sys; sys.exit(not $w < ${r_wall[$i]})"; then
        r_wall[$i]=$w r_cpu[$i]=$c
        r_pages[$i]=$(summary "$real" "pages read by pdfium")
        r_ocr[$i]=$(summary "$real" "pages OCRed")
      fi
      r_coord[$i]=$(( ${r_coord[$i]:-0} > co ? ${r_coord[$i]:-0} : co ))
      r_child[$i]=$(( ${r_child[$i]:-0} > ch ? ${r_child[$i]:-0} : ch ))
      r_tess[$i]=$(( ${r_tess[$i]:-0} > te ? ${r_tess[$i]:-0} : te ))
      r_tree[$i]=$(( ${r_tree[$i]:-0} > tr ? ${r_tree[$i]:-0} : tr ))
      # Warm: reruns over the cache this cold run left.
      for _ in $(seq "$repeat"); do
        read -r w _ < <(real_run "$real" "${bins[$i]}" --jobs 2)
        r_warm[$i]=$(min "${r_warm[$i]:-}" "$w")
      done
    done
    /usr/bin/time -f "%e %U %S" -o "$work/.pt" \
      xargs -P 2 -a "$work/real.list" -d '\n' -I{} pdftotext -q -f 1 -l 8 {} /dev/null || true
    read -r w u sy < "$work/.pt"
    echo "  round $round, pdftotext: ${w} s, $(calc "$u + $sy") CPU-s" >&2
    if [ -z "$pt_wall" ] || python3 -c "import sys; sys.exit(not $w < $pt_wall)"; then
      pt_wall=$w pt_cpu=$(calc "$u + $sy")
    fi
  done
  line "real library: %s PDFs (%s), --jobs 2, best of %s cold rounds; pdftotext -f 1 -l 8 -P2 reads %s pages (%.2f per PDF) in %.1f s wall, %.1f CPU-s: %.1f ms per PDF" \
    "$nreal" "$library" "${PERF_REAL_ROUNDS:-1}" "$pt_pages" "$(calc "$pt_pages / $nreal")" "$pt_wall" "$pt_cpu" "$(calc "$pt_wall * 1000 / $nreal")"
  for i in "${!bins[@]}"; do
    line "  %s: cold %.1f s wall, %.1f CPU-s, %.1f ms per PDF (%.2f x pdftotext; target <= 0.5; by CPU %.2f x); %s pages read (%.2f per PDF, %.0f pages/s), %s OCRed; warm %.2f s (%.0f us per PDF); peak RSS coordinator %d MiB, largest worker %d MiB, largest Tesseract %d MiB, all processes %d MiB" \
      "$([ "$i" = 0 ] && echo "colophon" || echo "baseline")" "${r_wall[$i]}" "${r_cpu[$i]}" \
      "$(calc "${r_wall[$i]} * 1000 / $nreal")" "$(calc "${r_wall[$i]} / $pt_wall")" "$(calc "${r_cpu[$i]} / $pt_cpu")" \
      "${r_pages[$i]}" "$(calc "${r_pages[$i]} / $nreal")" "$(calc "${r_pages[$i]} / ${r_wall[$i]}")" "${r_ocr[$i]}" \
      "${r_warm[$i]}" "$(calc "${r_warm[$i]} * 1e6 / $nreal")" \
      "$((r_coord[$i] / 1024))" "$((r_child[$i] / 1024))" "$((r_tess[$i] / 1024))" "$((r_tree[$i] / 1024))"
  done
fi

echo
echo "colophon perf figures ($(date -u +%Y-%m-%dT%H:%MZ), $(nproc) cores, load average at end $(cut -d' ' -f1-3 /proc/loadavg))"
printf '%s\n' "${report[@]}"
