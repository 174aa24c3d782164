"""What tests/e2e/dashboard_check.py drives: a copy of pages/trex, `quire watch --serve` on free
ports, the dashboard in a browser page, the times versions went live, the editors' sign-in."""
import json
import os
import re
import shutil
import struct
import subprocess
import tempfile
import threading
import time
import zlib

import quire_e2e
from quire_e2e import QUIRE, ROOT, check, free_pair, get, poll
from playwright.sync_api import expect

SITE = "trex"
PAGE = "trex-store"
NONCE = "%x" % (int(time.time() * 1000) % 0xFFFFFF)
STARTED = []
UNKNOWN_SECTION = "  - type: countdown_timer\n    id: sale-clock\n    ends_at: \"2030-01-01T00:00:00Z\"\n"
timings = []  # (save written -> published, published -> dashboard told), ms


class Workspace:
    """A copy of pages/trex in a 0755 temporary folder (nginx's workers read dist/)."""

    def __init__(self):
        self.path = tempfile.mkdtemp(prefix="quire-dashboard-")
        self.pages = os.path.join(self.path, "pages")
        self.dist = os.path.join(self.path, "dist")
        shutil.copytree(os.path.join(ROOT, "pages", SITE), os.path.join(self.pages, SITE))
        os.makedirs(self.dist)
        for folder, _, _ in os.walk(self.path):
            os.chmod(folder, 0o755)
        self.site_dir = os.path.join(self.pages, SITE)
        self.site_root = os.path.join(self.dist, SITE)
        # A section of a type the vocabulary does not know: edited as its JSON, kept by form saves.
        with open(os.path.join(self.site_dir, PAGE + ".yaml"), "a") as handle:
            handle.write(UNKNOWN_SECTION)

    def source(self, name=PAGE + ".yaml"):
        return quire_e2e.read(os.path.join(self.site_dir, name))

    def write(self, name, text):
        path = os.path.join(self.site_dir, name)
        with open(path + ".new", "w") as handle:
            handle.write(text)
        os.rename(path + ".new", path)


def published(port, page=PAGE):
    """The page as apps get it (the public listener), or None."""
    status, _, body = get(port, "/%s/current/en/%s.json" % (SITE, page))
    return json.loads(body) if status == 200 else None


def section(page, section_id):
    return next((s for s in (page or {}).get("sections", []) if s.get("id") == section_id), None)


def start_watcher(workspace, extra=(), dashboard_headers=None):
    port = free_pair()
    watcher = quire_e2e.Watcher(workspace, ["--site", SITE, "--serve", "127.0.0.1:%d" % port] + list(extra))
    STARTED.append(watcher)
    ready = poll(lambda: any(": status page " in l for l in watcher.lines) or watcher.process.poll() is not None, timeout=90)
    if not ready or watcher.process.poll() is not None:
        raise SystemExit("FAIL: the watcher did not serve: %s" % watcher.tail())
    served = poll(lambda: get(port + 1, "/dashboard/", dashboard_headers)[0] == 200, timeout=10)
    if not served:
        raise SystemExit("FAIL: no dashboard at http://127.0.0.1:%d/dashboard/ (%r): %s" % (
            port + 1, get(port + 1, "/dashboard/", dashboard_headers)[:2], watcher.tail()))
    return watcher, port


class Publishes:
    """When each version went live: `current` is polled every half millisecond, and each version
    timed by its link's own time (made just before it is renamed over `current`; the kernel's
    file clock may run a few milliseconds behind, never ahead), so the dashboard's word of a
    publish is timed from the publish itself, however late this thread gets to look."""

    def __init__(self, workspace):
        self.link = os.path.join(workspace.site_root, "current")
        self.seen = {}
        self.running = True
        threading.Thread(target=self._poll, daemon=True).start()

    def _poll(self):
        while self.running:
            try:
                target = os.readlink(self.link)
                version = target.rsplit("/", 1)[-1]
                if version not in self.seen:
                    made = os.lstat(self.link).st_mtime
                    if os.readlink(self.link) == target:
                        self.seen[version] = made
            except OSError:
                pass
            time.sleep(0.0005)

    def stop(self):
        self.running = False


def png(width=4, height=3):
    """A small real PNG (the service takes an image's type from its bytes)."""
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
    rows = b"".join(b"\x00" + bytes([200, 40, 30]) * width for _ in range(height))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b""))


class Dashboard:
    """One browser page on the editors' listener, with what the CSP refused and what failed."""

    def __init__(self, browser, port, publishes, headers=None):
        self.port = port
        self.publishes = publishes
        self.page = browser.new_page(viewport={"width": 1400, "height": 900}, extra_http_headers=headers)
        self.refused = []
        self.errors = []
        self.page.on("pageerror", lambda error: self.errors.append(str(error)))
        self.page.on("console", lambda message: self.refused.append(message.text) if message.type == "error" and (
            "Content Security Policy" in message.text or "Trusted" in message.text) else None)

    def open(self, page_id=PAGE):
        self.page.goto("http://127.0.0.1:%d/" % (self.port + 1))
        self.page.get_by_role("link", name=SITE, exact=True).click()
        self.page.get_by_role("link", name=page_id, exact=True).click()
        expect(self.page.get_by_role("heading", name="Page %s" % page_id)).to_be_visible()

    def section(self, number, type_name):
        return self.page.get_by_role("region", name="Section %d: %s" % (number, type_name))

    def preview(self):
        return self.page.frame_locator('iframe[title="Preview"]')

    def save(self, confirm=None):
        """Save; answers the question `confirm` names; returns the publish status's text."""
        status = self.page.get_by_role("status", name="Publish status")
        self.page.get_by_role("button", name="Save", exact=True).click()
        if confirm:
            self.page.get_by_role("dialog").get_by_role("button", name=confirm).click()
        try:
            expect(status).to_have_text(re.compile(r"^(Live in|Not live|Saved;|Not saved)"), timeout=15000)
        except AssertionError:
            check(False, "a save's outcome never came: %r" % status.text_content())
        text = status.text_content()
        version, notified, publish = (status.get_attribute(a) for a in ("data-version", "data-notified-at", "data-publish-ms"))
        published_at = self.publishes.seen.get(version) if text.startswith("Live in") else None
        if notified and publish and published_at:
            timings.append((float(publish), float(notified) - published_at * 1000))
        return text


def EditorsAuth(user):  # noqa: N802
    """The editors' sign-in as nginx's auth_request sees it: `user` for the editor's token, 401
    without it."""
    return quire_e2e.SignInService(
        lambda headers: (user, None) if headers.get("Authorization") == "Bearer editor-token" else None)


def has_editors_auth():
    result = subprocess.run([QUIRE, "watch", "--help"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    return "--editors-auth" in result.stdout


