#!/usr/bin/env python3
"""The dashboard for localization teams and ops, with roles (issue 51), through
`quire watch --serve --editors-auth` and a sign-in service naming users and their groups:

  - the translators' coverage page: "Loading…" while it loads, the pages that need work first,
    a window of rows at a time, a page found by its id;
  - a translator fills a missing German string, sees the German preview change, then the German
    page on the apps' listener; a stale string shows the word diff of its source; dropping a
    placeholder is refused at the string and nothing is written;
  - an XLIFF export downloaded and re-uploaded translated publishes; that XLIFF file, edited in
    one string in the browser, still passes translate-toolkit's xliff2po and differs only there;
  - an ops user rolls back with a reason: the apps' listener serves the older page and the history
    names the user; an editor's request to roll back is refused (403).
"""
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import quire_e2e  # noqa: E402
from quire_e2e import check, poll, problems  # noqa: E402
from dashboard_check import Workspace, start_watcher, get, SITE, STARTED  # noqa: E402
from playwright.sync_api import sync_playwright, expect  # noqa: E402

PAGE = "trex-store"
GUIDE = "guides/church-security"
GROUPS = {"tina": "l10n-de", "otto": "oncall", "eddie": "writers"}
OLD_SUBTITLE = "Everything you need for your next range day"
NEW_SUBTITLE = "Everything you need for your next training day"
OLD_TITLE = "title: Training Essentials"
NEW_TITLE = "title: Training Essentials for {count} shooters"
CATALOG = 120
PAGE_TEXT = "title: %s\nsections:\n  - type: markdown_block\n    id: body\n    body: %s\n"


def signed_in_user(headers):
    """`Authorization: Bearer <user>`, or the browser's cookie `signed_in=<user>` (what a
    download sends), names a user of GROUPS."""
    token = headers.get("Authorization", "")
    user = token[len("Bearer "):] if token.startswith("Bearer ") else ""
    cookie = re.search(r"(?:^|;\s*)signed_in=([a-z]+)", headers.get("Cookie", ""))
    user = user or (cookie.group(1) if cookie else "")
    return (user, "staff," + GROUPS[user]) if user in GROUPS else None


def prepare(workspace):
    """German joins the site, with roles; the German translation has one stale string."""
    site_yaml = os.path.join(workspace.site_dir, "site.yaml")
    text = quire_e2e.read(site_yaml).replace("locales: [en, fr, es, fr-CA]", "locales: [en, fr, es, fr-CA, de]")
    check("de]" in text, "site.yaml: no locales line to add German to")
    text += "dashboard:\n  editors: [writers]\n  translators: [l10n-de]\n  ops: [oncall]\n"
    workspace.write("site.yaml", text)
    source = workspace.source().replace("subtitle: " + OLD_SUBTITLE, "subtitle: " + NEW_SUBTITLE, 1).replace(OLD_TITLE, NEW_TITLE, 1)
    check(NEW_SUBTITLE in source and NEW_TITLE in source, "the page source has no hero title and subtitle to change")
    workspace.write(PAGE + ".yaml", source)
    os.makedirs(os.path.join(workspace.site_dir, "l10n", "de"))
    workspace.write("l10n/de/%s.yaml" % PAGE, "hero.subtitle:\n  text: Alles für den nächsten Tag am Stand\n  source: %s\n" % OLD_SUBTITLE)
    # More pages than a window of the translators' table holds, all untranslated, and one page
    # translated into every locale: work the table shows first, and a page with none.
    os.makedirs(os.path.join(workspace.site_dir, "catalog"))
    for number in range(CATALOG):
        workspace.write("catalog/item-%03d.yaml" % number, PAGE_TEXT % ("Item %d" % number, "Item %d in stock." % number))
    workspace.write("contact.yaml", PAGE_TEXT % ("Contact", "Write to us."))
    for locale in ("fr", "es", "fr-CA", "de"):
        workspace.write("l10n/%s/contact.yaml" % locale, "title: Kontakt (%s)\nbody.body: Schreiben Sie uns.\n" % locale)


