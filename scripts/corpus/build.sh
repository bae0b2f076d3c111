#!/usr/bin/env bash
# build.sh - build the real, labelled corpus of issue 35 outside the repository.
#
# Usage: scripts/corpus/build.sh [OUT] [--shared DIR] [--seed N]
#   OUT       target folder (default /work/real-corpus); never inside the repo
#   --shared  the project's shared folder with pdfjs/ and realdocs/
#             (default /work/shared); their labelled files are linked, not copied
#   --seed    seed of the junk metadata of the -junkinfo variants (default 35)
#   --debs    a folder of already downloaded .deb files, used where the sha256
#             is the pinned one (saves the download); may be repeated
#
# Steps (each is skipped where its output is already there and right):
#   1. corpus.py fetch: `apt-get download NAME=VERSION` for every package pinned
#      in sources.lock, sha256 of the .deb checked against the lock, only the
#      listed PDFs unpacked (dpkg-deb, tar; .pdf.gz gunzipped), sha256 of every
#      PDF checked, written as OUT/pdfs/<id>.pdf; .debs are deleted.
#   2. corpus.py truth: OUT/docs.json (one entry per document).
#   3. variants.py: OUT/pdfs/<id>-stripped.pdf and <id>-junkinfo.pdf.
#   4. corpus.py truth: OUT/truth.json (asis, stripped, junkinfo records).
# Needs: apt-get with package lists (run `apt-get update` once), dpkg-deb, tar,
# python3 with pikepdf (`pip install pikepdf` or apt-get install python3-pikepdf).
# Exit status 1 when a pinned document could not be fetched or verified.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
out=/work/real-corpus
shared=/work/shared
seed=35
debs=()
while [[ $# -gt 0 ]]; do
  case $1 in
    --shared) shared=$2; shift 2 ;;
    --seed) seed=$2; shift 2 ;;
    --debs) debs+=(--debs "$2"); shift 2 ;;
    -h|--help) sed -n '2,24p' "${BASH_SOURCE[0]}"; exit 0 ;;
    *) out=$1; shift ;;
  esac
done
mkdir -p "$out"
out=$(cd "$out" && pwd)
case "$out/" in
  "$repo"/*) echo "build.sh: $out is inside the repository $repo; choose a folder outside it" >&2; exit 2 ;;
esac
for tool in apt-get dpkg-deb tar python3; do
  command -v "$tool" >/dev/null || { echo "build.sh: $tool is missing" >&2; exit 2; }
done
python3 -c 'import pikepdf' 2>/dev/null || {
  echo "build.sh: python3 has no pikepdf; run: pip install pikepdf" >&2; exit 2; }

rc=0
python3 "$here/corpus.py" fetch "$out" --shared "$shared" "${debs[@]}" || rc=$?
python3 "$here/corpus.py" truth "$out" --shared "$shared"
python3 "$here/variants.py" "$out" --seed "$seed"
python3 "$here/corpus.py" truth "$out" --shared "$shared"
exit $rc
