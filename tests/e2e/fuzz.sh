#!/usr/bin/env bash
# Replays every kept fuzz input (fuzz/corpus/, fuzz/regressions/) through its libFuzzer target:
# an input that once found a problem, or reached new code, fails here if it crashes again.
# With QUIRE_DEEP=1 (`./test --deep`) each target is then fuzzed for 5 minutes (FUZZ_SECONDS).
set -euo pipefail
cd "$(dirname "$0")/../.."
fuzz/run.sh --replay
if [ "${QUIRE_DEEP:-0}" = 1 ] || [ -n "${FUZZ_SECONDS:-}" ]; then
  exec fuzz/run.sh "${FUZZ_SECONDS:-300}"
fi