def apps(port, page, locale="de"):
    status, _, body = get(port, "/%s/current/%s/%s.json" % (SITE, locale, page))
    return json.loads(body) if status == 200 else None


def hero(page):
    return next((s for s in (page or {}).get("sections", []) if s.get("id") == "hero"), {})


def history(workspace):
    text = quire_e2e.read(os.path.join(workspace.site_root, "state", "history.jsonl")) or ""
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def open_as(browser, port, user):
    context = browser.new_context(viewport={"width": 1400, "height": 900}, accept_downloads=True)
    context.add_cookies([{"name": "signed_in", "value": user, "url": "http://127.0.0.1:%d/" % (port + 1)}])
    page = context.new_page()
    page.errors = []
    page.on("pageerror", lambda error: page.errors.append(str(error)))
    page.goto("http://127.0.0.1:%d/dashboard/" % (port + 1))
    expect(page.locator("#user")).to_have_text("signed in as %s" % user)
    return page


def goto(page, port, fragment):
    """A fresh load of the view (a change of the hash alone would keep the last view's state)."""
    page.goto("about:blank")
    page.goto("http://127.0.0.1:%d/dashboard/#/%s" % (port + 1, fragment))


def string_row(page, key):
    return page.locator('.string[data-key="%s"]' % key)


def check_coverage_pages(page):
    """The pages that need work, a window of rows at a time; a page is found by its id; the
    page translated into every locale shows only when all pages are asked for."""
    pages = page.get_by_role("table", name="Translations of %s's pages" % SITE)
    needing = CATALOG + 3  # the catalog, the guides and the store: German has none of them whole
    expect(page.get_by_role("status").filter(has_text="pages shown")).to_have_text(
        "%d of %d pages shown; %d need work" % (needing, needing + 1, needing))
    expect(pages).to_have_attribute("aria-rowcount", str(needing + 1))
    drawn = pages.locator("tbody tr:not(.spacer)").count()
    check(0 < drawn < needing, "the table drew %d of %d rows: not a window" % (drawn, needing))
    expect(pages.get_by_role("link", name="Translate contact into de")).to_have_count(0)
    expect(pages.get_by_role("link", name="Translate catalog/item-000 into de")).to_have_text("2 missing, 2 falling back")
    # The last rows are drawn once scrolled to.
    pages.locator("xpath=..").evaluate("(box) => { box.scrollTop = box.scrollHeight; }")
    expect(pages.get_by_role("link", name="Translate %s into fr-CA" % PAGE)).to_be_visible()
    page.get_by_label("Only pages that need work").uncheck()
    expect(pages).to_have_attribute("aria-rowcount", str(needing + 2))
    page.get_by_label("Find a page").fill("contact")
    expect(pages.locator("tbody tr:not(.spacer)")).to_have_count(1)
    expect(pages.get_by_role("link", name="Translate contact into de")).to_have_text("translated")
    page.get_by_label("Find a page").fill("item-11")
    expect(pages.locator("tbody tr:not(.spacer)")).to_have_count(10)
    page.get_by_label("Only pages that need work").check()


