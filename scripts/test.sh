#!/usr/bin/env bash
# The test command on a fresh machine: install what is missing, build, run
# the test suite and the lints, then (when ../shared/corpus is there) score
# the extraction on the corpus and fail below the floor we reached.
set -euo pipefail
cd "$(dirname "$0")/.."
# Rust first; the system packages (the tests' and runs' programs:
# Tesseract, poppler, pandoc, Chromium...) and libpdfium install in the
# background while cargo builds, which needs none of them.
scripts/setup.sh --build
packages_log=$(mktemp)
trap 'rm -f "$packages_log"' EXIT
scripts/setup.sh --test-packages >"$packages_log" 2>&1 &
packages_pid=$!
wait_for_packages() {
  if ! wait "$packages_pid"; then
    cat "$packages_log" >&2
    echo "test: installing the system packages failed (scripts/setup.sh --test-packages)" >&2
    exit 1
  fi
  cat "$packages_log" >&2
  rm -f "$packages_log"
}
export OMP_THREAD_LIMIT=1
cargo fmt --all -- --check
# The lints ride on the build. `cargo clippy` is `cargo check` with
# clippy-driver as the compiler of this package: its check-only artifacts
# (every dependency's metadata, the library checked twice) serve no later
# step, and cost as much again as a third of the test build. Here
# clippy-driver compiles this package's targets for real, with the same
# lints and `-D warnings` as `cargo clippy --all-targets -- -D warnings`, so
# dependencies are built once and the lint pass is a few seconds on top of
# the build the tests need anyway. Every target is built (examples and
# criterion benches too, as `--all-targets` lints them); the tests run only
# what has tests: the library's unit tests and the one integration-test
# binary (tests/it). The two variables stay set for `cargo test`, so that it
# reuses what was just built.
export RUSTC_WORKSPACE_WRAPPER="$(rustc --print sysroot)/bin/clippy-driver"
export CLIPPY_ARGS="-D__CLIPPY_HACKERY__warnings__CLIPPY_HACKERY__"
cargo test --all-targets --no-run --quiet
wait_for_packages
cargo test --tests
if [ -d ../shared/corpus ]; then
  scripts/corpus-score.sh
else
  echo "test: ../shared/corpus not found, corpus score skipped" >&2
fi
