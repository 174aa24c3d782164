#!/usr/bin/env bash
# Builds the libFuzzer targets with swiftc (SwiftPM cannot link them: ARCHITECTURE.md, "Known traps")
# and fuzzes them, replays the kept corpus, or minimizes it.
#
#   fuzz/run.sh [seconds-per-target] [target...]   fuzz (default 20 s, all targets)
#   fuzz/run.sh --replay [target...]               run every kept input once (what ./test does)
#   fuzz/run.sh --merge [target...]                minimize what the runs found into fuzz/corpus/
#   FUZZ_OPT=-O fuzz/run.sh 3600                   the long runs (bench/RESULTS.md, "Fuzzing")
#
# Targets: source (loader + validator), markdown (cmark stage + JSON writer), translations
# (XLIFF, YAML and JSON translation files), imports (`quire l10n import` of XLIFF and PO files,
# PO in its child process), dashboard (the dashboard's requests: SCGI, saves, draft checks).
# Built with AddressSanitizer; swiftc has no UndefinedBehaviorSanitizer for Linux
# (`-sanitize=undefined` is refused): Swift code traps on overflow and bad indices by itself.
#
# Corpora: fuzz/corpus/<target>/ is kept (minimized with libFuzzer's -merge=1, replayed by
# ./test); a run fuzzes in .build/fuzz/corpus-<target>/, seeded from it, the test fixtures
# (fuzz/seed.sh) and fuzz/regressions/<target>/. Leak detection is off: Swift globals (the built-in
# vocabulary) and Foundation's XMLParser error strings are reported as leaks but are not ours.
# Crashes land in fuzz/findings/<target>/ (not committed). Once fixed, keep the input in
# fuzz/regressions/<target>/ (replayed on every run and by ./test) and, when it is a page or
# translation file, as a case in Tests/QuireCoreTests/Fixtures/hostile/.
set -euo pipefail
cd "$(dirname "$0")/.."
all=(source markdown translations imports dashboard)
mode=fuzz seconds=20
case ${1:-} in
  --replay) mode=replay; shift ;;
  --merge) mode=merge; shift ;;
  [0-9]*) seconds=$1; shift ;;
esac
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=("${all[@]}")

# FUZZ_OPT=-O for long runs: faster executions, overflow and bounds checks kept (only -Ounchecked
# drops them), at the cost of a much longer build; -Onone (the default) for replays.
opt=${FUZZ_OPT:--Onone}
build=.build/fuzz
[ "$opt" = -Onone ] || build=.build/fuzz$opt
mkdir -p "$build"
sanitize=${FUZZ_SANITIZE:-fuzzer,address}
common=(-sanitize="$sanitize" -package-name quire -parse-as-library "$opt" -gline-tables-only -swift-version 6
        -enable-upcoming-feature ExistentialAny -enable-upcoming-feature InternalImportsByDefault
        -I "$build" -I Sources/CCmark -I Sources/CYAML -I Sources/CCrypto -I Sources/CGettextPo)

# The libraries, rebuilt only when a source is newer than the object.
# A module is also rebuilt when a module it imports was (`$deps`: their names).
build_module() {  # name, source folder, extra sources...
  local name=$1 folder=$2 dep newer=
  shift 2
  for dep in ${deps:-}; do [ "$build/$dep.stamp" -nt "$build/$name.stamp" ] && newer=1; done
  if [ -z "$newer" ] && [ -f "$build/$name.o" ] && [ -f "$build/$name.stamp" ] &&
    [ -z "$(find "$folder" -newer "$build/$name.stamp" | head -1)" ]; then
    return
  fi
  echo "fuzz: compiling $name"
  swiftc "${common[@]}" -enable-testing -module-name "$name" -wmo -emit-module -emit-module-path "$build/$name.swiftmodule" \
    -c $(find "$folder" -name '*.swift' | sort) "$@" -o "$build/$name.o"
  touch "$build/$name.stamp"
}

