#!/usr/bin/env bash
# The HTML preview in a real browser: builds quire, publishes the sample sites and a site with
# planted scripts (tests/e2e/fixtures/planted) into a scratch dist/, serves it over loopback with
# Python's http.server, and drives headless Chromium through the DevTools protocol
# (preview_check.py): a screenshot per section (tests/e2e/out/, checked non-blank), the text of
# every section in the DOM, no request leaving the server, planted scripts never running, and
# live reload under `quire watch` with the diagnostics banner of a broken save.
set -euo pipefail
cd "$(dirname "$0")/../.."
here=tests/e2e

for module in websocket:websocket-client PIL:pillow; do
  python3 -c "import ${module%%:*}" 2>/dev/null || python3 -m pip install -q "${module#*:}" >/dev/null
done

swift build --product quire >/dev/null
quire="$(swift build --show-bin-path)/quire"

scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
chmod 755 "$scratch"
mkdir -p "$scratch/pages"
cp -R pages/trex pages/springfield-pd "$here/fixtures/planted" "$scratch/pages/"
# A page in parts, and a draft in parts: apps never get the draft, its preview still draws it.
for page in range-log:false field-notes:true; do
  cat > "$scratch/pages/trex/${page%%:*}.yaml" <<YAML
draft: ${page#*:}
title: ${page%%:*} in parts
page_size: 2
sections:
  - {type: markdown_block, id: one, body: "First part, **${page%%:*}**."}
  - {type: divider, id: rule}
  - {type: announcement, id: note, tone: tip, title: Second part, body: "Read [the drills](https://example.com/drills)."}
  - {type: markdown_block, id: three, body: "1. third part\n2. of ${page%%:*}"}
  - {type: cta_button, id: back, label: Back to the store, action: navigate, destination: /trex-store}
YAML
done

# The samples publish cleanly; the planted site has one page that never validates.
"$quire" build --pages "$scratch/pages" --dist "$scratch/dist" --site trex 2>/dev/null
"$quire" build --pages "$scratch/pages" --dist "$scratch/dist" --site springfield-pd 2>/dev/null
status=0
"$quire" build --pages "$scratch/pages" --dist "$scratch/dist" --site planted 2>/dev/null || status=$?
[ "$status" = 1 ] || { echo "planted site: expected exit 1 (broken.yaml), got $status" >&2; exit 1; }

rm -rf "$here/out"
mkdir -p "$here/out"
python3 "$here/preview_check.py" --dist "$scratch/dist" --pages "$scratch/pages" --quire "$quire" --out "$here/out"
