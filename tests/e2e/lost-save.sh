#!/usr/bin/env bash
# No save is lost by `quire watch`: a save during the first build of a 3,000-page site, one the
# moment the first version appears, edits made while it was stopped, and a save whose publish
# failed on a held lock, each published (tests/e2e/lost_save.py).
set -euo pipefail
cd "$(dirname "$0")/../.."
swift build --product quire >/dev/null
exec python3 tests/e2e/lost_save.py
