#!/usr/bin/env bash
# The dashboard for translators and ops, with roles (issue 51), in headless Chromium through
# `quire watch --serve --editors-auth` and a sign-in service of the test's own naming users and
# groups (tests/e2e/dashboard_roles.py).
set -euo pipefail
cd "$(dirname "$0")/../.."
command -v nginx >/dev/null || [ -x /usr/sbin/nginx ] || { echo "dashboard-roles: nginx is not installed (scripts/ensure-packages test)" >&2; exit 1; }
[ -x /usr/bin/chromium ] || { echo "dashboard-roles: /usr/bin/chromium is not installed (scripts/ensure-packages test)" >&2; exit 1; }
command -v xliff2po >/dev/null || python3 -c "import translate" 2>/dev/null || python3 -m pip install -q translate-toolkit >/dev/null
python3 -c "import playwright" 2>/dev/null || python3 -m pip install -q playwright >/dev/null
swift build --product quire >/dev/null
exec python3 tests/e2e/dashboard_roles.py
