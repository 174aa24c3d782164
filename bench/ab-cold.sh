#!/bin/bash
# Interleaved cold builds of two (or more) quire binaries on the same pages folder, each run
# after dropping the page cache (when root) and reading the sources back in, so every run starts
# from the same memory state: on a shared VM, single runs of one binary vary by tens of percent.
#
#   bench/ab-cold.sh PAGES ROUNDS QUIRE_A QUIRE_B ...
#   e.g. bench/ab-cold.sh /tmp/g10k/pages 3 /tmp/old/quire .build/release/quire
#
# PAGES is a pages folder, for instance from `quire-bench generate --out DIR --pages-count 10000`.
# Each build writes into a new folder under ${AB_OUT:-/tmp}; they are removed at the end (a
# removal right before a build would slow it: bench/RESULTS.md, recently_deleted).
set -euo pipefail
[ $# -ge 3 ] || { sed -n '2,9p' "$0"; exit 2; }
pages=$1; rounds=$2; shift 2
out=$(mktemp -d "${AB_OUT:-/tmp}/quire-ab-XXXXXX")
trap 'rm -rf "$out"' EXIT
for round in $(seq 1 "$rounds"); do
    for binary in "$@"; do
        sync
        if [ -w /proc/sys/vm/drop_caches ]; then echo 3 > /proc/sys/vm/drop_caches; fi
        find "$pages" -type f -exec cat {} + > /dev/null
        dist="$out/$round-$(echo "$binary" | tr '/' '_')"
        /usr/bin/time -f "$binary, round $round: %e s wall, %U s user, %S s system, %M KB peak RSS" \
            "$binary" build --pages "$pages" --dist "$dist" 2>&1 >/dev/null | tail -1
    done
done
