#!/bin/bash
# One SHA-256 over what `quire build` publishes: every file under dist/<site>/current/ (links
# followed) with its path, and the link targets (tree ids), for the sample sites in pages/ and a
# generated 1,000-page site in both layouts. `build.json` (timings) is left out and
# `manifest.json` is read without `built_at`. The page indexes (`<locale>/index[.<k>].json`) hold the
# build's time as `published_at`, which is read as `-`; so the tree ids (link targets, and the
# manifest's hashes) are left out, the files themselves are all hashed. Two binaries that publish
# the same bytes print the same lines.
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
        for link in *; do [ -L "$link" ] && echo "link $link"; done
        find -L . -type f ! -name build.json ! -name manifest.json ! -regex '.*/index\(\.[0-9]+\)?\.json' -print0 | LC_ALL=C sort -z | xargs -0 sha256sum
        find -L . -type f -regex '.*/index\(\.[0-9]+\)?\.json' -print0 | LC_ALL=C sort -z | while IFS= read -r -d '' file; do
            echo "$(sed -E 's/"published_at":"[^"]*"/"published_at":"-"/g' "$file" | sha256sum | cut -c1-64)  $file"
        done
        grep -v '"built_at"' manifest.json | sed -E 's/[0-9a-f]{64}/-/g' | sha256sum | sed 's/-$/manifest.json/'
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
