"""The editors' dashboard (issue 47), driven in headless Chromium (Playwright, Debian's
/usr/bin/chromium) through `quire watch --serve` on a copy of pages/trex, finding controls by
role and label as an editor would:

  - the dashboard's document carries the strict CSP, and nothing in it is refused by it;
  - the text mode shows the file itself (its comments too) and goes back to the form;
  - a hero title changed in the form shows in the preview before any save; the save (asked
    first, since the form drops the file's comments) goes live, the dashboard says so, and the
    apps' listener serves the new title;
  - sections added, moved and removed reach the apps in that order;
  - a required field emptied: the field shows the message, the save is not live, the apps keep
    the last good page;
  - a save from a stale copy (the file changed on disk after opening) is refused with both texts
    and the disk keeps the other text;
  - a new page (a bad id refused before any request), an image uploaded and used;
  - publish -> dashboard told, from the publish events of the saves above;
  - with --editors-auth (when this quire has it): the same save, recorded with its user in
    state/history.jsonl.
"""
import http.client
import http.server
import json
import os
import re
import shutil
import signal
import socket
import statistics
import struct
import subprocess
import sys
import tempfile
import threading
import time
import zlib

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import quire_e2e  # noqa: E402
from quire_e2e import QUIRE, ROOT, check, poll, problems  # noqa: E402
from playwright.sync_api import sync_playwright, expect  # noqa: E402

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


def port_free(port):
    with socket.socket() as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind(("127.0.0.1", port))
            return True
        except OSError:
            return False


def free_pair():
    """A port P with P+1 also free (the editors' listener takes PORT+1)."""
    while True:
        with socket.socket() as sock:
            sock.bind(("127.0.0.1", 0))
            port = sock.getsockname()[1]
        if port < 65000 and port_free(port) and port_free(port + 1):
            return port


def get(port, path, headers=None):
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        connection.request("GET", path, headers=headers or {})
        response = connection.getresponse()
        return response.status, {k.lower(): v for k, v in response.getheaders()}, response.read()
    finally:
        connection.close()


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
    """When each version went live: `current` is polled every half millisecond, so the dashboard's
    word of a publish can be timed from the publish itself (both clocks are this machine's)."""

    def __init__(self, workspace):
        self.link = os.path.join(workspace.site_root, "current")
        self.seen = {}
        self.running = True
        threading.Thread(target=self._poll, daemon=True).start()

    def _poll(self):
        while self.running:
            try:
                version = os.readlink(self.link).rsplit("/", 1)[-1]
                self.seen.setdefault(version, time.time())
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


def check_document(port):
    status, headers, body = get(port + 1, "/dashboard/")
    policy = headers.get("content-security-policy", "")
    check(status == 200 and "script-src 'self'" in policy and "require-trusted-types-for 'script'" in policy
          and "unsafe-inline" not in policy, "/dashboard/: %d, CSP %r" % (status, policy))
    check(headers.get("x-content-type-options") == "nosniff", "/dashboard/: no X-Content-Type-Options: nosniff")
    check(b"<script>" not in body and b" style=" not in body, "/dashboard/ carries inline script or style")
    status, _, _ = get(port, "/dashboard/")
    check(status == 404, "the apps' listener serves /dashboard/ (%d)" % status)
    status, _, _ = get(port, "/api/session")
    check(status == 404, "the apps' listener serves /api/session (%d)" % status)


