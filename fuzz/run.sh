#!/usr/bin/env bash
# Builds the libFuzzer targets with swiftc (SwiftPM cannot link them: ARCHITECTURE.md, "Known traps") and runs
# each for a while with a seed corpus taken from the test fixtures.
#
#   fuzz/run.sh [seconds-per-target] [target...]     default: 20 s, all targets
#
# Targets: source (loader + validator), markdown (cmark stage + JSON writer), translations
# (XLIFF, YAML and JSON translation files). Leak detection is off: Swift globals (the built-in
# vocabulary) and Foundation's XMLParser error strings are reported as leaks but are not ours.
# Crashes land in fuzz/findings/<target>/ (not committed). Once fixed, keep the input in
# fuzz/regressions/<target>/ (replayed as seeds on every run) and, when it is a page or
# translation file, as a case in Tests/QuireCoreTests/Fixtures/hostile/.
# Longer runs: `fuzz/run.sh 3600` or `QUIRE_DEEP=1 tests/e2e/fuzz.sh`.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-20}
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(source markdown translations)

build=.build/fuzz
mkdir -p "$build"
sanitize=${FUZZ_SANITIZE:-fuzzer,address}
common=(-sanitize="$sanitize" -package-name quire -parse-as-library -Onone -gline-tables-only -swift-version 6
        -enable-upcoming-feature ExistentialAny -enable-upcoming-feature InternalImportsByDefault
        -I "$build" -I Sources/CCmark -I Sources/CYAML -I Sources/CCrypto -I Sources/CGettextPo)

# The libraries, rebuilt only when a source is newer than the object.
build_module() {  # name, source folder
  local name=$1 folder=$2
  if [ -f "$build/$name.o" ] && [ -f "$build/$name.stamp" ] && [ -z "$(find "$folder" -newer "$build/$name.stamp" | head -1)" ]; then
    return
  fi
  echo "fuzz: compiling $name"
  swiftc "${common[@]}" -enable-testing -module-name "$name" -wmo -emit-module -emit-module-path "$build/$name.swiftmodule" \
    -c $(find "$folder" -name '*.swift' | sort) -o "$build/$name.o"
  touch "$build/$name.stamp"
}
build_module QuireModel Sources/QuireModel
build_module QuireCore Sources/QuireCore

# At exit LeakSanitizer would report the same not-ours allocations; findings are crashes,
# sanitizer errors, timeouts and out-of-memory. (Foundation's XMLParser leaks about 72 bytes
# per XML error it reports: swift-corelibs-foundation, not Quire.)
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0}
status=0
for target in "${targets[@]}"; do
  binary="$build/fuzz-$target"
  entry=$(ls fuzz/$target/*.swift)
  if [ ! -x "$binary" ] || [ -n "$(find $entry "$build/QuireCore.o" -newer "$binary" | head -1)" ]; then
    echo "fuzz: linking $target"
    swiftc "${common[@]}" -module-name "Fuzz$target" $entry "$build/QuireCore.o" "$build/QuireModel.o" \
      -lcmark -lyaml -lcrypto -lgettextpo -o "$binary"
  fi
  # Seed corpus: the fixtures of the matching area, plus the hostile catalogue.
  corpus="$build/corpus-$target"
  mkdir -p "$corpus" "fuzz/findings/$target"
  fuzz/seed.sh "$target" "$corpus"
  echo "fuzz: running $target for ${seconds}s"
  log="$build/$target.log"
  if ! "$binary" "$corpus" -max_total_time="$seconds" -max_len=65536 -timeout=10 -rss_limit_mb=2048 -detect_leaks=0 \
      -artifact_prefix="fuzz/findings/$target/" -print_final_stats=1 >"$log" 2>&1; then
    echo "fuzz: $target FOUND A PROBLEM (see $log and fuzz/findings/$target/)"
    tail -n 40 "$log"
    status=1
  fi
  runs=$(grep -E '^stat::number_of_executed_units' "$log" | awk '{print $2}')
  echo "fuzz: $target: ${runs:-?} executions in ${seconds}s"
  echo "$(date -u +%FT%TZ) $target ${runs:-0} ${seconds}" >> "$build/totals.log"
done
exit $status
