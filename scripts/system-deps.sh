#!/usr/bin/env bash
# Installs the Debian packages docchat needs, once, and only those missing.
#   scripts/system-deps.sh run    what the app needs: tesseract-ocr and its English model, which
#                                 read images and scanned PDF pages (OCR) (`make run`)
#   scripts/system-deps.sh        all of the above, and what the tests need (`make test`): Chromium
#                                 for the e2e tier and DejaVu fonts, which the tests draw their
#                                 scanned pages with. (Their PostgreSQL, with pgvector, comes in a
#                                 wheel of the test extra: Debian has no pgvector package here.)
set -euo pipefail

missing=()
command -v tesseract >/dev/null || missing+=(tesseract-ocr)
# The English model is its own package; tesseract without it refuses every page.
tesseract --list-langs 2>/dev/null | grep -qx eng || missing+=(tesseract-ocr-eng)
if [ "${1:-test}" != "run" ]; then
    [ -x /usr/bin/chromium ] || missing+=(chromium)
    [ -f /usr/share/fonts/truetype/dejavu/DejaVuSans.ttf ] || missing+=(fonts-dejavu-core)
fi
[ ${#missing[@]} -eq 0 ] && exit 0

sudo=""
if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null || { echo "need root (or sudo) to install: ${missing[*]}" >&2; exit 1; }
    sudo="sudo"
fi
echo "Installing Debian packages: ${missing[*]}"
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