def check_text_mode(board, workspace, port):
    """The file itself in the editor; a broken line's diagnostic at its line; a text-mode save
    writes the text exactly (comments too); the form then shows what the text said."""
    page = board.page
    page.get_by_role("button", name="Text", exact=True).click()
    editor_text = lambda: page.evaluate("document.querySelector('.CodeMirror').CodeMirror.getValue()")  # noqa: E731
    expect(page.get_by_label("Source text")).to_be_attached()
    check(poll(lambda: "# yaml-language-server" in editor_text(), timeout=5), "text mode: the file's comment is not shown")
    # A broken line: its diagnostic is listed at its line.
    original = editor_text()
    broken = original.replace("title: Training Essentials", "title: [Training Essentials", 1)
    page.evaluate("text => document.querySelector('.CodeMirror').CodeMirror.setValue(text)", broken)
    listed = page.get_by_role("list", name="Diagnostics in the text")
    try:
        expect(listed.locator("li").first).to_have_text(re.compile(r"^\d+:\d+: error: "), timeout=5000)
    except AssertionError:
        check(False, "text mode: no diagnostic at a line and column: %r" % listed.text_content())
    edited = original.replace("subtitle: Everything", "subtitle: Typed in text mode, everything", 1)
    check(edited != original, "text mode: no hero subtitle to edit")
    page.evaluate("text => document.querySelector('.CodeMirror').CodeMirror.setValue(text)", edited)
    said = board.save()
    check(said and said.startswith("Live in"), "text-mode save: %r" % said)
    check(workspace.source() == edited, "a text-mode save did not write the text exactly")
    check(poll(lambda: (section(published(port), "hero") or {}).get("subtitle", "").startswith("Typed in text mode"), timeout=5),
          "the apps do not get the subtitle saved in text mode")
    page.get_by_role("button", name="Form", exact=True).click()
    hero = board.section(1, "hero_banner")
    check(hero.get_by_label("title", exact=True).input_value() == "Training Essentials", "form after text mode: the hero title")
    check(hero.get_by_label("subtitle", exact=True).input_value().startswith("Typed in text mode"), "form after text mode: the subtitle typed there")


def check_hero_edit(board, workspace, port):
    """The form's edit shows in the preview before the save; the save goes live."""
    title = "Range day ready"
    board.section(1, "hero_banner").get_by_label("title", exact=True).fill(title)
    drawn = board.preview().locator("#quire-content h2", has_text=title)
    try:
        expect(drawn).to_be_visible(timeout=5000)
    except AssertionError:
        check(False, "the preview did not show the new hero title before the save")
    check(section(published(port), "hero")["title"] == "Training Essentials", "the apps got the title before the save")
    check_preview_pickers(board)
    raw = board.page.get_by_role("region", name=re.compile(r"countdown_timer$")).get_by_label("Section as JSON")
    check("sale-clock" in raw.input_value(), "the section of an unknown type is not shown as its JSON: %r" % raw.input_value())
    if os.environ.get("DASHBOARD_SCREENSHOT"):
        board.page.set_viewport_size({"width": 1400, "height": 1180})
        board.page.evaluate("window.scrollTo(0, 0)")
        board.page.screenshot(path=os.environ["DASHBOARD_SCREENSHOT"])
        board.page.set_viewport_size({"width": 1400, "height": 900})
    said = board.save(confirm="Save without comments")
    check(re.match(r"Live in v\d{6}, \d+ ms after save\.", said or ""), "after the save: %r" % said)
    served = poll(lambda: (section(published(port), "hero") or {}).get("title") == title, timeout=5)
    check(served, "the apps' listener does not serve the new hero title: %r" % section(published(port), "hero"))
    source = workspace.source() or ""
    check(title in source, "the file on disk lacks the new title")
    check("countdown_timer" in source and "2030-01-01T00:00:00Z" in source, "the form save lost the section of an unknown type")
    return title


def check_preview_pickers(board):
    """The draft in another locale (its translations merged) and as an audience sees it."""
    page, preview = board.page, board.preview()
    page.get_by_label("Preview locale").select_option("fr")
    try:
        expect(preview.locator("#quire-title")).to_have_text("Boutique T.REX ARMS", timeout=5000)
    except AssertionError:
        check(False, "the preview in fr does not show the page's French title")
    page.get_by_label("Preview locale").select_option("en")
    members = preview.locator("#quire-content", has_text="Members save 10%")
    check(members.count() == 0, "the preview for everyone shows the pro-only announcement")
    page.get_by_label("Preview audience").select_option("pro")
    try:
        expect(members).to_have_count(1, timeout=5000)
    except AssertionError:
        check(False, "the preview for the pro audience lacks its announcement")
    page.get_by_label("Preview audience").select_option("(everyone)")


