#!/usr/bin/env bash
# Replicas for real: an origin pushing to a folder replica and to one behind an rsync daemon, each
# served by its own nginx, with readers on both during 100 publishes and 10 rollbacks; the daemon
# stopped then caught up by one push; 50 pushes killed at random instants (QUIRE_DEEP=1: 400
# publishes, 300 kills). After each kill `quire verify --dist` passes on every replica.
set -euo pipefail
cd "$(dirname "$0")/../.."
for tool in nginx rsync; do
  command -v $tool >/dev/null || { echo "replicas: $tool is not installed (scripts/ensure-packages test)" >&2; exit 1; }
done
swift build --product quire >/dev/null
exec python3 tests/e2e/replicas.py
