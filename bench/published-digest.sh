#!/bin/bash
# One SHA-256 over what `quire build` publishes: every file under dist/<site>/current/ (links
# followed) with its path, and the link targets (tree ids), for the sample sites in pages/ and a
# generated 1,000-page site in both layouts. `build.json` (timings) is left out and
# `manifest.json` is read without `built_at`; nothing else of a build depends on the clock. Two
# binaries that publish the same bytes print the same lines.
#
#   bench/published-digest.sh QUIRE [QUIRE_BENCH]     e.g. .build/release/quire
set -euo pipefail
[ $# -ge 1 ] || { sed -n '2,8p' "$0"; exit 2; }
quire=$(realpath "$1"); bench=$(realpath "${2:-$(dirname "$1")/quire-bench}")
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/quire-digest-XXXXXX")
trap 'rm -rf "$work"' EXIT

digest_site() {  # dist site
    local current=$1/$2/current
    ( cd "$current" && {
        for link in *; do [ -L "$link" ] && echo "link $link -> $(readlink "$link")"; done
        find -L . -type f ! -name build.json ! -name manifest.json -print0 | LC_ALL=C sort -z | xargs -0 sha256sum
        grep -v '"built_at"' manifest.json | sha256sum | sed 's/-$/manifest.json/'
    } ) | sha256sum | cut -c1-64
}

digest_pages() {  # label pages
    local dist=$work/dist-$1
    "$quire" build --pages "$2" --dist "$dist" > /dev/null 2>&1 || true
    for site in $(ls "$dist"); do echo "$1 $site $(digest_site "$dist" "$site")"; done
}

{
    digest_pages samples "$root/pages"
    for layout in flat nested; do
        "$bench" generate --out "$work/gen-$layout" --pages-count 1000 --layout "$layout" > /dev/null 2>&1
        digest_pages "1000-$layout" "$work/gen-$layout/pages"
    done
} | tee "$work/lines"
echo "all $(sha256sum < "$work/lines" | cut -c1-64)"
