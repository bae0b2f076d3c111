#!/usr/bin/env bash
# The test command on a fresh machine: install what is missing, build, run
# the test suite and the lints, then (when ../shared/corpus is there) score
# the extraction on the corpus and fail below the floor we reached.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
export OMP_THREAD_LIMIT=1
cargo fmt --all -- --check
# The lints see every target (examples and benches too); the tests build
# only what has tests: the library's unit tests and the one integration-test
# binary (tests/it). Examples and criterion benches are built when used
# (scripts/perf.sh, scripts/gen-books.sh, `cargo bench`).
cargo clippy --all-targets --quiet -- -D warnings
cargo test --tests
if [ -d ../shared/corpus ]; then
  scripts/corpus-score.sh
else
  echo "test: ../shared/corpus not found, corpus score skipped" >&2
fi
