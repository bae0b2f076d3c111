#!/usr/bin/env bash
# Installs what colophon needs on a fresh Debian machine, skipping what is
# already there: system packages (apt-get), the Rust toolchain check, and
# libpdfium.so from the pinned pypdfium2 wheel (scripts/fetch-pdfium.sh).
#
#   scripts/setup.sh             everything, in order
#   scripts/setup.sh --build     what the build needs: Rust
#   scripts/setup.sh --packages  what a run needs: Tesseract and
#                                libpdfium.so (bound at run time)
#   scripts/setup.sh --test-packages  what the tests need besides: poppler,
#                                qpdf, pandoc, biber, Chromium...
#
# The test and run commands run `--build` first and their packages in the
# background while cargo builds (nothing in the build needs them), and wait
# for them before running anything: on a fresh machine the test packages
# are about 160 MB to download and 560 MB to unpack, and biber's
# Perl modules 117 more packages (about 54 s), and the pypdfium2 wheel
# 3 MB, a minute or two that the build hides. The run command installs
# only what a run calls, so that unpacking the tests' programs (Chromium,
# pandoc, biber) does not take CPU from its build.
set -euo pipefail
cd "$(dirname "$0")/.."

run_packages=(
  python3 python3-pip                                 # pip fetches libpdfium (scripts/fetch-pdfium.sh)
  tesseract-ocr tesseract-ocr-eng                     # OCR of scanned pages (run as a program)
)
test_packages=(
  pkg-config
  poppler-utils qpdf                                  # tests compare with pdftotext/pdfinfo, qpdf --check
  time                                                # peak memory in scripts/perf.sh
  fonts-dejavu-core                                   # Cyrillic and title pictures of the generated books (tests)
  pandoc bibutils                                     # export tests: BibTeX/BibLaTeX/CSL-JSON and RIS readers
  biber                                               # export tests: `biber --tool` validates the BibLaTeX
  chromium-headless-shell                             # review page tests (headless Chromium)
)

sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"

apt_install() {
  local missing=() p
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  if ((${#missing[@]})); then
    echo "setup: installing ${missing[*]}" >&2
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
  fi
}

setup_build() {
  if ! command -v cargo >/dev/null 2>&1; then
    if [ -x "$HOME/.cargo/bin/cargo" ]; then
      export PATH="$HOME/.cargo/bin:$PATH"
    else
      echo "setup: installing Rust (cargo) from Debian" >&2
      DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq cargo >/dev/null
    fi
  fi
}

setup_packages() {
  apt_install "${run_packages[@]}" "$@"
  scripts/fetch-pdfium.sh >/dev/null
}

case "${1:-}" in
  --build) setup_build ;;
  --packages) setup_packages ;;
  --test-packages) setup_packages "${test_packages[@]}" ;;
  "") setup_packages "${test_packages[@]}"; setup_build ;;
  *) echo "usage: scripts/setup.sh [--build|--packages|--test-packages]" >&2; exit 2 ;;
esac
