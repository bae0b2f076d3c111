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
# The import layers of src/ (no cycle, no import back up).
python3 scripts/check-layers.py
# No function outside the tests longer than 80 lines.
python3 scripts/check-fn-length.py 80
# Every knob is a setting: no environment read outside src/settings/.
python3 scripts/check-env.py
# Every unsafe block says why it holds.
python3 scripts/check-safety.py
# The lints ride on the test build, through documented interfaces only:
# cargo's RUSTC_WORKSPACE_WRAPPER runs clippy-driver (a drop-in rustc that
# also lints, which is how `cargo clippy` itself works) on this package's
# targets only, and `-D warnings` in RUSTFLAGS turns every rustc and clippy
# warning into an error, as `cargo clippy --all-targets -- -D warnings`
# does. A separate `cargo clippy` step would check every dependency once
# more in check mode (about 120 CPU-s on 2 cores) for the same lints.
# Dependencies are built with --cap-lints, so the flag never fails them.
# The variables stay set for `cargo test`, which reuses this build.
export RUSTC_WORKSPACE_WRAPPER="$(rustc --print sysroot)/bin/clippy-driver"
export RUSTFLAGS="-D warnings"
cargo test --all-targets --no-run --quiet
wait_for_packages
cargo test --tests
if [ -d ../shared/corpus ]; then
  scripts/corpus-score.sh
else
  echo "test: ../shared/corpus not found, corpus score skipped" >&2
fi
