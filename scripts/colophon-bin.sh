# Sourced by the measuring scripts: sets $colophon to the binary to measure.
# COLOPHON names it; else target/release/colophon, else target/debug/colophon
# under CARGO_TARGET_DIR or the repository ($repo). $1: the caller's name,
# for the message when there is none.
colophon="${COLOPHON:-}"
for candidate in "${CARGO_TARGET_DIR:-$repo/target}/release/colophon" \
  "${CARGO_TARGET_DIR:-$repo/target}/debug/colophon"; do
  if [ -z "$colophon" ] && [ -x "$candidate" ]; then colophon="$candidate"; fi
done
[ -x "$colophon" ] || { echo "$1: no colophon binary (set COLOPHON)" >&2; exit 2; }
