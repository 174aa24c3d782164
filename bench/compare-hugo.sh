#!/usr/bin/env bash
# Builds the same generated content with Hugo and with Quire in one run and prints both and the
# ratios: cold build wall time and peak RSS (GNU time), Quire's stages (`--timings`: thread time
# per stage, which `quire build` measures in every build), and edit -> output latency of
# `hugo server --renderToDisk` against save -> published of `quire watch`, with and without
# previews (without them, Quire writes what Hugo writes), with torn reads.
#
#   bench/compare-hugo.sh [--pages 1000] [--locales 3] [--edits 20] [--layout flat|nested|both]
#                         [--save-gap 1000] [--quire PATH] [--work DIR] [--port 1313] [--keep]
#                         [--cold-cache] [--rounds 1] [--keep-versions 5] [--hugo-memory-limit 8GiB]
#
# --layout both (the default) runs every step on all pages in one folder (flat), then in folders
# of 100 (nested), and prints one table each. --save-gap MS waits that long after an edit is read
# back before the next (1000: an editor's pace; 0: back to back; Hugo's edits are at least 200 ms
# apart). --work DIR puts the sites in a new folder there (tmpfs or disk: the header says which,
# as stat -f does); the default is bench/out/ in the checkout. --keep-versions N writes keep: N in
# the generated site.yaml (0: none): on tmpfs every version of a one-folder site takes an inode
# per entry.
# --rounds N times the three cold builds N times, interleaved (Hugo, Quire, Quire without
# previews, then again), each into a folder of its own, and prints the medians and the ranges:
# on a shared VM one build of each can land in a fast and a slow stretch.
# --cold-cache drops the kernel's caches before each cold build (root only), so every build
# reads its sources from the disk; without it, each finds what the step before it left cached.
# --edits 0 times the cold builds only. --hugo-memory-limit SIZE runs Hugo with GOMEMLIMIT=SIZE
# (Go's soft limit, like 8GiB): Hugo 0.111 outgrows 24 GiB at 100,000 pages x 3 locales without
# it; the table's header says it was set.
# The default is quick (1,000 pages x 3 locales); the issue's anchor is --pages 10000.
# Needs: hugo (Debian's), GNU time (/usr/bin/time), jq, and a release build of quire and quire-bench
# (built here when --quire is not given and they are missing; with --quire, quire-bench must be
# beside it).
set -euo pipefail

pages=1000
locales=3
edits=20
layout=both
save_gap=1000
keep_versions=5
quire=""
work=""
port=1313
keep=0
cold_cache=0
rounds=1
hugo_memory_limit=""
while [ $# -gt 0 ]; do
    case "$1" in
        --pages) pages="$2"; shift 2 ;;
        --locales) locales="$2"; shift 2 ;;
        --edits) edits="$2"; shift 2
                 [[ "$edits" =~ ^[0-9]+$ ]] || { echo "compare-hugo: --edits takes a count, 0 for none" >&2; exit 2; } ;;
        --layout) layout="$2"; shift 2
                  [[ "$layout" =~ ^(flat|nested|both)$ ]] || { echo "compare-hugo: --layout takes flat, nested or both" >&2; exit 2; } ;;
        --save-gap) save_gap="${2%ms}"; shift 2
                    [[ "$save_gap" =~ ^[0-9]+$ ]] || { echo "compare-hugo: --save-gap takes milliseconds, like 1000" >&2; exit 2; } ;;
        --quire) quire="$2"; shift 2 ;;
        --keep-versions) keep_versions="$2"; shift 2 ;;
        --work) work="$2"; shift 2 ;;
        --port) port="$2"; shift 2 ;;
        --keep) keep=1; shift ;;
        --cold-cache) cold_cache=1; shift ;;
        --rounds) rounds="$2"; shift 2
                  [[ "$rounds" =~ ^[1-9][0-9]*$ ]] || { echo "compare-hugo: --rounds takes a count of 1 or more" >&2; exit 2; } ;;
        --hugo-memory-limit) hugo_memory_limit="$2"; shift 2
                             [[ "$hugo_memory_limit" =~ ^[1-9][0-9]*(B|KiB|MiB|GiB|TiB)$ ]] \
                                 || { echo "compare-hugo: --hugo-memory-limit takes a size with its unit, like 8GiB" >&2; exit 2; } ;;
        -h|--help) sed -n '2,/^set /{/^#/p}' "$0"; exit 0 ;;
        *) echo "compare-hugo: unknown option $1 (see --help)" >&2; exit 2 ;;
    esac
done

for tool in hugo jq /usr/bin/time; do
    command -v "$tool" >/dev/null || { echo "compare-hugo: $tool is missing: apt-get install hugo jq time" >&2; exit 3; }
done