# SwiftPM's `embedInCode` constants for the dashboard's Web/ files, empty here: the fuzzer
# serves them as any file, their bytes do not matter.
dashboard_resources() {
  local out=$build/DashboardResources.swift
  { echo "enum PackageResources {"
    for f in Sources/QuireDashboard/Web/*; do echo "    static let $(basename "$f" | tr '.-' '__'): [UInt8] = []"; done
    echo "}"; } > "$out.new"
  cmp -s "$out.new" "$out" && rm "$out.new" || mv "$out.new" "$out"
  echo "$out"
}

deps= build_module QuireModel Sources/QuireModel
deps=QuireModel build_module QuireCore Sources/QuireCore
modules=("$build/QuireCore.o" "$build/QuireModel.o")
if [[ " ${targets[*]} " == *" dashboard "* ]]; then
  deps="QuireModel QuireCore" build_module QuireDashboard Sources/QuireDashboard "$(dashboard_resources)"
fi

# At exit LeakSanitizer would report the same not-ours allocations; findings are crashes,
# sanitizer errors, timeouts and out-of-memory. (Foundation's XMLParser leaks about 72 bytes
# per XML error it reports, with what it holds about 0.5 KB: swift-corelibs-foundation, not Quire.
# At the imports target's speed (over 1,000 inputs a second) that reaches libFuzzer's 2 GB limit
# in about 15 minutes, so a long run is cut into libFuzzer processes of at most FUZZ_CHUNK
# seconds, 300 by default, each starting from the corpus the last one grew.)
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0}
# Scratch files (each import input, the dashboard's copy of pages/trex and its saves, the PO
# parser's temporary files) on tmpfs when there is one: saves fsync, and on a disk fsync was a
# sixth of each input's time.
if [ -z "${TMPDIR:-}" ] && [ -d /dev/shm ] && [ -w /dev/shm ]; then export TMPDIR=/dev/shm; fi
# FUZZ_TIMEOUT: seconds one input may take; raise it for runs at idle priority beside other work,
# where a starved process would otherwise report the machine's pauses as timeouts.
flags=(-max_len=65536 -timeout="${FUZZ_TIMEOUT:-10}" -rss_limit_mb=2048 -detect_leaks=0 -print_final_stats=1)
status=0
for target in "${targets[@]}"; do
  binary="$build/fuzz-$target"
  entry=$(ls fuzz/$target/*.swift)
  objects=("${modules[@]}")
  [ "$target" = dashboard ] && objects=("$build/QuireDashboard.o" "${objects[@]}")
  if [ ! -x "$binary" ] || [ -n "$(find $entry "${objects[@]}" -newer "$binary" | head -1)" ]; then
    echo "fuzz: linking $target"
    # gold warns once per ASan helper symbol it cannot export: noise, not ours.
    swiftc "${common[@]}" -module-name "Fuzz$target" $entry "${objects[@]}" -lcmark -lyaml -lcrypto -lgettextpo -o "$binary" 2>&1 |
      { grep -v 'Cannot export local symbol' || true; }
  fi
  kept=fuzz/corpus/$target regressions=fuzz/regressions/$target
  mkdir -p "$kept" "$regressions" "fuzz/findings/$target"
  log="$build/$target.log"
  case $mode in
    replay)
      # Every kept input once: a crash, sanitizer report or timeout fails.
      if ! "$binary" "${flags[@]}" -runs=0 "$kept" "$regressions" >"$log" 2>&1; then
        echo "fuzz: $target FAILS on a kept input (see $log)"
        tail -n 40 "$log"
        status=1
        continue
      fi
      echo "fuzz: $target: replayed $(find "$kept" "$regressions" -type f | wc -l) inputs, $(grep -oE 'cov: [0-9]+ ft: [0-9]+' "$log" | tail -1)"
      ;;
    merge)
      # The smallest set of inputs that keeps the coverage of the kept corpus and of every run's.
      fresh="$build/merged-$target"
      rm -rf "$fresh" && mkdir -p "$fresh"
      # Run while no fuzzer writes to these folders: a file that goes mid-merge stops it.
      shopt -s nullglob
      found=(.build/fuzz*/corpus-"$target")
      shopt -u nullglob
      "$binary" "${flags[@]}" -merge=1 "$fresh" "$kept" "$regressions" "${found[@]}" >"$log" 2>&1 ||
        { tail -n 20 "$log"; status=1; continue; }
      rm -rf "$kept" && mv "$fresh" "$kept"
      echo "fuzz: $target: kept $(ls "$kept" | wc -l) inputs, $(du -sk "$kept" | cut -f1) KB"
      ;;
    fuzz)
      corpus="$build/corpus-$target"
      mkdir -p "$corpus"
      fuzz/seed.sh "$target" "$corpus"
      echo "fuzz: running $target for ${seconds}s"
      left=$seconds
      while [ "$left" -gt 0 ]; do
        part=$((left < ${FUZZ_CHUNK:-300} ? left : ${FUZZ_CHUNK:-300}))
        left=$((left - part))
        failed=
        "$binary" "${flags[@]}" "$corpus" "$kept" -max_total_time="$part" -artifact_prefix="fuzz/findings/$target/" >"$log" 2>&1 || failed=1
        runs=$(grep -E '^stat::number_of_executed_units' "$log" | awk '{print $2}')
        echo "fuzz: $target: ${runs:-?} executions in ${part}s, $(grep -oE 'cov: [0-9]+ ft: [0-9]+ corp: [0-9]+/[0-9]+[a-zA-Z]*' "$log" | tail -1)"
        echo "$(date -u +%FT%TZ) $target ${runs:-0} ${part}" >> "$build/totals.log"
        if [ -n "$failed" ]; then
          echo "fuzz: $target FOUND A PROBLEM (see $log and fuzz/findings/$target/)"
          tail -n 40 "$log"
          status=1
          break
        fi
      done
      ;;
  esac
done
exit $status