def check_translator(page, workspace, port):
    # While the site's translations load, the dashboard says so (held here until it has).
    held = []
    page.route("**/api/sites/%s/l10n" % SITE, lambda route: held.append(route))
    goto(page, port, "sites/%s/l10n" % SITE)
    loading = page.get_by_role("status").filter(has_text="Loading")
    expect(loading).to_be_visible()
    check(len(held) == 1, "the translations' request was not held: %d" % len(held))
    held[0].continue_()
    page.unroute("**/api/sites/%s/l10n" % SITE)
    expect(loading).to_be_hidden()
    coverage = page.get_by_role("table", name="Coverage of %s" % SITE)
    expect(coverage.get_by_role("row", name=re.compile(r"^de ")).get_by_role("cell").last).to_have_text("de → en")
    check_coverage_pages(page)
    page.get_by_label("Find a page").fill(PAGE)
    page.get_by_role("link", name="Translate %s into de" % PAGE).click()
    expect(page.get_by_role("heading", name="%s in de" % PAGE)).to_be_visible()
    # The stale string shows what its source said when translated and what it says now.
    diff = page.get_by_label("Source change of hero.subtitle")
    expect(diff.locator("del")).to_have_text("range")
    expect(diff.locator("ins")).to_have_text("training")
    # A translation that drops the placeholder is refused at its string; nothing is written.
    before = workspace.source("l10n/de/%s.yaml" % PAGE)
    page.get_by_label("Translation of hero.title").fill("Das Wesentliche für Schützen")
    page.get_by_role("button", name="Save translations").click()
    problem = string_row(page, "hero.title").locator(".string-error")
    expect(problem).to_contain_text("{count}", timeout=10000)
    check(workspace.source("l10n/de/%s.yaml" % PAGE) == before, "a translation without its placeholder was written")
    # The chip puts the placeholder back.
    # A missing string, filled (the chip puts the placeholder in): the German preview changes
    # before the save, the apps after it.
    title = "Das Wesentliche für {count} Schützen"
    area = page.get_by_label("Translation of hero.title")
    area.fill("Das Wesentliche für  Schützen")
    area.evaluate("(a) => a.setSelectionRange(20, 20)")
    page.get_by_role("button", name="Insert {count}").click()
    check(area.input_value() == title, "the chip did not insert its code: %r" % area.input_value())
    # A Backspace after the placeholder does not break it; selected whole, it can be cut.
    area.evaluate("(a) => a.setSelectionRange(27, 27)")
    area.press("Backspace")
    check(area.input_value() == title, "a Backspace broke the protected placeholder: %r" % area.input_value())
    page.get_by_label("Translation of hero.subtitle").fill("Alles für den nächsten Trainingstag")
    frame = page.frame_locator("iframe[title=Preview]")
    expect(frame.locator("#quire-content")).to_contain_text(title, timeout=10000)
    check(hero(apps(port, PAGE)).get("title") != title, "the apps had the German title before the save")
    page.get_by_role("button", name="Save translations").click()
    expect(page.get_by_role("status", name="Publish status")).to_contain_text("Live in", timeout=15000)
    served = poll(lambda: hero(apps(port, PAGE)).get("title") == title, timeout=5)
    check(served, "the apps' listener does not serve the German title: %r" % hero(apps(port, PAGE)))
    check(hero(apps(port, PAGE)).get("subtitle") == "Alles für den nächsten Trainingstag", "the German subtitle: %r" % hero(apps(port, PAGE)))
    entries = history(workspace)
    check(entries and entries[-1].get("user") == "tina", "the translator's publish is not hers in the history: %r" % entries[-1:])
    return title


def check_xliff_exchange(page, workspace, port):
    """Export XLIFF 1.2, translate it as a tool would (targets beside sources), upload it back."""
    goto(page, port, "sites/%s/l10n/de/%s" % (SITE, GUIDE))
    expect(page.get_by_role("heading", name="%s in de" % GUIDE)).to_be_visible()
    page.get_by_label("Format").select_option("xliff12")
    with page.expect_download() as download:
        page.get_by_role("link", name="Export").click()
    check(download.value.suggested_filename == "guides-church-security.de.xlf", "the export's name: %r" % download.value.suggested_filename)
    exported = open(download.value.path(), encoding="utf-8").read()
    check('target-language="de"' in exported and "<trans-unit" in exported, "the export is not XLIFF 1.2 for de: %r" % exported[:200])

    def translate(match):
        return "%s\n        <target state=\"translated\">DE %s</target>" % (match.group(0), match.group(1))
    translated = re.sub(r"<source>(.*?)</source>", translate, exported, flags=re.S)
    page.get_by_label("Translated file").set_input_files(files=[{"name": "church-security.xlf", "mimeType": "application/xliff+xml", "buffer": translated.encode()}])
    page.get_by_role("button", name="Import").click()
    expect(page.get_by_role("status", name="Import result")).to_contain_text("Imported", timeout=10000)
    served = poll(lambda: (apps(port, GUIDE) or {}).get("title", "").startswith("DE "), timeout=10)
    check(served, "the imported German guide is not served: %r" % (apps(port, GUIDE) or {}).get("title"))
    return "l10n/de/%s.xlf" % GUIDE


