#!/usr/bin/env bash
# What `quire watch --serve` and deploy/nginx.conf serve, probed as an attacker with write access
# to one site's folder or to an asset would: hostile site folder names, links out of dist/,
# assets that are not media, the editors' listener's reach and gate, nginx's user and folder
# (tests/e2e/served_surface_check.py).
set -euo pipefail
cd "$(dirname "$0")/../.."
command -v nginx >/dev/null || [ -x /usr/sbin/nginx ] || { echo "served-surface: nginx is not installed (scripts/ensure-packages test)" >&2; exit 1; }
swift build --product quire >/dev/null
exec python3 tests/e2e/served_surface_check.py
