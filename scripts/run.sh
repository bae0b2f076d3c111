#!/usr/bin/env bash
# The main job on a fresh machine: install what is missing, build, and run
# colophon over data/ (a dry run unless WRITE_PDF_CHANGES / --write).
# Extra arguments go to colophon, e.g. `scripts/run.sh --json`.
set -euo pipefail
cd "$(dirname "$0")/.."
# Rust first; what a run calls (Tesseract) and libpdfium install in the
# background while cargo builds, which needs neither.
scripts/setup.sh --build
packages_log=$(mktemp)
trap 'rm -f "$packages_log"' EXIT
scripts/setup.sh --packages >"$packages_log" 2>&1 &
packages_pid=$!
wait_for_packages() {
  if ! wait "$packages_pid"; then
    cat "$packages_log" >&2
    echo "run: installing the system packages failed (scripts/setup.sh --packages)" >&2
    exit 1
  fi
  cat "$packages_log" >&2
  rm -f "$packages_log"
}
cargo build --release --quiet
wait_for_packages
exec target/release/colophon run "$@"