if [ "$cold_cache" = 1 ] && [ ! -w /proc/sys/vm/drop_caches ]; then
    echo "compare-hugo: --cold-cache needs root (it writes /proc/sys/vm/drop_caches)" >&2; exit 3
fi
repo="$(cd "$(dirname "$0")/.." && pwd)"
if [ -z "$quire" ]; then
    quire="$repo/.build/release/quire"
    if [ ! -x "$quire" ] || [ ! -x "$repo/.build/release/quire-bench" ]; then
        echo "compare-hugo: building quire and quire-bench (release)" >&2
        (cd "$repo" && swift build -c release --product quire >&2 && swift build -c release --product quire-bench >&2)
    fi
fi
# The benchmark built with it, which runs the quire next to it.
bench="$(dirname "$quire")/quire-bench"
[ -x "$bench" ] || { echo "compare-hugo: no quire-bench next to $quire" >&2; exit 3; }
# By default on the repository's file system (not a tmpfs /tmp). Always a new folder of this
# run's own, removed afterwards unless --keep: that removes nothing else (--work /dev/shm is fine)
# and runs side by side do not share one.
[ -n "$work" ] || work="$repo/bench/out"
mkdir -p "$work"
work="$(mktemp -d "$work/compare-XXXXXX")"
cleanup() { if [ "$keep" = 0 ]; then rm -rf "$work"; else echo "compare-hugo: files kept in $work" >&2; fi; }
trap cleanup EXIT

say() { echo "compare-hugo: $*" >&2; }
# Runs a command with Hugo's memory limit, when one was given.
hugo_env() { if [ -n "$hugo_memory_limit" ]; then GOMEMLIMIT="$hugo_memory_limit" "$@"; else "$@"; fi; }

# The machine's busy CPU time and the part of it the host took (steal), from /proc/stat: on a
# shared VM a slow stretch shows there.
cpu_time() { awk '/^cpu / { print $2 + $3 + $4 + $7 + $8 + $9, $9 }' /proc/stat; }
fs_type=$(stat -f -c %T "$work")
load() { cut -d' ' -f1-3 /proc/loadavg; }

