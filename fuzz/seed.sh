#!/usr/bin/env bash
# Fills a libFuzzer corpus folder for one target from the test fixtures and the sample pages.
# Source, translation and import targets read a selector byte first: seeds get it prepended.
set -euo pipefail
cd "$(dirname "$0")/.."
target=$1 corpus=$2
fixtures=Tests/QuireCoreTests/Fixtures
add() {  # prefix-byte-or-empty, file
  local prefix=$1 file=$2 name
  name=$(printf '%s' "$prefix$file" | sha1sum | cut -c1-16)
  [ -f "$corpus/$name" ] && return
  { [ -n "$prefix" ] && printf "\\x$prefix"; head -c 65536 "$file"; } > "$corpus/$name"
}
case $target in
  source)
    while IFS= read -r f; do add 00 "$f"; done < <(find $fixtures pages fuzz/regressions/source -name '*.json' -size -64k 2>/dev/null)
    while IFS= read -r f; do add 01 "$f"; done < <(find $fixtures pages fuzz/regressions/source \( -name '*.yaml' -o -name '*.yml' \) -size -64k 2>/dev/null) ;;
  markdown)
    while IFS= read -r f; do add "" "$f"; done < <(find $fixtures/markdown fuzz/regressions/markdown -type f -size -64k 2>/dev/null) ;;
  translations)
    while IFS= read -r f; do add 00 "$f"; done < <(find $fixtures pages fuzz/regressions/translations -name '*.xlf' -size -64k 2>/dev/null)
    while IFS= read -r f; do add 01 "$f"; done < <(find $fixtures/l10n pages fuzz/regressions/translations -path '*l10n*' -name '*.yaml' -size -64k 2>/dev/null)
    while IFS= read -r f; do add 02 "$f"; done < <(find $fixtures/l10n fuzz/regressions/translations -name '*.json' -size -64k 2>/dev/null) ;;
  imports)  # selector: bit 0 PO, bits 1-2 the locale asked for (none, fr, de, fr-CA)
    while IFS= read -r f; do add 02 "$f"; done < <(find $fixtures pages fuzz/regressions/translations -name '*.xlf' -size -64k 2>/dev/null)
    while IFS= read -r f; do add 03 "$f"; done < <(find $fixtures pages -name '*.po' -size -64k 2>/dev/null) ;;
  dashboard) ;;  # its seeds are requests, kept in fuzz/corpus/dashboard/
esac
# Regression inputs are kept verbatim (already with their format byte).
for f in fuzz/regressions/$target/*; do [ -f "$f" ] && cp "$f" "$corpus/regression-$(basename "$f")"; done
true
