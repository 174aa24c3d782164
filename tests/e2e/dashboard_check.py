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
  - publish -> dashboard told, from the publish events of the saves above, and publish ->
    published preview redrawn (pushed by the event stream, not polled);
  - with --editors-auth (when this quire has it): the same save, recorded with its user in
    state/history.jsonl.
"""
import json
import os
import re
import shutil
import signal
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import quire_e2e  # noqa: E402
from quire_e2e import check, get, poll, problems  # noqa: E402
from dashboard_e2e import (  # noqa: E402
    NONCE, PAGE, SITE, STARTED, Dashboard, EditorsAuth, Publishes, Workspace, has_editors_auth, png, published, section,
    start_watcher, timings)
from playwright.sync_api import sync_playwright, expect  # noqa: E402

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
    unnamed = board.page.evaluate("""() => [...document.querySelectorAll('input, select, textarea, button')]
        .filter((e) => e.offsetParent !== null && !(e.labels && e.labels.length) && !e.getAttribute('aria-label')
            && !(e.tagName === 'BUTTON' && e.textContent.trim()))
        .map((e) => e.outerHTML.slice(0, 80))""")
    check(not unnamed, "controls without an accessible name: %r" % unnamed[:5])
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
    french = page.get_by_label("Preview locale").locator("option[value=fr]")
    try:
        expect(french).to_have_text(re.compile(r"^fr \(\d+% translated\)$"), timeout=5000)
    except AssertionError:
        check(False, "the locale picker does not say how much of the page fr translates: %r" % french.text_content())
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


def check_preview_pushed(browser, port, workspace, publishes):
    """A published preview on the editors' listener learns of a publish from the event stream,
    not its 1.5 s poll: with its timers of a second or more slowed a hundredfold (the poll every
    150 s), each save (here a text editor's) is still redrawn soon after it goes live."""
    page = browser.new_page()
    page.add_init_script("""(() => {
        const original = window.setTimeout;
        window.setTimeout = (callback, delay, ...rest) => original(callback, delay >= 1000 ? delay * 100 : delay, ...rest);
    })()""")
    # The stream answers once the service has subscribed it: no publish after that is missed.
    streams = []
    page.on("response", lambda response: streams.append(response.url) if response.url.endswith("/api/events") else None)
    page.goto("http://127.0.0.1:%d/%s/current/preview/en/%s.html" % (port + 1, SITE, PAGE))
    expect(page.locator("html[data-drawn]")).to_have_count(1, timeout=10000)
    check(poll(lambda: page.wait_for_timeout(20) or streams, timeout=10), "the published preview did not open the event stream")
    page.evaluate("""() => {
        window.drawnAt = {};
        new MutationObserver(() => {
            window.drawnAt[document.documentElement.getAttribute('data-drawn')] = performance.timeOrigin + performance.now();
        }).observe(document.documentElement, { attributes: true, attributeFilter: ['data-drawn'] });
    }""")
    delays = []
    for round in range(3):
        time.sleep(0.3 + 0.25 * round)
        text = workspace.source()
        workspace.write(PAGE + ".yaml", text.replace("title: ", "title: Again ", 1))
        drawn = poll(lambda: [(v, at) for v, at in page.evaluate("window.drawnAt").items() if v in publishes.seen
                              and publishes.seen[v] * 1000 <= at + 5 and v not in [d[0] for d in delays]], timeout=5)
        if check(drawn, "the published preview was not redrawn within 5 s of a save (its poll slowed to 150 s): no push"):
            version, at = drawn[0]
            delays.append((version, at - publishes.seen[version] * 1000))
    page.close()
    if delays:
        told = sorted(d for _, d in delays)
        print("dashboard: publish -> published preview redrawn: %s ms" % ", ".join("%.0f" % d for d in told), flush=True)


def check_conflict(board, workspace):
    """The file changes on disk after the page was opened: the save is refused, nothing written."""
    board.open()
    theirs = workspace.source().replace("subtitle: ", "subtitle: Changed on disk %s. " % NONCE, 1)
    check("Changed on disk" in theirs, "conflict: no subtitle to change in the source")
    workspace.write(PAGE + ".yaml", theirs)
    try:
        expect(board.page.get_by_role("status", name="Publish status")).to_contain_text("changed elsewhere", timeout=5000)
    except AssertionError:
        check(False, "the editor did not say that its page changed on disk and went live")
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


def page_states(port):
    """Each page's state in the dashboard's page list, as the watcher's last build left it."""
    status, _, body = get(port + 1, "/api/sites/%s/pages" % SITE)
    return {p["id"]: p["state"] for p in json.loads(body)} if status == 200 else {}


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
    # The creation's own build (it fails: the new section's body is empty) is not news to the
    # editor; waited for, so that its event cannot come after the save below is sent.
    created = poll(lambda: page_states(port).get(new_id) == "failing", timeout=30)
    check(created, "the new page's build is not in the page list")
    page.wait_for_timeout(300)
    check("changed elsewhere" not in (page.get_by_role("status", name="Publish status").text_content() or ""),
          "the new page's editor took its own creation for a change made elsewhere")
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
            check_preview_pushed(browser, port, workspace, publishes)
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
