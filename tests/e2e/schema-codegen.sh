#!/usr/bin/env bash
# The published schemas as code generators read them: datamodel-code-generator's models keep every
# member of every file in fixtures/ (schema_codegen_check.py).
set -euo pipefail
cd "$(dirname "$0")/../.."
command -v datamodel-codegen >/dev/null || python3 -m pip install -q datamodel-code-generator >/dev/null
python3 tests/e2e/schema_codegen_check.py --fixtures fixtures --schemas schema