# One layout: generate, cold builds, edits, and its table. Each layout's files in $work/<layout>.
compare_layout() {
    layout="$1"
    dir="$work/$layout"
    mkdir -p "$dir"
    common=(--out "$dir" --pages-count "$pages" --locales "$locales" --layout "$layout")
    cpu_at_start=$(cpu_time)
    load_at_start=$(load)

    say "generating $pages pages x $locales locales ($layout) in $dir"
    "$bench" generate "${common[@]}" --keep-versions "$keep_versions" >&2

    # GNU time's "Elapsed (wall clock) time (h:mm:ss or m:ss): 0:01.23" -> seconds.
    wall_seconds() { grep 'Elapsed (wall clock)' "$1" | awk -F': ' '{print $2}' | awk -F: '{ s = 0; for (i = 1; i <= NF; i++) s = s * 60 + $i; printf "%.2f", s }'; }
    peak_mib() { grep 'Maximum resident set size' "$1" | awk -F': ' '{ printf "%.0f", $2 / 1024 }'; }

    # Each cold build starts with the disk idle: without the `sync`, the kernel is still writing
    # the previous build's output back (Hugo's 30,000 files) while the next one is timed. Hugo leaves
    # its output to writeback; Quire's time includes its own sync (a version is durable when live).
    # With --cold-cache, also nothing cached (pages, folders, inodes): every build reads its sources.
    settle() {
        sync
        if [ "$cold_cache" = 1 ]; then echo 3 > /proc/sys/vm/drop_caches; fi
}
hugo_build() {  # suffix: a cold build into a public folder of its own
    settle
    hugo_env /usr/bin/time -v -o "$dir/hugo$1.time" hugo --source "$dir/hugo" --destination "$dir/hugo-public$1" --quiet >"$dir/hugo-build$1.log" 2>&1 \
        || { say "hugo failed: $(grep -h -e 'signal' -e 'Maximum resident' "$dir/hugo$1.time" | tr -s '\t\n' ' ')$(tail -2 "$dir/hugo-build$1.log")"; exit 3; }
}
quire_build() {  # name, extra flags: a cold build into a dist of its own
    settle
    /usr/bin/time -v -o "$dir/$1.time" "$quire" build --pages "$dir/pages" --dist "$dir/$1" --timings "${@:2}" >"$dir/$1.log" 2>&1 \
        || { status=$?; [ "$status" -le 1 ] || { say "quire build failed ($status): $(tail -3 "$dir/$1.log")"; exit 3; }; }
}
# Round 1 writes hugo-public, dist and dist-no-preview; round N adds "-N".
suffix_of() { [ "$1" = 1 ] || echo "-$1"; }
for round in $(seq "$rounds"); do
    suffix=$(suffix_of "$round")
    say "round $round of $rounds: cold hugo build"
    hugo_build "$suffix"
    say "round $round of $rounds: cold quire build"
    quire_build "dist$suffix"
    # Equal content: one rendered file per page and locale, as Hugo writes. The previews are
    # Quire's second file per page and locale, for editors; Hugo has nothing like them.
    say "round $round of $rounds: cold quire build without previews"
    quire_build "dist-no-preview$suffix" --no-preview
done
load_after_builds=$(load)

# A figure of every round, one a line: reader function, time file prefix.
per_round() { for round in $(seq "$rounds"); do "$1" "$dir/$2$(suffix_of "$round").time"; echo; done | sort -n; }
median() {  # reader function, time file prefix, printf format
    per_round "$1" "$2" | awk -v f="$3" '{ v[NR] = $1 } END { printf f, NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
range() { per_round "$@" | awk 'NR == 1 { low = $1 } { high = $1 } END { printf "%s-%s", low, high }'; }
# One stage's thread time, ms (the stage named by $stage), from the stage line of the build whose
# time file is $1 ("stages (ms): scan 73.5 read 176.6 ..." in its log): a reader for `median`.
stage_ms() { grep -o 'stages (ms): .*' "${1%.time}.log" | tr -d ',' | awk -v s="$stage" '{ for (i = 3; i < NF; i += 2) if ($i == s) printf "%s", $(i + 1) }'; }
# Each stage's median over the rounds, with and without previews ("-": a stage the build lacks).
stage_table() {
    local names build width
    names=$(grep -o 'stages (ms): .*' "$dir/dist.log" | tr -d ',' | awk '{ for (i = 3; i < NF; i += 2) print $i }')
    printf '%-19s' ""
    for stage in $names; do width=${#stage}; printf ' %*s' $((width < 6 ? 6 : width)) "$stage"; done
    echo
    for build in dist dist-no-preview; do
        printf '%-19s' "$([ "$build" = dist ] && echo "  previews on" || echo "  without previews")"
        for stage in $names; do
            width=${#stage}
            printf ' %*s' $((width < 6 ? 6 : width)) "$([ -n "$(stage_ms "$dir/$build.time")" ] && median stage_ms "$build" %.0f || echo -)"
        done
        echo
    done
}
hugo_wall=$(median wall_seconds hugo %.2f); hugo_rss=$(median peak_mib hugo %.0f)
quire_wall=$(median wall_seconds dist %.2f); quire_rss=$(median peak_mib dist %.0f)
bare_wall=$(median wall_seconds dist-no-preview %.2f); bare_rss=$(median peak_mib dist-no-preview %.0f)
files=$((pages * locales))

if [ "$edits" -gt 0 ]; then
    # The edit runs start with the disk idle too: Quire's one `syncfs` before each swap writes
    # whatever else is dirty on the file system, Hugo's 30,000 files from the run before included.
    say "hugo server --renderToDisk: $edits edits"
    sync
    hugo_env "$bench" hugo-edits "${common[@]}" --saves "$edits" --save-gap "$save_gap" --port "$port" --format json >"$dir/hugo-edits.json"
    say "quire watch: $edits saves"
    sync
    "$bench" watch-edits "${common[@]}" --saves "$edits" --save-gap "$save_gap" --format json >"$dir/quire-edits.json"
    # Equal content again: a watcher that renders no previews writes what Hugo writes.
    say "quire watch --no-preview: $edits saves"
    sync
    "$bench" watch-edits "${common[@]}" --saves "$edits" --save-gap "$save_gap" --no-preview --format json >"$dir/quire-edits-no-preview.json"
fi
load_after_edits=$(load)

field() { jq -r "$2 // \"-\"" "$1"; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b + 0 > 0 && a != "-") printf "%.1f", a / b; else printf "-" }'; }
h="$dir/hugo-edits.json"; q="$dir/quire-edits.json"; qb="$dir/quire-edits-no-preview.json"

echo "compare-hugo: $pages pages x $locales locales ($files page files), layout $layout ($([ "$layout" = flat ] && echo "all pages in one folder" || echo "folders of 100")), ~3 KB markdown a page"
echo "$(date -u +%Y-%m-%dT%H:%MZ), $(nproc) cores, file system $fs_type ($work, stat -f); load average at start $load_at_start, after the cold builds $load_after_builds$([ "$edits" = 0 ] || echo ", after the edits $load_after_edits")"
echo "hugo $(hugo version | awk '{print $2}')$([ -z "$hugo_memory_limit" ] || echo " with GOMEMLIMIT=$hugo_memory_limit"), quire $quire"
echo "page cache before each cold build: $([ "$cold_cache" = 1 ] && echo "dropped, with folders and inodes (--cold-cache)" || echo "as the step before left it")"
[ "$rounds" = 1 ] || echo "cold builds: the median of $rounds interleaved rounds, and their range"
echo "busy CPU time the host took (steal): $(echo "$cpu_at_start $(cpu_time)" | awk '{ if ($3 > $1) printf "%.1f%%", 100 * ($4 - $2) / ($3 - $1); else printf "unknown" }')"
echo
printf '%-34s %12s %12s %10s\n' "" "hugo" "quire" "hugo/quire"
printf '%-34s %12s %12s %10s\n' "cold build, previews on: wall s" "$hugo_wall" "$quire_wall" "$(ratio "$hugo_wall" "$quire_wall")"
printf '%-34s %12s %12s %10s\n' "  previews on: page files/s" \
    "$(awk -v f=$files -v s="$hugo_wall" 'BEGIN{printf "%.0f", f/s}')" "$(awk -v f=$files -v s="$quire_wall" 'BEGIN{printf "%.0f", f/s}')" "$(ratio "$quire_wall" "$hugo_wall")"
printf '%-34s %12s %12s %10s\n' "  previews on: peak RSS MiB" "$hugo_rss" "$quire_rss" "$(ratio "$hugo_rss" "$quire_rss")"
printf '%-34s %12s %12s %10s\n' "  without previews: wall s" "$hugo_wall" "$bare_wall" "$(ratio "$hugo_wall" "$bare_wall")"
printf '%-34s %12s %12s %10s\n' "  without previews: peak RSS MiB" "$hugo_rss" "$bare_rss" "$(ratio "$hugo_rss" "$bare_rss")"
if [ "$rounds" != 1 ]; then
    printf '%-34s %12s %12s\n' "cold build wall s, range" "$(range wall_seconds hugo)" "$(range wall_seconds dist)"
    printf '%-34s %12s %12s\n' "  without previews: range" "" "$(range wall_seconds dist-no-preview)"
fi
echo "quire's stages, thread time ms$([ "$rounds" = 1 ] || echo " (median of $rounds rounds)"):"
stage_table
if [ "$edits" -gt 0 ]; then
    latency_rows() {  # label prefix, Quire's edits JSON: p50, p90 and p99 against Hugo's
        for p in p50 p90 p99; do
            hv=$(field "$h" ".latency.${p}_ms"); qv=$(field "$2" ".latency.${p}_ms")
            printf '%-34s %12s %12s %10s\n' "$1$p ms" "$hv" "$qv" "$(ratio "$hv" "$qv")"
        done
    }
    echo "edits: $edits, the next $save_gap ms after the previous one was read back (Hugo's at least 200 ms)"
    latency_rows "edit -> output " "$q"
    latency_rows "  without previews: " "$qb"
    # Quire's column of the last three rows: with previews, then without.
    both() { echo "$(field "$q" "$1")$2$(field "$q" "$3"), $(field "$qb" "$1")$2$(field "$qb" "$3")"; }
    printf '%-34s %12s %12s\n' "edits with torn/empty reads" \
        "$(field "$h" .latency.saves_with_torn_reads)/$(field "$h" .latency.saves)" "$(both .latency.saves_with_torn_reads / .latency.saves)"
    printf '%-34s %12s %12s\n' "torn reads/missing reads" \
        "$(field "$h" .latency.torn_reads)/$(field "$h" .latency.missing_reads)" "$(both .latency.torn_reads / .latency.missing_reads)"
    printf '%-34s %12s %12s\n' "edits not seen (timeouts)" "$(field "$h" .latency.timeouts)" "$(field "$q" .latency.timeouts), $(field "$qb" .latency.timeouts)"
    printf '%-34s %12s %12s\n' "saves lost (not shown at the end)" "" "$(field "$q" .latency.lost), $(field "$qb" .latency.lost)"
    printf '%-34s %12s %12s %10s\n' "server/watch peak RSS MiB (VmHWM)" "$(field "$h" .peak_rss_mib)" "$(field "$q" .peak_rss_mib)" \
        "$(ratio "$(field "$h" .peak_rss_mib)" "$(field "$q" .peak_rss_mib)")"
    printf '%-34s %12s %12s %10s\n' "  without previews" "" "$(field "$qb" .peak_rss_mib)" \
        "$(ratio "$(field "$h" .peak_rss_mib)" "$(field "$qb" .peak_rss_mib)")"
fi
echo
# A large site's files go before the next layout's (tmpfs has room for one at a time).
if [ "$keep" = 0 ]; then rm -rf "$dir"; fi
}

case "$layout" in
    both) compare_layout flat; compare_layout nested ;;
    *) compare_layout "$layout" ;;
esac
