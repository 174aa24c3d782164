#!/usr/bin/env bash
# The editors' dashboard (issue 47) in headless Chromium through `quire watch --serve`: the form,
# the live preview, saves that go live, sections added/moved/removed, an error kept off the apps,
# a refused stale save, a new page, an upload, the text mode, publish -> dashboard told
# (tests/e2e/dashboard_check.py). DASHBOARD_SCREENSHOT=docs/dashboard.png also writes README's
# screenshot.
set -euo pipefail
cd "$(dirname "$0")/../.."
command -v nginx >/dev/null || [ -x /usr/sbin/nginx ] || { echo "dashboard: nginx is not installed (scripts/ensure-packages test)" >&2; exit 1; }
[ -x /usr/bin/chromium ] || { echo "dashboard: /usr/bin/chromium is not installed (scripts/ensure-packages test)" >&2; exit 1; }
[ -f /usr/share/javascript/codemirror/lib/codemirror.js ] || { echo "dashboard: libjs-codemirror is not installed (scripts/ensure-packages)" >&2; exit 1; }
python3 -c "import playwright" 2>/dev/null || python3 -m pip install -q playwright >/dev/null
swift build --product quire >/dev/null
exec python3 tests/e2e/dashboard_check.py
