#!/usr/bin/env bash
# The long run of the quick reader's fuzz harness (src/inspect/quick/fuzz.rs;
# the test command runs a short one). Usage:
#   scripts/fuzz.sh [ITERATIONS] [CAMPAIGN]
# ITERATIONS cases (default 20000) of campaign CAMPAIGN (default: a new one
# from the clock; the same number gives the same cases), each under a memory
# bound and a time bound. A panic leaves its input in target/fuzz/; a case
# that kills the process (memory blow-up, hang) is written there too, from
# its number. Every finding is to become a regression test in fuzz.rs.
# Builds with the release profile unless FUZZ_PROFILE=dev.
set -euo pipefail
cd "$(dirname "$0")/.."
iterations=${1:-20000}
campaign=${2:-$(date +%s)}
profile=${FUZZ_PROFILE:-release}
out=${CARGO_TARGET_DIR:-target}/fuzz
mkdir -p "$out"
cargo build --quiet --profile "$profile" --example fuzz_quick
dir=$profile; [ "$profile" = dev ] && dir=debug
bin=${CARGO_TARGET_DIR:-target}/$dir/examples/fuzz_quick
echo "fuzz: campaign $campaign, $iterations cases, findings in $out"
status=0
"$bin" "$iterations" "$campaign" "$out" || status=$?
if [ -f "$out/current" ]; then
  # The process died inside a case: name it and keep its input.
  read -r c n < "$out/current"
  "$bin" --dump "$c" "$n" "$out/killed-$c-$n.pdf"
  echo "fuzz: case $n of campaign $c killed the process (exit $status):" \
    "$out/killed-$c-$n.pdf" >&2
  rm -f "$out/current"
  exit 1
fi
exit $status
