#!/usr/bin/env bash
# What apps receive against schema/published-page.schema.json, with an independent validator
# (Python's jsonschema, Draft 2020-12): every page the sample sites publish (built into a temporary
# dist), the right-to-left and custom-vocabulary fixture sites, and every file in fixtures/.
set -euo pipefail
cd "$(dirname "$0")/../.."
python3 -c "import jsonschema" 2>/dev/null || python3 -m pip install -q jsonschema >/dev/null
swift build --product quire >/dev/null
quire="$(swift build --show-bin-path)/quire"
sites=()
for site in pages/*/; do [ -f "$site/site.yaml" ] && sites+=(--site "${site%/}"); done
python3 tests/e2e/published_schema_check.py --quire "$quire" --committed schema/published-page.schema.json \
  --fixtures fixtures "${sites[@]}" --site tests/e2e/fixtures/souk --site Tests/QuireCoreTests/Fixtures/sites6/acme
