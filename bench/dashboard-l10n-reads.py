"""The translators' reads through the dashboard's API, timed from the client: `quire watch --serve`
on a copy of pages/trex (French in YAML, XLIFF and PO files), then N GETs each of a page's strings
(`l10n/fr/pages/guides/range-safety`, from its PO file) and of the coverage table (`l10n`: every
translation file read), through nginx, every answer checked to be 200.

Usage: python3 bench/dashboard-l10n-reads.py [N]   (QUIRE_BIN: the quire to run; release build)
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
    workspace = quire_e2e.Workspace(prefix="quire-l10n-reads-")
    shutil.rmtree(workspace.pages)
    shutil.copytree(os.path.join(quire_e2e.ROOT, "pages", "trex"), os.path.join(workspace.pages, "trex"))
    watcher, editors = start(workspace)
    try:
        if dashboard_api.failures:
            sys.exit("the watcher did not publish: " + watcher.tail())
        service = Service(editors)
        _, session, _ = service.request("GET", "/api/session")
        service.token = session["token"]
        for path in ["/api/sites/trex/l10n/fr/pages/guides/range-safety", "/api/sites/trex/l10n"]:
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


if __name__ == "__main__":
    main()
