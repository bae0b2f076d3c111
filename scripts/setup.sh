#!/usr/bin/env bash
# Installs what colophon needs on a fresh Debian machine, skipping what is
# already there: system packages (apt-get), the Rust toolchain check, and
# libpdfium.so from the pinned pypdfium2 wheel (scripts/fetch-pdfium.sh).
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(
  python3 python3-pip pkg-config
  poppler-utils qpdf                                  # tests compare with pdftotext/pdfinfo, qpdf --check
  tesseract-ocr tesseract-ocr-eng                     # OCR of scanned pages (run as a program)
  time                                                # peak memory in scripts/perf.sh
  fonts-dejavu-core                                   # Cyrillic and title pictures of the generated books (tests)
  pandoc bibutils                                     # export tests: BibTeX/BibLaTeX/CSL-JSON and RIS readers
  chromium-headless-shell                             # review page tests (headless Chromium)
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}" >&2
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
fi

if ! command -v cargo >/dev/null 2>&1; then
  if [ -x "$HOME/.cargo/bin/cargo" ]; then
    export PATH="$HOME/.cargo/bin:$PATH"
  else
    echo "setup: installing Rust (cargo) from Debian" >&2
    sudo=""; [ "$(id -u)" -eq 0 ] || sudo="sudo"
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq cargo >/dev/null
  fi
fi

scripts/fetch-pdfium.sh >/dev/null
