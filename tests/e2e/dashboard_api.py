"""The dashboard's API end to end: `quire watch --serve` on a copy of pages/trex, every request
sent to nginx's editors' listener with http.client, as a browser (or an attacker) would.

  - At least 30 hostile requests, each with its expected status and a clear `error`, and every
    file of the site (and of a folder outside it that links point to) the same after it.
  - Disk full and read-only (a small tmpfs mounted inside the site, when mount is permitted): a
    clear 507 / 503 and the file as it was.
  - The flows: read, check (the draft rendered, nothing written), save (the apps' listener serves
    it, the event stream says "published" with the save's id and milliseconds), a conflicting
    save (refused, the disk keeps the other text), create, upload, delete; the user nginx passes
    recorded in the history.
"""

import glob
import http.client
import http.server
import pwd
import stat
import tempfile
import json
import os
import re
import shutil
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import quire_e2e  # noqa: E402
from dashboard_client import Events, Service, sha, snapshot  # noqa: E402
from quire_e2e import SignIn, poll  # noqa: E402

ROOT = quire_e2e.ROOT
failures = []


def expect(condition, message):
    if not condition:
        failures.append(message)
        print("FAIL: " + message, flush=True)
    return condition


def start(workspace, options=(), site="trex", timeout=60):
    port = 18500 + os.getpid() % 500 * 2
    watcher = quire_e2e.Watcher(
        workspace, ["--site", site, "--serve", "127.0.0.1:%d" % port, "--serve-next-free"] + list(options))
    line = poll(lambda: next((l for l in watcher.since(0) if "quire: the dashboard: " in l), None), timeout=60)
    if not line:
        print("the watcher did not serve: " + watcher.tail())
        sys.exit(1)
    editors = int(re.search(r"the dashboard: http://127\.0\.0\.1:(\d+)/dashboard/", line).group(1))
    published = poll(lambda: any(re.search(site + r": (published v\d+|no changes)", l) for l in watcher.since(0)), timeout=timeout)
    expect(published, "the first publish: " + watcher.tail())
    return watcher, editors