def xliff2po(text):
    folder = tempfile.mkdtemp(prefix="quire-xliff2po-")
    try:
        with open(os.path.join(folder, "in.xlf"), "w", encoding="utf-8") as handle:
            handle.write(text)
        result = subprocess.run(["xliff2po", os.path.join(folder, "in.xlf"), os.path.join(folder, "out.po")], capture_output=True, text=True)
        check(result.returncode == 0, "xliff2po refused the file: %s" % result.stderr[-400:])
        return quire_e2e.read(os.path.join(folder, "out.po")) or ""
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def check_round_trip(page, workspace, port, relative):
    """The uploaded XLIFF file, edited in one string in the browser: only that string differs."""
    before = workspace.source(relative)
    goto(page, port, "sites/%s/l10n/de/%s" % (SITE, GUIDE))
    page.reload()
    expect(page.get_by_text("File: %s" % relative)).to_be_visible()
    page.get_by_label("Show").select_option("all")
    edited = "Die Gemeinde schützen & stärken"
    page.get_by_label("Translation of hero.title").fill(edited)
    page.get_by_role("button", name="Save translations").click()
    expect(page.get_by_role("status", name="Publish status")).to_contain_text("Live in", timeout=15000)
    after = workspace.source(relative)
    changed = [(a, b) for a, b in zip(before.splitlines(), after.splitlines()) if a != b]
    check(len(before.splitlines()) == len(after.splitlines()) and len(changed) == 1 and "Die Gemeinde schützen &amp; stärken" in changed[0][1],
          "the browser edit changed more than its string: %r" % changed[:4])
    po_before, po_after = xliff2po(before), xliff2po(after)
    po_changed = [line for line in set(po_after.splitlines()) - set(po_before.splitlines())]
    check(po_changed == ['msgstr "Die Gemeinde schützen & stärken"'], "xliff2po of the edited file differs in more than the string: %r" % po_changed)


def refused_page_save(page, workspace, port):
    """A translator's request to save a page is refused by the service (403), and the editor's
    controls are hidden from her."""
    before = workspace.source()
    status = page.evaluate("""async ([site, id]) => {
        const session = await (await fetch('/api/session')).json();
        const opened = await (await fetch(`/api/sites/${site}/pages/${id}`)).json();
        const answer = await fetch(`/api/sites/${site}/pages/${id}`, {method: 'PUT', headers: {'X-Quire-Token': session.token, 'Content-Type': 'application/json'},
            body: JSON.stringify({base: opened.base, text: 'title: not hers'})});
        return answer.status;
    }""", [SITE, PAGE])
    check(status == 403, "a translator's page save answered %d, want 403" % status)
    check(workspace.source() == before, "a translator's refused page save changed the page")
    goto(page, port, "sites/%s/pages/%s" % (SITE, PAGE))
    expect(page.get_by_role("heading", name="Page %s" % PAGE)).to_be_visible()
    expect(page.get_by_role("button", name="Save", exact=True)).to_be_hidden()
    expect(page.get_by_role("button", name="Delete page")).to_be_hidden()


