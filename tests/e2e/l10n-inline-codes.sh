#!/usr/bin/env bash
# XLIFF inline codes through Python's XML parser and translate-toolkit (l10n_inline_codes.py): a
# copy of the `shop` fixture site exported, translated around its codes, imported, published;
# the same file through xliff2po and po2xliff; dropped and misplaced codes refused at line:col.
set -euo pipefail
cd "$(dirname "$0")/../.."

# translate-toolkit's Python modules for the `python3` on the PATH (Debian's package serves only
# /usr/bin/python3): from PyPI when missing, as the schema scripts get jsonschema.
python3 -c "import translate" 2>/dev/null || python3 -m pip install -q translate-toolkit >/dev/null
swift build --product quire >/dev/null
quire="$(swift build --show-bin-path)/quire"

scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
mkdir -p "$scratch/pages"
cp -R Tests/QuireCoreTests/Fixtures/l10n-site/shop "$scratch/pages/"
python3 tests/e2e/l10n_inline_codes.py --quire "$quire" --root "$scratch"