def hostile_cases(service, site, base):
    """(what, method, path, body, send options, status)."""
    save = {"base": base, "text": "title: hacked\nsections: []\n"}
    stale = {"base": "0" * 64, "text": "title: hacked\nsections: []\n"}
    png = b"\x89PNG\r\n\x1a\n" + bytes(64)
    pages = "/api/sites/trex/pages/"
    return [
        ("dot-dot in a page id", "PUT", pages + "../site", save, {}, 400),
        ("encoded dot-dot", "PUT", pages + "%2e%2e/site", save, {}, 400),
        ("encoded slash", "PUT", pages + "guides%2frange-safety", save, {}, 400),
        ("a double slash (absolute path)", "PUT", pages + "/etc/passwd", save, {}, 400),
        ("an encoded NUL (nginx refuses it)", "GET", pages + "trex-store%00.yaml", None, {}, 400),
        ("site.yaml as a page", "PUT", pages + "site", save, {}, 400),
        ("an asset as a page", "PUT", pages + "assets/trex-banner", save, {}, 400),
        ("a translation as a page", "PUT", pages + "l10n/fr/trex-store", save, {}, 400),
        ("the drill catalog as a page", "PUT", pages + "drills", save, {}, 400),
        ("an upper-case id", "GET", pages + "TREX-store", None, {}, 400),
        ("a folder that is a symbolic link", "PUT", pages + "linked/secret", {"base": sha(b"title: secret\nsections: []\n"), "text": "x"}, {}, 403),
        ("a page that is a symbolic link", "PUT", pages + "alias", {"base": sha(b"title: secret\nsections: []\n"), "text": "x"}, {}, 403),
        ("deleting a symbolic link", "DELETE", pages + "alias?base=" + sha(b"title: secret\nsections: []\n"), None, {}, 403),
        ("creating under a symbolic link", "POST", "/api/sites/trex/pages", {"id": "linked/new"}, {}, 403),
        ("an unknown site", "PUT", "/api/sites/other/pages/home", save, {}, 404),
        ("a site name with dots", "GET", "/api/sites/..%2fetc/pages", None, {}, 400),
        ("no token", "PUT", pages + "trex-store", save, {"token": None}, 403),
        ("a wrong token", "PUT", pages + "trex-store", save, {"token": "0" * 64}, 403),
        ("a foreign Origin", "PUT", pages + "trex-store", save, {"origin": "http://evil.example"}, 403),
        ("no Origin", "PUT", pages + "trex-store", save, {"origin": None}, 403),
        ("another port's Origin", "PUT", pages + "trex-store", save, {"origin": "http://127.0.0.1:1"}, 403),
        ("a cross-site fetch", "PUT", pages + "trex-store", save, {"extra": {"Sec-Fetch-Site": "cross-site"}}, 403),
        ("a check without token", "POST", "/api/sites/trex/check", {"id": "trex-store", "text": "x"}, {"token": None}, 403),
        ("an upload without token", "POST", "/api/sites/trex/assets?name=x.png", png, {"token": None}, 403),
        ("a wrong method", "PATCH", pages + "trex-store", save, {}, 405),
        ("OPTIONS", "OPTIONS", pages + "trex-store", None, {}, 405),
        ("a body that is not JSON", "PUT", pages + "trex-store", "title: x", {}, 400),
        ("a body that is not UTF-8", "PUT", pages + "trex-store", b'{"base": "%s", "text": "\xff\xfe"}' % base.encode(), {}, 400),
        ("a save without base", "PUT", pages + "trex-store", {"text": "x"}, {}, 400),
        ("a stale base", "PUT", pages + "trex-store", stale, {}, 409),
        ("a delete without base", "DELETE", pages + "trex-store", None, {}, 400),
        ("a stale delete", "DELETE", pages + "trex-store?base=" + "0" * 64, None, {}, 409),
        ("a page over the size limit", "PUT", pages + "trex-store", {"base": base, "text": "#" * (4 * 1024 * 1024 + 1)}, {}, 413),
        ("a body over nginx's limit (nginx refuses it)", "PUT", pages + "trex-store", "x" * (11 * 1024 * 1024), {}, 413),
        ("an existing page created", "POST", "/api/sites/trex/pages", {"id": "trex-store"}, {}, 409),
        ("a page id with a space", "POST", "/api/sites/trex/pages", {"id": "new page"}, {}, 400),
        ("an unknown section type", "POST", "/api/sites/trex/pages", {"id": "fresh", "sections": ["<script>"]}, {}, 400),
        ("an SVG upload", "POST", "/api/sites/trex/assets?name=evil.png",
         b'<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"/>', {}, 415),
        ("an HTML upload", "POST", "/api/sites/trex/assets?name=evil.jpg", b"<html><script>alert(1)</script>", {}, 415),
        ("an upload named with a path", "POST", "/api/sites/trex/assets?name=../../evil.png", png, {}, 400),
        ("an upload whose name lies", "POST", "/api/sites/trex/assets?name=photo.jpg", png, {}, 400),
        ("an upload over the limit", "POST", "/api/sites/trex/assets?name=huge.png", png + bytes(9 * 1024 * 1024), {}, 413),
        ("an existing asset", "POST", "/api/sites/trex/assets?name=trex-banner.jpg", b"\xff\xd8\xff" + bytes(64), {}, 409),
        ("a dot-dot out of /api/ (nginx refuses it)", "GET", "/api/../trex/state/history.jsonl", None, {}, 404),
        ("an unknown route", "GET", "/api/secrets", None, {}, 404),
    ]