def check_ops(otto, eddie, workspace, port, german_title):
    current = os.readlink(os.path.join(workspace.site_root, "current")).rsplit("/", 1)[-1]
    entries = history(workspace)
    before_german = next(e["to"] for e in reversed(entries) if e["action"] == "publish" and e.get("user") != "tina" and e["to"] < current
                         and not any(x.get("user") == "tina" and x["to"] <= e["to"] for x in entries if x["action"] == "publish"))
    # An editor's request to roll back is refused by the service, whatever the page shows.
    goto(eddie, port, "sites/%s/ops" % SITE)
    expect(eddie.get_by_role("table", name="Versions of %s" % SITE)).to_be_visible()
    check(eddie.get_by_role("button", name="Roll back to %s" % before_german).count() == 0, "an editor is offered a rollback")
    status = eddie.evaluate("""async ([site, version]) => {
        const session = await (await fetch('/api/session')).json();
        const answer = await fetch(`/api/sites/${site}/ops/rollback`, {method: 'POST', headers: {'X-Quire-Token': session.token, 'Content-Type': 'application/json'},
            body: JSON.stringify({version, reason: 'not mine to do'})});
        return answer.status;
    }""", [SITE, before_german])
    check(status == 403, "an editor's rollback answered %d, want 403" % status)
    check(os.readlink(os.path.join(workspace.site_root, "current")).endswith(current), "the refused rollback moved current")
    # The ops user rolls back with a reason.
    goto(otto, port, "sites/%s/ops" % SITE)
    otto.get_by_role("button", name="Roll back to %s" % before_german).click()
    dialog = otto.get_by_role("dialog")
    dialog.get_by_label("Reason (required, kept in the history)").fill("German title under review")
    dialog.get_by_role("button", name="Roll back").click()
    expect(otto.locator(".ops-result")).to_contain_text("Rolled back: current is %s" % before_german, timeout=10000)
    reverted = poll(lambda: hero(apps(port, PAGE)).get("title") != german_title, timeout=5)
    check(reverted, "the apps still get the German title after the rollback: %r" % hero(apps(port, PAGE)))
    otto.get_by_label("Kind").select_option("rollback")
    row = otto.get_by_role("table", name="History of %s" % SITE).get_by_role("row").nth(1)
    expect(row).to_contain_text("otto")
    expect(row).to_contain_text("German title under review")
    last = history(workspace)[-1]
    check(last["action"] == "rollback" and last["user"] == "otto" and last["reason"] == "German title under review",
          "history.jsonl's rollback: %r" % last)


def main():
    started = time.time()
    workspace = Workspace()
    sign_in = quire_e2e.SignInService(signed_in_user)
    try:
        prepare(workspace)
        watcher, port = start_watcher(workspace, ["--editors-auth", sign_in.url], dashboard_headers={"Authorization": "Bearer tina"})
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path="/usr/bin/chromium", args=["--no-sandbox"])
            tina = open_as(browser, port, "tina")
            title = check_translator(tina, workspace, port)
            relative = check_xliff_exchange(tina, workspace, port)
            check_round_trip(tina, workspace, port, relative)
            refused_page_save(tina, workspace, port)
            otto = open_as(browser, port, "otto")
            eddie = open_as(browser, port, "eddie")
            check_ops(otto, eddie, workspace, port, title)
            for page in (tina, otto, eddie):
                check(not page.errors, "the dashboard's script failed: %r" % page.errors[:3])
            browser.close()
        watcher.process.send_signal(signal.SIGTERM)
        watcher.process.wait(20)
    finally:
        sign_in.server.shutdown()
        for each in STARTED:
            if each.process.poll() is None:
                each.process.kill()
        shutil.rmtree(workspace.path, ignore_errors=True)
    if problems:
        print("dashboard-roles: %d problem(s)" % len(problems), file=sys.stderr)
        sys.exit(1)
    print("dashboard-roles: ok in %.1f s" % (time.time() - started))


if __name__ == "__main__":
    main()
