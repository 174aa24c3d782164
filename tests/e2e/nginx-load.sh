#!/usr/bin/env bash
# nginx under load while versions change: several clients fetch pages through current/ while
# 500 publishes, 100 rollbacks and 100 unpins happen (QUIRE_DEEP=1: 5,000 publishes). Starts its
# own nginx on free loopback ports with a config derived from deploy/nginx.conf, stops it after.
set -euo pipefail
cd "$(dirname "$0")/../.."
command -v nginx >/dev/null || { echo "nginx-load: nginx is not installed (scripts/ensure-packages test)" >&2; exit 1; }
swift build --product quire >/dev/null
exec python3 tests/e2e/nginx_load.py
