#!/usr/bin/env bash
# The dashboard's editing service through nginx, as `quire watch --serve` runs it on a copy of the
# sample site: hostile requests (each with its status, nothing changed on disk) and the editing
# flows, with the event stream saying "published" after each save (tests/e2e/dashboard_api.py).
set -euo pipefail
cd "$(dirname "$0")/../.."
command -v nginx >/dev/null || [ -x /usr/sbin/nginx ] || { echo "dashboard-api: nginx is not installed (scripts/ensure-packages test)" >&2; exit 1; }
swift build --product quire >/dev/null
exec python3 tests/e2e/dashboard_api.py
