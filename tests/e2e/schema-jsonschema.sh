#!/usr/bin/env bash
# The JSON Schema against Quire's own validation, with an independent validator (Python's
# jsonschema, Draft 2020-12): schema_check.py runs every validation fixture and sample page
# through both, and checks that schema/page.schema.json is what `quire schema` prints.
set -euo pipefail
cd "$(dirname "$0")/../.."
for module in jsonschema:jsonschema yaml:pyyaml; do
  python3 -c "import ${module%%:*}" 2>/dev/null || python3 -m pip install -q "${module#*:}" >/dev/null
done
swift build --product quire >/dev/null
quire="$(swift build --show-bin-path)/quire"
python3 tests/e2e/schema_check.py --quire "$quire" --fixtures Tests/QuireCoreTests/Fixtures/validation \
  --pages pages --committed schema/page.schema.json
