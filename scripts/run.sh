#!/usr/bin/env bash
# The main job on a fresh machine: install what is missing, build, and run
# colophon over data/ (a dry run unless WRITE_PDF_CHANGES / --write).
# Extra arguments go to colophon, e.g. `scripts/run.sh --json`.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
cargo build --release --quiet
exec target/release/colophon run "$@"
