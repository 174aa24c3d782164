#!/usr/bin/env bash
# Right-to-left locales in a real browser: publishes the `souk` fixture site (en, fr, ar, he-IL;
# tests/e2e/fixtures/souk) into a scratch dist/, serves it over loopback and loads each locale's
# preview in headless Chromium (rtl_check.py): ar and he-IL laid out right to left, en and fr
# left to right, as their published pages and the manifest say.
set -euo pipefail
cd "$(dirname "$0")/../.."
here=tests/e2e

python3 -c "import websocket" 2>/dev/null || python3 -m pip install -q websocket-client >/dev/null

swift build --product quire >/dev/null
quire="$(swift build --show-bin-path)/quire"

scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
chmod 755 "$scratch"
mkdir -p "$scratch/pages"
cp -R "$here/fixtures/souk" "$scratch/pages/"
"$quire" build --pages "$scratch/pages" --dist "$scratch/dist" --site souk
python3 "$here/rtl_check.py" --dist "$scratch/dist" --site souk
