#!/bin/bash
# How a cold build grows with the site and with the cores: generates sites of 10,000 and
# 100,000 pages (3 locales, one folder, ~3 KB of markdown a page, default options) and builds each
# once per core count under `taskset`, printing one table: wall time, peak RSS and the
# `--timings` stages (thread time, ms) of every build. Thread time that grows with the cores at a
# fixed size is contention; a stage that grows more than 10x from 10,000 to 100,000 pages does
# not scale linearly.
#
#   bench/scaling.sh QUIRE QUIRE_BENCH [WORK]     e.g. .build/release/quire .build/release/quire-bench
#
# WORK (default: a new folder in /dev/shm, removed at the end) holds the sites; sites already
# generated there are reused, so give one to compare two binaries: generating 100,000 pages
# (single-threaded, about a minute and a half) is then paid once. SCALING_SIZES (default "10000 100000") and SCALING_CORES (default
# "all 8 4 2"; counts above the machine's are left out) choose the runs; SCALING_NO_PREVIEW=1
# adds `--no-preview`. Each build stops after SCALING_TIMEOUT seconds (default 150).
set -euo pipefail
[ $# -ge 2 ] || { sed -n '2,14p' "$0"; exit 2; }
quire=$(realpath "$1"); bench=$(realpath "$2")
sizes=${SCALING_SIZES:-10000 100000}
cores_wanted=${SCALING_CORES:-all 8 4 2}
build_timeout=${SCALING_TIMEOUT:-150}
flags=(--timings); [ "${SCALING_NO_PREVIEW:-0}" = 1 ] && flags+=(--no-preview)
if [ $# -ge 3 ]; then work=$3; mkdir -p "$work"; else
    work=$(mktemp -d /dev/shm/quire-scaling-XXXXXX); trap 'rm -rf "$work"' EXIT
fi
machine=$(nproc)
cores=()
for count in $cores_wanted; do
    [ "$count" = all ] && count=$machine
    [ "$count" -le "$machine" ] && [[ " ${cores[*]-} " != *" $count "* ]] && cores+=("$count")
done

# Peak RSS in KiB of the command, its wall seconds, then its stderr (the stage line).
run_measured() {  # log command...
    local log=$1; shift
    if [ -x /usr/bin/time ]; then
        /usr/bin/time -f "measure %e %M %U %S" -o "$log.time" "$@" > /dev/null 2> "$log" || echo "measure failed" >> "$log"
    else
        local start end; start=$(date +%s.%N)
        "$@" > /dev/null 2> "$log" || echo "measure failed" >> "$log"
        end=$(date +%s.%N)
        echo "measure $(echo "$end - $start" | bc) ? ? ?" > "$log.time"  # no peak RSS or CPU without time(1)
    fi
}

echo "quire: $quire (sha256 $(sha256sum "$quire" | cut -c1-12)); machine: $machine cores, $(uname -r)" >&2
results=$work/results.tsv; : > "$results"
for size in $sizes; do
    site=$work/site-$size
    if [ ! -f "$site/.done" ]; then
        started=$(date +%s)
        "$bench" generate --out "$site" --pages-count "$size" --layout flat --locales 3 > /dev/null 2>&1
        rm -rf "$site/hugo"  # the Hugo copy of the content: not needed here
        touch "$site/.done"
        echo "generated $size pages in $(( $(date +%s) - started )) s" >&2
    fi
    for count in "${cores[@]}"; do
        dist=$work/dist-$size-$count; log=$work/build-$size-$count.log
        mask="0-$((count - 1))"
        run_measured "$log" timeout "$build_timeout" taskset -c "$mask" "$quire" build --pages "$site/pages" --dist "$dist" "${flags[@]}"
        read -r _ wall rss user sys < "$log.time" || true
        cpu=$(echo "$user + $sys" | bc 2>/dev/null || echo "?")
        stages=$(grep -o 'stages (ms): .*' "$log" | sed 's/stages (ms): //' | tr -d ',' || true)
        [ -n "$stages" ] || stages="failed: $(tail -c 200 "$log" | tr '\n' ' ')"
        printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$size" "$count" "$wall" "$cpu" "$rss" "$stages" >> "$results"
        echo "built $size pages on $count cores: $wall s" >&2
        rm -rf "$dist"; sync; sleep 1
    done
done

# One row per build: pages, cores, wall s, CPU s (user + system), peak RSS MiB, then each
# stage's thread time (s).
python3 - "$results" <<'EOF'
import sys
rows = [line.rstrip("\n").split("\t") for line in open(sys.argv[1]) if line.strip()]
stages = []
parsed = []
for size, cores, wall, cpu, rss, text in rows:
    values = {}
    if not text.startswith("failed"):
        words = text.split()
        for name, ms in zip(words[0::2], words[1::2]):
            values[name] = float(ms)
            if name not in stages:
                stages.append(name)
    parsed.append((size, cores, wall, cpu, rss, values, text))
header = ["pages", "cores", "wall s", "CPU s", "RSS MiB"] + [name + " s" for name in stages]
print("| " + " | ".join(header) + " |")
print("|" + "---|" * len(header))
for size, cores, wall, cpu, rss, values, text in parsed:
    mib = f"{int(rss) / 1024:.0f}" if rss.isdigit() else "?"
    cells = [f"{int(size):,}", cores, wall, cpu, mib] + [f"{values[s] / 1000:.2f}" if s in values else "" for s in stages]
    print("| " + " | ".join(cells) + " |")
    if not values:
        print(f"  ({size} pages, {cores} cores: {text})")
EOF