def check_sections(board, port):
    """Adds a divider, moves it up, removes the product grid: the apps get that order."""
    before = [s["id"] for s in published(port)["sections"]]
    page = board.page
    count = page.locator(".list-sections > section.card").count()
    page.get_by_label("New section type", exact=True).select_option("divider")
    page.get_by_role("button", name="Add section", exact=True).click()
    added = board.section(count + 1, "divider")
    expect(added).to_be_visible()
    added_id = added.get_by_label("id", exact=True).input_value()
    page.get_by_role("button", name="Duplicate section %d" % (count + 1)).click()
    copy = board.section(count + 2, "divider")
    check(copy.get_by_label("id", exact=True).input_value() == added_id + "-copy", "the duplicate's id: %r" % copy.get_by_label("id", exact=True).input_value())
    page.get_by_role("button", name="Remove section %d" % (count + 2)).click()
    check(page.locator(".list-sections > section.card").count() == count + 1, "the duplicate was not removed")
    page.get_by_role("button", name="Move section %d up" % (count + 1)).click()
    expect(board.section(count, "divider")).to_be_visible()
    grid = next(i for i, s in enumerate(page.locator(".list-sections > section.card").all()) if "product_grid" in s.get_attribute("aria-label"))
    page.get_by_role("button", name="Remove section %d" % (grid + 1)).click()
    said = board.save()
    check(said and said.startswith("Live in"), "sections save: %r" % said)
    expected = [i for i in before if i != "grid"]
    expected.insert(len(expected) - 1, added_id)
    after = poll(lambda: [s["id"] for s in published(port)["sections"]] == expected and expected, timeout=5)
    check(after, "sections after add/move/remove: %r, want %r" % ([s["id"] for s in published(port)["sections"]], expected))


def check_error_save(board, port, good_title):
    """A required field emptied: shown at the field; not live; the apps keep the last good page."""
    title = board.section(1, "hero_banner").get_by_label("title", exact=True)
    title.fill("")
    try:
        expect(title).to_have_attribute("aria-invalid", "true", timeout=5000)
        expect(board.section(1, "hero_banner").locator(".field-message")).to_contain_text("must not be empty")
    except AssertionError:
        check(False, "the emptied hero title shows no message at its field")
    said = board.save()
    check(said and said.startswith("Not live"), "a save with an error: %r" % said)
    time.sleep(0.3)
    check(section(published(port), "hero")["title"] == good_title, "the apps lost the last good page: %r" % section(published(port), "hero"))
    title.fill(good_title)
    said = board.save()
    # The last good page had this title: the fix publishes nothing new, and says so.
    check(said and (said.startswith("Live in") or said.startswith("Saved; nothing changed")), "the save that fixes it: %r" % said)
    try:
        expect(title).not_to_have_attribute("aria-invalid", "true", timeout=5000)
    except AssertionError:
        check(False, "the fixed hero title is still marked invalid")


def check_conflict(board, workspace):
    """The file changes on disk after the page was opened: the save is refused, nothing written."""
    board.open()
    theirs = workspace.source().replace("subtitle: ", "subtitle: Changed on disk %s. " % NONCE, 1)
    check("Changed on disk" in theirs, "conflict: no subtitle to change in the source")
    workspace.write(PAGE + ".yaml", theirs)
    board.section(1, "hero_banner").get_by_label("alt", exact=True).fill("Edited in a stale tab")
    board.page.get_by_role("button", name="Save", exact=True).click()
    dialog = board.page.get_by_role("dialog")
    try:
        expect(dialog).to_contain_text("changed on disk", timeout=5000)
        check("Changed on disk %s" % NONCE in dialog.get_by_label("Text on disk").input_value(), "conflict: the disk's text is not shown")
        check("Edited in a stale tab" in dialog.get_by_label("Your text").input_value(), "conflict: the draft's text is not shown")
        dialog.get_by_role("button", name="Keep my draft").click()
    except AssertionError:
        check(False, "a stale save was not refused with both texts shown")
    time.sleep(0.3)
    check(workspace.source() == theirs, "the stale save overwrote the file on disk")


