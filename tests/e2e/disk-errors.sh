#!/usr/bin/env bash
# Disk full, read-only dist and permission denied: exit 3, a clear error, current untouched.
# Uses a real 300 KiB tmpfs when mount is permitted (skips with a message otherwise).
set -euo pipefail
cd "$(dirname "$0")/../.."
swift build --product quire >/dev/null
exec python3 tests/e2e/disk_errors.py
