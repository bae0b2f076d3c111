#!/usr/bin/env bash
# Fetches the pinned libpdfium.so into <repo>/.pdfium/libpdfium.so.
#
# colophon binds pdfium at run time (pdfium-render, dynamic). The library
# comes from the pypdfium2 5.15.2 wheel (pdfium 8149) on PyPI: pip
# downloads exactly that wheel, its hash checked with --require-hashes;
# the library inside is checked against its own hash too. Idempotent: a
# library already in place with the right hash is kept. Prints its path.
#
# Environment: PYTHON (default python3), PDFIUM_DIR (default <repo>/.pdfium).
set -euo pipefail

WHEEL_VERSION="5.15.2"
WHEEL_SHA256="dc31aea5b0fb9fefc9b537a65f4113980b2c40798445736a7e6565bc85161e37"
LIB_SHA256="c76dc0f7839644bfa7c3e3107a6068df714e339c861bb7d4519907b821d427f9"
PLATFORM="manylinux_2_17_x86_64"
MEMBER="pypdfium2_raw/libpdfium.so"

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
dest_dir="${PDFIUM_DIR:-$repo/.pdfium}"
dest="$dest_dir/libpdfium.so"
python="${PYTHON:-python3}"

sha256() { sha256sum "$1" | cut -d' ' -f1; }

if [ -f "$dest" ] && [ "$(sha256 "$dest")" = "$LIB_SHA256" ]; then
  echo "$dest"
  exit 0
fi

case "$(uname -s)-$(uname -m)" in
  Linux-x86_64) ;;
  *) echo "fetch-pdfium: only Linux x86_64 is pinned here; put a libpdfium.so in $dest_dir or set PDFIUM_LIBRARY" >&2; exit 1 ;;
esac

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

printf 'pypdfium2==%s --hash=sha256:%s\n' "$WHEEL_VERSION" "$WHEEL_SHA256" > "$tmp/requirements.txt"
echo "fetch-pdfium: downloading pypdfium2 $WHEEL_VERSION ($PLATFORM) from PyPI" >&2
"$python" -m pip download --quiet --disable-pip-version-check \
  --no-deps --only-binary=:all: --platform "$PLATFORM" \
  --require-hashes -r "$tmp/requirements.txt" -d "$tmp/wheel" >&2

wheel="$(ls "$tmp"/wheel/pypdfium2-"$WHEEL_VERSION"-*.whl)"
"$python" - "$wheel" "$MEMBER" "$tmp/libpdfium.so" <<'PY'
import shutil, sys, zipfile
wheel, member, out = sys.argv[1:4]
with zipfile.ZipFile(wheel) as z, z.open(member) as src, open(out, "wb") as dst:
    shutil.copyfileobj(src, dst)
PY

got="$(sha256 "$tmp/libpdfium.so")"
if [ "$got" != "$LIB_SHA256" ]; then
  echo "fetch-pdfium: $MEMBER has sha256 $got, expected $LIB_SHA256" >&2
  exit 1
fi
mkdir -p "$dest_dir"
# Move into place atomically: a reader never sees a half-written library.
install -m 0755 "$tmp/libpdfium.so" "$dest_dir/.libpdfium.so.tmp"
mv -f "$dest_dir/.libpdfium.so.tmp" "$dest"
echo "$dest"
