#!/usr/bin/env bash
# The test suite under AddressSanitizer and ThreadSanitizer (issue 9). Each sanitizer builds
# into its own folder so the normal debug build is not thrown away. Leak detection is off:
# Swift globals and Foundation caches show up as leaks that are not ours.
set -euo pipefail
cd "$(dirname "$0")/../.."
for sanitizer in ${SANITIZERS:-address thread}; do
  echo "== swift test --sanitize=$sanitizer"
  scratch=.build/sanitize-$sanitizer
  swift build --build-tests --sanitize="$sanitizer" --scratch-path "$scratch" 2>&1 | grep -E "error:|Compiling|Build complete" | grep -v Compiling || true
  # The whole log stays for the failures the tail cuts off.
  echo "(full log: $scratch/test.log)"
  ASAN_OPTIONS=detect_leaks=0:abort_on_error=0 TSAN_OPTIONS="halt_on_error=1:second_deadlock_stack=1" \
    swift test --skip-build --sanitize="$sanitizer" --scratch-path "$scratch" --parallel --num-workers 2 ${SANITIZER_FILTER:+--filter "$SANITIZER_FILTER"} 2>&1 \
    | tee "$scratch/test.log" | tail -n 30
done
