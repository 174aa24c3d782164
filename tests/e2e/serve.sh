#!/usr/bin/env bash
# `quire watch --serve`: nginx as the watcher's child serves what it publishes: the public and the
# editors' listeners, per-page TTLs, the audience gate with a small auth service of the test's,
# live reload in headless Chromium through the served preview, nginx gone after SIGTERM and after
# kill -9 of the watcher, exit 3 on a taken port (tests/e2e/serve_check.py).
set -euo pipefail
cd "$(dirname "$0")/../.."
command -v nginx >/dev/null || [ -x /usr/sbin/nginx ] || { echo "serve: nginx is not installed (scripts/ensure-packages test)" >&2; exit 1; }
python3 -c "import websocket" 2>/dev/null || python3 -m pip install -q websocket-client >/dev/null
swift build --product quire >/dev/null
exec python3 tests/e2e/serve_check.py