def check_new_page(board, port):
    page = board.page
    # The stale draft of the conflict is still unsaved: leaving asks first.
    page.get_by_role("navigation", name="Breadcrumbs").get_by_role("link", name=SITE, exact=True).click()
    page.get_by_role("dialog").get_by_role("button", name="Leave").click()
    page.get_by_role("link", name="New page").click()
    page.get_by_label("Page id").fill("Not An Id")
    page.get_by_role("button", name="Create page").click()
    check(page.get_by_label("Page id").get_attribute("aria-invalid") == "true", "a bad page id was not refused in the form")
    new_id = "guides/dash-%s" % NONCE
    page.get_by_label("Page id").fill(new_id)
    page.get_by_label("sections of these types").check()
    page.get_by_label("markdown_block").check()
    page.get_by_role("button", name="Create page").click()
    expect(page.get_by_role("heading", name="Page %s" % new_id)).to_be_visible(timeout=10000)
    page.get_by_role("group", name="Page").get_by_label("title", exact=True).fill("Made in the dashboard")
    page.get_by_role("region", name="Section 1: markdown_block").get_by_label("body", exact=True).fill("Written **here**.")
    said = board.save()
    check(said and said.startswith("Live in"), "new page save: %r" % said)
    made = poll(lambda: published(port, new_id), timeout=5)
    check(made and made.get("title") == "Made in the dashboard", "the new page is not served: %r" % made)
    page.get_by_role("button", name="Delete page").click()
    page.get_by_role("dialog").get_by_role("button", name="Delete page").click()
    expect(page.get_by_role("heading", name="Pages of %s" % SITE)).to_be_visible()
    check(poll(lambda: published(port, new_id) is None, timeout=5), "the deleted page is still served to apps")


def check_upload(board, workspace, port):
    board.open()
    image = png()
    name = "dash-%s.png" % NONCE
    board.page.get_by_label("Upload image").set_input_files(files=[{"name": name, "mimeType": "image/png", "buffer": image}])
    expect(board.page.get_by_role("status", name="Publish status")).to_contain_text("Uploaded /assets/%s" % name, timeout=10000)
    with open(os.path.join(workspace.site_dir, "assets", name), "rb") as handle:
        check(handle.read() == image, "the uploaded image differs on disk")
    board.section(1, "hero_banner").get_by_label("image_url", exact=True).select_option("/assets/" + name)
    said = board.save()
    check(said and said.startswith("Live in"), "save with the uploaded image: %r" % said)
    check(poll(lambda: (section(published(port), "hero") or {}).get("image_url") == "/assets/" + name, timeout=5),
          "the hero does not use the uploaded image: %r" % section(published(port), "hero"))
    status, _, body = get(port, "/%s/current/assets/%s" % (SITE, name))
    check(status == 200 and body == image, "the uploaded image is not served by the apps' listener (%d)" % status)


class EditorsAuth:
    """The editors' sign-in as nginx's auth_request sees it: 200 with X-Auth-Request-User for the
    editor's token, 401 without it."""

    def __init__(self, user):
        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self):
                signed_in = self.headers.get("Authorization") == "Bearer editor-token"
                self.send_response(200 if signed_in else 401)
                if signed_in:
                    self.send_header("X-Auth-Request-User", user)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = "http://127.0.0.1:%d/auth" % self.server.server_address[1]
        threading.Thread(target=self.server.serve_forever, daemon=True).start()