def check_socket(watcher):
    """The service's socket: in nginx's folder, 0600 in a 0700 folder, both the workers' (www-data when root)."""
    folders = [os.path.dirname(p) for p in glob.glob(os.path.join(tempfile.gettempdir(), "quire-nginx-*", "watcher.pid"))
               if open(p).read().strip() == str(watcher.process.pid)]
    if not expect(len(folders) == 1, "nginx's folder of this watcher: %r" % folders):
        return
    socket_path = os.path.join(folders[0], "dashboard", "scgi.sock")
    info, folder = os.lstat(socket_path), os.lstat(os.path.dirname(socket_path))
    owner = os.geteuid()
    if owner == 0:  # nginx's workers run as www-data, or nobody where there is none
        names = {entry.pw_name: entry.pw_uid for entry in pwd.getpwall()}
        owner = names.get("www-data", names.get("nobody"))
    expect(stat.S_ISSOCK(info.st_mode) and stat.S_IMODE(info.st_mode) == 0o600 and info.st_uid == owner,
           "the socket: mode %o, owner %d (expected 600, %d)" % (info.st_mode, info.st_uid, owner))
    expect(stat.S_IMODE(folder.st_mode) == 0o700 and folder.st_uid == owner,
           "the socket's folder: mode %o, owner %d" % (folder.st_mode, folder.st_uid))


def check_hostile(service, workspace, outside):
    site = os.path.join(workspace.pages, "trex")
    with open(os.path.join(site, "trex-store.yaml"), "rb") as handle:
        base = sha(handle.read())
    cases = hostile_cases(service, site, base)
    expect(len(cases) >= 30, "only %d hostile requests" % len(cases))
    before = snapshot(site, outside)
    for what, method, path, body, options, status in cases:
        got, parsed, raw = service.send(method, path, body, **options)
        message = (parsed or {}).get("error") if isinstance(parsed, dict) else None
        expect(got == status, "%s: %s %s answered %d, expected %d (%s)" % (what, method, path[:80], got, status, raw[:200]))
        # nginx answers some itself (its own limits and path rules); the service always says why.
        if "nginx" not in what:
            expect(bool(message), "%s: no error message (%r)" % (what, raw[:200]))
        after = snapshot(site, outside)
        expect(after == before, "%s: the disk changed: %r" % (
            what, sorted(set(after.items()) ^ set(before.items()))[:4]))
    # The apps' listener never routes to the service.
    got, _, _ = service.request("GET", "/api/session", port=service.port - 1)
    expect(got == 404, "the apps' listener answered /api/session with %d" % got)
    print("dashboard-api: %d hostile requests refused, nothing changed on disk" % len(cases), flush=True)


def check_disk_errors(service, workspace):
    """A save while the disk is full, then while it is read-only: a clear 5xx, the file as it was."""
    folder = os.path.join(workspace.pages, "trex", "full")
    os.makedirs(folder)
    result = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k,mode=0755", "tmpfs", folder],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if result.returncode != 0:
        print("dashboard-api: skipped disk full and read-only: cannot mount a tmpfs here (%s)" % result.stderr.strip())
        os.rmdir(folder)
        return
    try:
        page = os.path.join(folder, "page.yaml")
        original = b"title: Full\nsections:\n  - type: divider\n    id: line\n"
        with open(page, "wb") as handle:
            handle.write(original)
        with open(os.path.join(folder, ".filler"), "wb") as handle:
            try:
                handle.write(bytes(1024 * 1024))
            except OSError:
                pass
        got, parsed, raw = service.send("PUT", "/api/sites/trex/pages/full/page", {"base": sha(original), "text": "title: Bigger\n" * 400})
        expect(got == 507 and "disk is full" in (parsed or {}).get("error", ""), "disk full: %d %s" % (got, raw[:200]))
        expect(open(page, "rb").read() == original, "disk full: the page changed")
        expect(sorted(os.listdir(folder)) == [".filler", "page.yaml"], "disk full: left %r" % os.listdir(folder))
        os.remove(os.path.join(folder, ".filler"))
        subprocess.run(["mount", "-o", "remount,ro", folder], check=True)
        got, parsed, raw = service.send("PUT", "/api/sites/trex/pages/full/page", {"base": sha(original), "text": "title: x\n"})
        expect(got == 503 and "read-only" in (parsed or {}).get("error", ""), "read-only: %d %s" % (got, raw[:200]))
        expect(open(page, "rb").read() == original, "read-only: the page changed")
        print("dashboard-api: disk full answered 507, read-only 503, the page kept", flush=True)
    finally:
        subprocess.run(["umount", folder])
        shutil.rmtree(folder, ignore_errors=True)


