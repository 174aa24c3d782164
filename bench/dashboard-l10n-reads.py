"""The translators' reads through the dashboard's API, timed from the client: `quire watch --serve`
on a copy of pages/trex (French in YAML, XLIFF and PO files), then N GETs each of a page's strings
(`l10n/fr/pages/guides/range-safety`, from its PO file) and of the coverage table (`l10n`: every
translation file looked at), through nginx, every answer checked to be 200.

With GENERATED, a folder `quire-bench generate --out GENERATED` wrote, its site `bench` is read
instead (page `page-00000`): a large site, where a read that reads every file again shows.

Usage: python3 bench/dashboard-l10n-reads.py [N] [GENERATED]   (QUIRE_BIN: the quire to run; release build)
"""

import os
import shutil
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "e2e"))
import dashboard_api  # noqa: E402
import quire_e2e  # noqa: E402
from dashboard_api import start  # noqa: E402
from dashboard_client import Service  # noqa: E402


def main():
    reads = int(sys.argv[1]) if len(sys.argv) > 1 else 40
    generated = sys.argv[2] if len(sys.argv) > 2 else None
    site, page = ("bench", "page-00000") if generated else ("trex", "guides/range-safety")
    source = os.path.join(generated, "pages", "bench") if generated else os.path.join(quire_e2e.ROOT, "pages", "trex")
    workspace = quire_e2e.Workspace(prefix="quire-l10n-reads-")
    shutil.rmtree(workspace.pages)
    shutil.copytree(source, os.path.join(workspace.pages, site))
    watcher, editors = start(workspace, site=site, timeout=600)
    try:
        if dashboard_api.failures:
            sys.exit("the watcher did not publish: " + watcher.tail())
        service = Service(editors)
        _, session, _ = service.request("GET", "/api/session")
        service.token = session["token"]
        for path in ["/api/sites/%s/l10n/fr/pages/%s" % (site, page), "/api/sites/%s/l10n" % site]:
            timings = []
            for _ in range(reads):
                started = time.time()
                status, body, _ = service.request("GET", path)
                timings.append((time.time() - started) * 1000)
                if status != 200:
                    sys.exit("%s: %d %r" % (path, status, body))
            timings.sort()
            print("%s: p50 %.1f ms, p90 %.1f ms (%d GETs)" % (path, timings[len(timings) // 2], timings[len(timings) * 9 // 10], reads))
    finally:
        watcher.process.terminate()
        watcher.process.wait(timeout=60)
        workspace.remove()


if __name__ == "__main__":
    main()