def has_editors_auth():
    result = subprocess.run([QUIRE, "watch", "--help"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    return "--editors-auth" in result.stdout


def check_editors_auth(playwright, workspace):
    """Behind --editors-auth: refused without the sign-in; with it, a save is recorded with its user."""
    user = "editor-%s" % NONCE
    auth = EditorsAuth(user)
    try:
        watcher, port = start_watcher(workspace, ["--editors-auth", auth.url], dashboard_headers={"Authorization": "Bearer editor-token"})
        status, _, _ = get(port + 1, "/dashboard/")
        check(status == 401, "--editors-auth: /dashboard/ without the sign-in answered %d, want 401" % status)
        status, _, _ = get(port + 1, "/api/session")
        check(status == 401, "--editors-auth: /api/session without the sign-in answered %d, want 401" % status)
        browser = playwright.chromium.launch(executable_path="/usr/bin/chromium", args=["--no-sandbox"])
        board = Dashboard(browser, port, Publishes(workspace), headers={"Authorization": "Bearer editor-token"})
        board.open()
        expect(board.page.locator("#user")).to_have_text("signed in as %s" % user)
        title = "Signed-in edit %s" % NONCE
        board.section(1, "hero_banner").get_by_label("title", exact=True).fill(title)
        said = board.save()
        check(said and said.startswith("Live in"), "--editors-auth: the save: %r" % said)
        check(poll(lambda: (section(published(port), "hero") or {}).get("title") == title, timeout=5),
              "--editors-auth: the apps do not get the saved title")
        history = os.path.join(workspace.site_root, "state", "history.jsonl")
        entries = [json.loads(line) for line in (quire_e2e.read(history) or "").splitlines() if line.strip()]
        check(entries and entries[-1].get("user") == user, "--editors-auth: the last publish in history.jsonl has user %r, want %r" % (
            entries[-1].get("user") if entries else None, user))
        browser.close()
        watcher.process.send_signal(signal.SIGTERM)
        watcher.process.wait(20)
    finally:
        auth.server.shutdown()


def main():
    started = time.time()
    workspace = Workspace()
    try:
        watcher, port = start_watcher(workspace)
        check_document(port)
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path="/usr/bin/chromium", args=["--no-sandbox"])
            publishes = Publishes(workspace)
            board = Dashboard(browser, port, publishes)
            board.open()
            check_text_mode(board, workspace, port)
            title = check_hero_edit(board, workspace, port)
            check_sections(board, port)
            check_error_save(board, port, title)
            check_conflict(board, workspace)
            check_new_page(board, port)
            check_upload(board, workspace, port)
            check(not board.refused, "the CSP refused: %r" % board.refused[:3])
            check(not board.errors, "the dashboard's script failed: %r" % board.errors[:3])
            publishes.stop()
            browser.close()
            watcher.process.send_signal(signal.SIGTERM)
            watcher.process.wait(20)
            if has_editors_auth():
                check_editors_auth(playwright, workspace)
            else:
                print("dashboard: skipped the --editors-auth flows: this quire has no --editors-auth", flush=True)
        if timings:
            told = [t for _, t in timings]
            print("dashboard: %d saves live; save -> publish p50 %.1f ms; publish -> dashboard told p50 %.1f ms (max %.1f)" % (
                len(timings), statistics.median(p for p, _ in timings), statistics.median(told), max(told)), flush=True)
        else:
            check(False, "no save reported its publish times")
    finally:
        for each in STARTED:
            if each.process.poll() is None:
                each.process.send_signal(signal.SIGTERM)
                each.process.wait(20)
    print("dashboard: %d check(s) failed, %.1f s" % (len(problems), time.time() - started) if problems
          else "dashboard: ok, %.1f s" % (time.time() - started), flush=True)
    if problems:
        raise SystemExit("FAIL: the dashboard (workspace kept at %s)" % workspace.path)
    shutil.rmtree(workspace.path, ignore_errors=True)


if __name__ == "__main__":
    main()
