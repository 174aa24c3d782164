#!/usr/bin/env bash
# Runs the libFuzzer targets: ~20 s each in `./test`, 10 minutes each with QUIRE_DEEP=1
# (`./test --deep`). FUZZ_SECONDS overrides both.
set -euo pipefail
cd "$(dirname "$0")/../.."
seconds=${FUZZ_SECONDS:-$([ "${QUIRE_DEEP:-0}" = 1 ] && echo 600 || echo 20)}
exec fuzz/run.sh "$seconds"
