#!/usr/bin/env bash
# Real editors (vim, nano, emacs) driven through a pseudo-terminal, then scripted rsync, cp, mv,
# rm, git checkout and a translation drop, against a running `quire watch`: every final content
# is published, nothing temporary is, few versions per save, and the watcher is alive at the end.
set -euo pipefail
cd "$(dirname "$0")/../.."
swift build --product quire >/dev/null
exec python3 tests/e2e/editors.py
