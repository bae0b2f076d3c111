#!/usr/bin/env bash
# The test command on a fresh machine: install what is missing, build, run
# the test suite and the lints, then (when ../shared/corpus is there) score
# the extraction on the corpus and fail below the floor we reached.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
export OMP_THREAD_LIMIT=1
cargo fmt --all -- --check
cargo clippy --all-targets --quiet -- -D warnings
cargo test --all-targets
if [ -d ../shared/corpus ]; then
  scripts/corpus-score.sh
else
  echo "test: ../shared/corpus not found, corpus score skipped" >&2
fi
