#!/usr/bin/env bash
# Crash torture: stops publish, rollback, unpin and gc at each of their steps (QUIRE_CRASH_AT),
# then 200 SIGKILLs at random moments (QUIRE_DEEP=1: 2,000), reporting the step each one hit,
# then 40 SIGKILLs of `quire watch` publishing an edit as a delta (QUIRE_DEEP=1: 400).
# After each: quire verify passes, and the next run leaves no staging behind.
set -euo pipefail
cd "$(dirname "$0")/../.."
swift build --product quire >/dev/null
exec python3 tests/e2e/crash_torture.py