def check_flows(service, workspace, events, editors):
    site = os.path.join(workspace.pages, "trex")
    apps = editors - 1
    got, page, _ = service.request("GET", "/api/sites/trex/pages/trex-store")
    expect(got == 200 and page["base"] == sha(open(os.path.join(site, "trex-store.yaml"), "rb").read()), "read: %d" % got)
    coverage = page.get("coverage", {})
    expect(sorted(coverage) == ["es", "fr", "fr-CA"] and all(0 < share <= 1 for share in coverage.values()), "coverage: %r" % coverage)

    # A check renders the draft and writes nothing.
    text = page["text"].replace("title: Training Essentials", "title: Range Day Essentials")
    got, checked, _ = service.send("POST", "/api/sites/trex/check", {"id": "trex-store", "text": text})
    hero = checked["rendered"]["en"]["page"]["sections"][0] if got == 200 else {}
    expect(hero.get("title") == "Range Day Essentials", "check: the draft's hero is %r" % hero.get("title"))
    expect(open(os.path.join(site, "trex-store.yaml")).read() == page["text"], "check: the file changed")
    timings = []
    for number in range(20):
        started = time.time()
        draft = page["text"].replace("title: Training Essentials", "title: Draft %d" % number)
        got, checked, _ = service.send("POST", "/api/sites/trex/check", {"id": "trex-store", "text": draft})
        timings.append((time.time() - started) * 1000)
        expect(got == 200 and checked["rendered"]["en"]["page"]["sections"][0]["title"] == "Draft %d" % number, "check %d" % number)
    timings.sort()
    print("dashboard-api: a draft check through nginx: p50 %.1f ms, max %.1f ms (20 checks, 4 locales)" % (timings[10], timings[-1]),
          flush=True)

    # A save goes live; the stream says so with the save's id.
    started = time.time()
    got, saved, raw = service.send("PUT", "/api/sites/trex/pages/trex-store", {"base": page["base"], "text": text},
                                   extra={})
    expect(got == 200, "save: %d %s" % (got, raw[:200]))
    event = events.published(saved["save_id"]) if got == 200 else None
    told = time.time() - started
    expect(event and event["outcome"] == "published" and event["version"], "save: no published event (%r)" % events.events[-3:])
    if event:
        print("dashboard-api: save published in %s, %.1f ms after the save by the service's clock (%.0f ms round trip)" % (
            event["version"], event["saves"][0]["ms"], told * 1000), flush=True)
    got, live, _ = service.request("GET", "/trex/current/en/trex-store.json", port=apps)
    expect(got == 200 and live["sections"][0]["title"] == "Range Day Essentials", "save: the apps' listener serves %r" % (live or {}).get("sections", [{}])[0])

    # A conflicting save: the file changed on disk after it was opened.
    other = text.replace("Range Day Essentials", "Changed in a text editor")
    with open(os.path.join(site, "trex-store.yaml"), "w") as handle:
        handle.write(other)
    got, conflict, _ = service.send("PUT", "/api/sites/trex/pages/trex-store", {"base": saved["base"], "text": text + "\n"})
    expect(got == 409 and conflict.get("conflict") and conflict.get("disk_text") == other, "conflict: %d %r" % (got, conflict))
    expect(open(os.path.join(site, "trex-store.yaml")).read() == other, "conflict: the disk lost the other text")

    # Create: a blank section with its required field empty is an error at its key path, and not
    # published; a page of valid sections is.
    got, created, raw = service.send("POST", "/api/sites/trex/pages", {"id": "events/draft", "sections": ["markdown_block"]})
    expect(got == 201, "create: %d %s" % (got, raw[:200]))
    if got == 201:
        event = events.published(created["save_id"])
        errors = [d for d in (event or {}).get("diagnostics", []) if d["severity"] == "error"]
        expect(errors and errors[0]["key_path"] == "sections[0].body" and errors[0]["page"] == "events/draft",
               "create: the blank section's error: %r" % event)
    got, created, raw = service.send("POST", "/api/sites/trex/pages", {"id": "events/spring", "sections": ["divider"]})
    expect(got == 201, "create: %d %s" % (got, raw[:200]))
    if got == 201:
        event = events.published(created["save_id"])
        expect(event and event["outcome"] == "published" and "events/spring" in event["pages"], "create: not published (%r)" % event)
    served = poll(lambda: service.request("GET", "/trex/current/en/events/spring.json", port=apps)[0] == 200, timeout=20)
    expect(served, "create: the apps' listener does not serve the new page")

    # Upload an image and use it.
    png = open(os.path.join(ROOT, "docs", "dashboard.png"), "rb").read() if os.path.exists(os.path.join(ROOT, "docs", "dashboard.png")) \
        else b"\x89PNG\r\n\x1a\n" + bytes(64)
    got, uploaded, raw = service.send("POST", "/api/sites/trex/assets?name=badge.png", png)
    expect(got == 201 and uploaded["path"] == "/assets/badge.png", "upload: %d %s" % (got, raw[:200]))
    got, assets, _ = service.request("GET", "/api/sites/trex/assets")
    expect(any(a["path"] == "/assets/badge.png" and a["type"] == "image/png" for a in assets or []), "upload: not listed")
    served = poll(lambda: service.request("GET", "/trex/current/assets/badge.png", port=apps)[0] == 200, timeout=20)
    expect(served, "upload: the apps' listener does not serve the image")

    # Delete with the base it was opened with.
    got, page, _ = service.request("GET", "/api/sites/trex/pages/events/spring")
    got, deleted, raw = service.send("DELETE", "/api/sites/trex/pages/events/spring?base=" + page["base"])
    expect(got == 200 and not os.path.exists(os.path.join(site, "events", "spring.yaml")), "delete: %d %s" % (got, raw[:200]))
    if got == 200:
        event = events.published(deleted["save_id"])
        expect(event and event["outcome"] == "published", "delete: no publish (%r)" % event)
    gone = poll(lambda: service.request("GET", "/trex/current/en/events/spring.json", port=apps)[0] == 404, timeout=20)
    expect(gone, "delete: the apps' listener still serves the page")

    # The page list and schema answer for the site as it now is.
    got, pages, _ = service.request("GET", "/api/sites/trex/pages")
    expect(got == 200 and [p["id"] for p in pages] == ["events/draft", "guides/church-security", "guides/range-safety", "trex-store"],
           "pages: %r" % pages)
    states = {p["id"]: p["state"] for p in pages or []}
    expect(states.get("events/draft") == "failing" and states.get("trex-store") == "live", "pages: states %r" % states)
    got, schema, _ = service.request("GET", "/api/sites/trex/schema")
    expect(got == 200 and "hero_banner" in [t["name"] for t in schema["types"]] and "/assets/badge.png" in schema["assets"],
           "schema: %r" % (schema or {}).get("assets"))


def check_signed_in(workspace):
    """Under --editors-auth: nothing without a session; a save by alice is published as alice's."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), SignIn)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    watcher, editors = start(workspace, ["--editors-auth", "http://127.0.0.1:%d/auth" % server.server_port])
    try:
        service = Service(editors)
        got, _, _ = service.request("GET", "/api/session")
        expect(got == 401, "signed out: /api/session answered %d" % got)
        cookie = {"Cookie": "session=alice"}
        got, session, _ = service.request("GET", "/api/session", headers=cookie)
        expect(got == 200 and session["user"] == "alice", "signed in: session %r" % session)
        service.token = session["token"]
        events = Events(editors, cookie)
        got, page, _ = service.request("GET", "/api/sites/trex/pages/guides/range-safety", headers=cookie)
        text = page["text"] + "\n"
        got, saved, raw = service.send("PUT", "/api/sites/trex/pages/guides/range-safety", {"base": page["base"], "text": text}, extra=cookie)
        expect(got == 200, "signed in: save %d %s" % (got, raw[:200]))
        event = events.published(saved["save_id"]) if got == 200 else None
        expect(event is not None, "signed in: no publish event")
        with open(os.path.join(workspace.dist, "trex", "state", "history.jsonl")) as handle:
            last = json.loads(handle.read().splitlines()[-1])
        expect(last["user"] == "alice" and last["to"] == (event or {}).get("version"), "history: %r" % last)
        # The status files are written in the background after the publish.
        def status_names_alice():
            got, status, _ = service.request("GET", "/trex/status/status.json", headers=cookie)
            history = (status or {}).get("history", []) if got == 200 else []
            return history and history[-1]["user"] == "alice" and history[-1]["to"] == last["to"]
        expect(poll(status_names_alice, timeout=10), "the status page's history does not name alice")
        print("dashboard-api: under --editors-auth, alice's save published as %s and recorded as hers" % (event or {}).get("version"), flush=True)
    finally:
        watcher.process.terminate()
        watcher.process.wait(timeout=30)
        server.shutdown()


def main():
    workspace = quire_e2e.Workspace(prefix="quire-dashboard-")
    shutil.rmtree(workspace.pages)
    os.makedirs(workspace.pages)
    shutil.copytree(os.path.join(ROOT, "pages", "trex"), os.path.join(workspace.pages, "trex"))
    outside = os.path.join(workspace.path, "outside")
    os.makedirs(outside)
    with open(os.path.join(outside, "secret.yaml"), "w") as handle:
        handle.write("title: secret\nsections: []\n")
    for folder, _, _ in os.walk(workspace.path):
        os.chmod(folder, 0o755)
    # Links a hostile editor (or a tool) left inside the site: never followed by the service.
    os.symlink(outside, os.path.join(workspace.pages, "trex", "linked"))
    os.symlink(os.path.join(outside, "secret.yaml"), os.path.join(workspace.pages, "trex", "alias.yaml"))
    watcher, editors = start(workspace)
    try:
        service = Service(editors)
        got, session, _ = service.request("GET", "/api/session")
        expect(got == 200 and len(session["token"]) == 64, "session: %d" % got)
        service.token = session["token"]
        connection = http.client.HTTPConnection("127.0.0.1", editors, timeout=10)
        connection.request("GET", "/dashboard/")
        response = connection.getresponse()
        response.read()
        expect(response.status == 200 and "require-trusted-types-for 'script'" in (response.getheader("Content-Security-Policy") or ""),
               "the dashboard's page: %d %r" % (response.status, response.getheader("Content-Security-Policy")))
        connection.request("GET", "/")
        response = connection.getresponse()
        response.read()
        expect(response.status == 302 and response.getheader("Location", "").endswith("/dashboard/"), "/ does not lead to the dashboard")
        for name, kind in [("lib/codemirror.js", "text/javascript"), ("lib/codemirror.css", "text/css"), ("mode/yaml/yaml.js", "text/javascript")]:
            connection.request("GET", "/dashboard/codemirror/" + name)
            response = connection.getresponse()
            response.read()
            expect(response.status == 200 and (response.getheader("Content-Type") or "").startswith(kind),
                   "CodeMirror's %s: %d %s (scripts/ensure-packages installs libjs-codemirror)" % (name, response.status, response.getheader("Content-Type")))
        check_socket(watcher)
        events = Events(editors)
        expect(events.status == 200 and events.type.startswith("text/event-stream"), "events: %d %s" % (events.status, events.type))
        check_hostile(service, workspace, outside)
        check_disk_errors(service, workspace)
        check_flows(service, workspace, events, editors)
        watcher.process.terminate()
        watcher.process.wait(timeout=30)
        check_signed_in(workspace)
    finally:
        if watcher.process.poll() is None:
            watcher.process.terminate()
            watcher.process.wait(timeout=30)
        workspace.remove()
    if failures:
        print("dashboard-api: %d problems" % len(failures))
        sys.exit(1)
    print("dashboard-api: ok")


if __name__ == "__main__":
    main()
