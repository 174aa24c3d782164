"""`quire watch --serve`: nginx as the watcher's child, serving what it publishes (issue 32).

  - the public listener: current/ pages with each page's TTL (a TTL changed by a save applies after
    the publish; a rollback's and an unpin's from the command line, with no publish), versions/ immutable, no ETag; status/, state/, trees/, staging/, previews, build
    records and TTL maps refused; the editors' listener (next port): status page and previews,
    never state/;
  - the status page's and a preview's URLs printed once the status file exists (the preview's once a
    build published one); live reload of that preview in headless Chromium, through the served URL;
  - audience variants: refused without --serve-auth; with it, refused without a token, served with
    the right audience's token, refused with another audience's (a small auth service of this test's);
  - nginx gone (its processes, its ports free) after SIGTERM and after kill -9 of the watcher; nginx
    ended by someone else: the watcher says so and goes on publishing; an nginx left by a watcher
    that is gone: the next one stops it and takes the port;
  - a taken port (either of the two): exit 3 and a clear message, fast; --serve-next-free moves on;
    nginx missing: exit 3 (root only: hidden in a private mount namespace).
"""
import http.server
import json
import os
import re
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cdp import Chromium  # noqa: E402
import quire_e2e  # noqa: E402
from quire_e2e import QUIRE, SITE, Workspace, free_pair, get, poll, port_free  # noqa: E402

STARTED = []


def Watcher(*arguments, **keywords):
    """quire_e2e.Watcher, remembered so that a failing run leaves no watcher behind."""
    watcher = quire_e2e.Watcher(*arguments, **keywords)
    STARTED.append(watcher)
    return watcher

failures = []
TOKENS = {"Bearer token-members": "members", "Bearer token-staff": "staff"}


def expect(condition, message):
    if not condition:
        failures.append(message)
        print("FAIL: " + message, flush=True)
    return condition


class AuthService:
    """The app's auth service as nginx's auth_request sees it: 204 when the token grants the
    audience in the query, 401 without a token, 403 with another's."""

    def __init__(self):
        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self):
                audience = re.search(r"[?&]audience=([a-z0-9_-]+)", self.path)
                granted = TOKENS.get(self.headers.get("Authorization", ""))
                code = 401 if granted is None else 204 if audience and granted == audience.group(1) else 403
                self.send_response(code)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = "http://127.0.0.1:%d/auth" % self.server.server_address[1]
        threading.Thread(target=self.server.serve_forever, daemon=True).start()


def page_yaml(title, ttl):
    return (
        "title: %s\nttl: %d\nsections:\n"
        "  - type: markdown_block\n    id: intro\n    body: \"%s for everyone.\"\n"
        "  - type: markdown_block\n    id: members\n    visible_to: [members]\n    body: \"Members only.\"\n"
        "  - type: markdown_block\n    id: staff\n    visible_to: [staff]\n    body: \"Staff only.\"\n"
    ) % (title, ttl, title)


def setup():
    workspace = Workspace(prefix="quire-serve-")
    with open(os.path.join(workspace.site_dir, "site.yaml"), "a") as handle:
        handle.write("audiences:\n  roles: [members, staff]\n")
    workspace.write("vip.yaml", page_yaml("VIP", 45))
    return workspace


def nginx_folder(watcher_pid):
    """The watcher's private nginx folder (an unguessable name; it names its watcher in watcher.pid)."""
    for name in os.listdir("/tmp"):
        if name.startswith("quire-nginx-"):
            try:
                with open("/tmp/%s/watcher.pid" % name) as handle:
                    if int(handle.read().strip()) == watcher_pid:
                        return "/tmp/" + name
            except (OSError, ValueError):
                pass
    return None


def nginx_processes(watcher_pid):
    """nginx's master (from the pid file in the watcher's folder) and its workers."""
    text = None
    for _ in range(100):
        try:
            with open("%s/nginx.pid" % nginx_folder(watcher_pid)) as handle:
                text = handle.read().strip()
            break
        except OSError:
            time.sleep(0.05)
    if not text:
        return []
    master = int(text)
    workers = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open("/proc/%s/stat" % entry) as handle:
                    if int(handle.read().rsplit(")", 1)[1].split()[1]) == master:
                        workers.append(int(entry))
            except (OSError, IndexError, ValueError):
                pass
    return [master] + workers


def alive(pid):
    try:
        with open("/proc/%d/stat" % pid) as handle:
            return handle.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def served_lines(watcher, timeout=60):
    """Waits for the status page and preview lines; returns their URLs."""
    found = poll(lambda: [l for l in watcher.lines if ": status page " in l or ": preview " in l], timeout=timeout)
    poll(lambda: len([l for l in watcher.lines if ": status page " in l or ": preview " in l]) >= 2, timeout=15)
    urls = {}
    for line in watcher.since(0):
        match = re.match(r"quire: %s: (status page|preview) (http://\S+)$" % SITE, line)
        if match:
            urls[match.group(1)] = match.group(2)
    return urls if found else {}


def check_public(workspace, port):
    version = workspace.versions()[-1]
    status, headers, _ = get(port, "/%s/current/en/home.json" % SITE)
    expect(status == 200 and "max-age=300" in headers.get("cache-control", "") and "etag" not in headers,
           "public current/en/home.json: %d %r (want 200, max-age=300, no ETag)" % (status, headers))
    status, headers, _ = get(port, "/%s/versions/%s/en/home.json" % (SITE, version))
    expect(status == 200 and "immutable" in headers.get("cache-control", ""), "public versions/: %d %r" % (status, headers))
    tree = next(name for name in os.listdir(os.path.join(workspace.site_root, "trees")) if name.endswith(".json"))
    for path in ["status/", "status/status.json", "status/index.html", "state/history.jsonl", "state/", "trees/" + tree,
                 "staging/", "current/preview/en/home.html", "versions/%s/preview/en/home.html" % version,
                 "current/build.json", "current/http/nginx-ttl.map", "current/http/_headers"]:
        status, _, _ = get(port, "/%s/%s" % (SITE, path))
        expect(status == 404, "public /%s/%s: %d, want 404" % (SITE, path, status))


def check_editors(port):
    for path, want in [("status/", 200), ("status/status.json", 200), ("current/preview/en/home.html", 200),
                       ("current/preview/preview.js", 200), ("state/history.jsonl", 404), ("state/", 404), ("state/lock", 404)]:
        status, _, _ = get(port, "/%s/%s" % (SITE, path))
        expect(status == want, "editors /%s/%s: %d, want %d" % (SITE, path, status, want))


def check_variants(port, gated):
    for path in ["current/en/vip@members.json", "versions/%s/en/vip@members.json"]:
        if "%s" in path:
            path = path % sorted(os.listdir(os.path.join(WORKSPACE.site_root, "versions")))[-1]
        url = "/%s/%s" % (SITE, path)
        none, _, _ = get(port, url)
        right, headers, body = get(port, url, {"Authorization": "Bearer token-members"})
        other, _, _ = get(port, url, {"Authorization": "Bearer token-staff"})
        if gated:
            expect(none == 401, "variant %s without a token: %d, want 401" % (url, none))
            expect(right == 200 and b"Members only." in body and "private" in headers.get("cache-control", ""),
                   "variant %s with the members token: %d %r" % (url, right, headers))
            expect(other == 403, "variant %s with the staff token: %d, want 403" % (url, other))
        else:
            expect((none, right, other) == (404, 404, 404), "variant %s without --serve-auth: %r, want 404s" % (url, (none, right, other)))
    status, _, body = get(port, "/%s/current/en/vip.json" % SITE)
    expect(status == 200 and b"Members only." not in body, "public vip.json: %d, members' section %s" % (
        status, "leaked" if b"Members only." in body else "absent"))


def check_ttl_reload(workspace, watcher, port):
    """A save that changes a page's ttl: the header follows once the publish is done."""
    # nginx reloads after the publish, which its workers take up a moment later.
    ttl = poll(lambda: "max-age=45" in get(port, "/%s/current/en/vip.json" % SITE)[1].get("cache-control", ""), timeout=15)
    expect(ttl, "vip.json (ttl 45): Cache-Control %r" % get(port, "/%s/current/en/vip.json" % SITE)[1].get("cache-control"))
    mark = watcher.mark()
    workspace.write("vip.yaml", page_yaml("VIP", 90))
    expect(poll(lambda: any("published v" in l for l in watcher.builds_since(mark)), timeout=15), "ttl save not published: " + watcher.tail())
    changed = poll(lambda: "max-age=90" in get(port, "/%s/current/en/vip.json" % SITE)[1].get("cache-control", ""), timeout=15)
    expect(changed, "vip.json after its ttl became 90: Cache-Control %r" % get(port, "/%s/current/en/vip.json" % SITE)[1].get("cache-control"))


def check_rollback_reload(workspace, watcher, port):
    """A rollback and an unpin from the command line while serving, no publish after them: the
    header follows the TTL of the version current names once more."""
    def max_age():
        return get(port, "/%s/current/en/vip.json" % SITE)[1].get("cache-control", "")
    mark = watcher.mark()
    published = workspace.versions()
    workspace.quire("rollback", "--site", SITE, "--reason", "serve test")
    started = time.time()
    rolled = poll(lambda: "max-age=45" in max_age(), timeout=15)
    expect(rolled, "vip.json after a rollback to its ttl-45 version: Cache-Control %r" % max_age())
    print("serve: a rollback's TTLs served %.2f s after it" % (time.time() - started), flush=True)
    workspace.quire("unpin", "--site", SITE, "--reason", "serve test")
    unpinned = poll(lambda: "max-age=90" in max_age(), timeout=15)
    expect(unpinned, "vip.json after the unpin back to its ttl-90 version: Cache-Control %r" % max_age())
    expect(workspace.versions() == published and not watcher.builds_since(mark),
           "the rollback check published: %r" % watcher.builds_since(mark))


def check_live_reload(workspace, watcher, preview_url):
    with Chromium() as browser:
        tab = browser.new_tab()
        tab.navigate(preview_url)
        version = "document.getElementById('quire-version') && document.getElementById('quire-version').textContent"
        first, _ = tab.wait_until(version + ".startsWith('v') && " + version, 10)
        expect(first, "preview %s: no version in its toolbar" % preview_url)
        nonce = "Served-%d" % os.getpid()
        page = re.search(r"/preview/[^/]+/(.+)\.html$", preview_url).group(1)
        source = os.path.join(workspace.site_dir, page + ".yaml")
        workspace.write(page + ".yaml", open(source).read().replace("Welcome to " + page, nonce))
        found, seconds = tab.wait_until("document.body && document.body.textContent.includes(%s)" % json.dumps(nonce), 20)
        if expect(found, "live reload through %s: the saved text did not show within 20 s (%s)" % (preview_url, watcher.tail())):
            print("serve: live reload through nginx: the save shown %.1f s after it" % seconds, flush=True)
        origins = {re.match(r"(https?://[^/]+)", url).group(1) for url in tab.requested_urls() if url.startswith("http")}
        expect(origins == {re.match(r"(https?://[^/]+)", preview_url).group(1)}, "the preview loaded from %r" % origins)
        tab.close()


def stop_and_check_gone(watcher, ports, how):
    folder = nginx_folder(watcher.process.pid)
    processes = nginx_processes(watcher.process.pid)
    expect(len(processes) >= 2, "%s: nginx's master and worker not found (%r)" % (how, processes))
    started = time.time()
    if how == "SIGTERM":
        watcher.process.send_signal(signal.SIGTERM)
        try:
            code = watcher.process.wait(20)
            expect(code == 0, "SIGTERM: the watcher exited %d" % code)
        except subprocess.TimeoutExpired:
            watcher.process.kill()
            expect(False, "SIGTERM: the watcher did not exit within 20 s")
    else:
        watcher.process.kill()
        watcher.process.wait()
    gone = poll(lambda: not any(alive(pid) for pid in processes) and all(port_free(p) for p in ports), timeout=10)
    expect(gone, "%s of the watcher: nginx still running (%r alive) or ports %r taken" % (
        how, [pid for pid in processes if alive(pid)], [p for p in ports if not port_free(p)]))
    if gone:
        print("serve: nginx and its ports gone %.2f s after %s of the watcher" % (time.time() - started, how), flush=True)
    if how == "SIGTERM":
        expect(folder and not os.path.exists(folder), "SIGTERM: nginx's folder left behind (%s)" % folder)


def check_nginx_gone_first(workspace):
    """nginx ended by someone else: the watcher says so and goes on publishing."""
    watcher = Watcher(workspace, ["--site", SITE, "--no-preview", "--serve", "127.0.0.1:%d" % free_pair()])
    expect(poll(lambda: any(": status page " in l for l in watcher.lines), timeout=30), "third watcher: " + watcher.tail())
    os.kill(nginx_processes(watcher.process.pid)[0], signal.SIGTERM)
    said = poll(lambda: [l for l in watcher.lines if "nginx stopped" in l], timeout=10)
    expect(said and "no longer served" in said[0], "nginx ended under the watcher: nothing said (%s)" % watcher.tail())
    mark = watcher.mark()
    workspace.edit()
    expect(poll(lambda: any("published v" in l for l in watcher.builds_since(mark)), timeout=15),
           "after nginx ended, a save was not published: " + watcher.tail())
    watcher.process.send_signal(signal.SIGTERM)
    expect(watcher.process.wait(20) == 0, "the watcher whose nginx ended did not exit 0 on SIGTERM")


def check_preview_told_later(workspace):
    """A first build that publishes nothing: the status page is told; the preview once one is published."""
    site_yaml = os.path.join(workspace.site_dir, "site.yaml")
    good = open(site_yaml).read()
    workspace.write("site.yaml", good.replace("audiences:\n  roles: [members, staff]\n", "audiences: [members, staff]\n"))
    watcher = Watcher(workspace, ["--site", SITE, "--serve", "127.0.0.1:%d" % free_pair()])
    expect(poll(lambda: any(": status page " in l for l in watcher.lines), timeout=30), "broken site: no status page told: " + watcher.tail())
    expect(not any(": preview " in l for l in watcher.lines), "broken site: a preview told though nothing was published")
    workspace.write("site.yaml", good)
    told = poll(lambda: [l for l in watcher.lines if ": preview " in l], timeout=20)
    expect(told and "/%s/current/preview/" % SITE in told[0], "fixed site: no preview told: " + watcher.tail())
    watcher.process.send_signal(signal.SIGTERM)
    expect(watcher.process.wait(20) == 0, "the watcher of the fixed site did not exit 0 on SIGTERM")


def check_leftover_nginx(workspace):
    """An nginx left by a watcher that is gone (killed in the instant before nginx tied itself to
    it): the next watcher stops it and takes the port."""
    port = free_pair()
    first = Watcher(workspace, ["--site", SITE, "--no-preview", "--serve", "127.0.0.1:%d" % port])
    expect(poll(lambda: any(": status page " in l for l in first.lines), timeout=30), "leftover: first watcher: " + first.tail())
    dead = subprocess.Popen(["true"])
    dead.wait()
    own, left = nginx_folder(first.process.pid), tempfile.mkdtemp(prefix="quire-nginx-", dir="/tmp")
    with open(own + "/nginx.conf") as handle:
        config = handle.read().replace(own, left)
    first.process.send_signal(signal.SIGTERM)
    first.process.wait(20)
    os.chmod(left, 0o711)
    with open(left + "/nginx.conf", "w") as handle:
        handle.write(config)
    with open(left + "/watcher.pid", "w") as handle:
        handle.write("%d\n" % dead.pid)
    orphan = subprocess.Popen(["nginx", "-e", "stderr", "-c", left + "/nginx.conf"], stderr=subprocess.DEVNULL, start_new_session=True)
    expect(poll(lambda: not port_free(port), timeout=10), "leftover: the stand-in nginx did not listen")
    second = Watcher(workspace, ["--site", SITE, "--no-preview", "--serve", "127.0.0.1:%d" % port])
    served = poll(lambda: any(": status page " in l for l in second.lines) or second.process.poll() is not None, timeout=30)
    expect(served and second.process.poll() is None and "instead" not in " ".join(second.lines),
           "leftover nginx on port %d: the next watcher did not take the port: %s" % (port, second.tail()))
    expect(poll(lambda: orphan.poll() is not None, timeout=5) and not os.path.exists(left), "leftover nginx or its folder still there")
    if orphan.poll() is None:
        orphan.kill()
    second.process.send_signal(signal.SIGTERM)
    expect(second.process.wait(20) == 0, "leftover: the second watcher did not exit 0 on SIGTERM")


def run_quire(workspace, *options, timeout=15):
    started = time.time()
    try:
        result = subprocess.run([QUIRE, "watch", "--pages", workspace.pages, "--dist", workspace.dist, "--site", SITE, "--no-preview"]
                                + list(options), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, timeout=timeout)
        return result.returncode, result.stderr, time.time() - started
    except subprocess.TimeoutExpired:
        return None, "still running after %d s" % timeout, time.time() - started


def check_refusals(workspace):
    for taken_offset in (0, 1):
        port = free_pair()
        with socket.socket() as holder:
            holder.bind(("127.0.0.1", port + taken_offset))
            holder.listen(1)
            code, stderr, seconds = run_quire(workspace, "--serve", "127.0.0.1:%d" % port)
            expect(code == 3 and "taken" in stderr and seconds < 15, "port %d of %d taken: exit %r after %.1f s: %s" % (
                port + taken_offset, port, code, seconds, stderr.strip()))
            watcher = Watcher(workspace, ["--site", SITE, "--no-preview", "--serve", "127.0.0.1:%d" % port, "--serve-next-free"])
            moved = poll(lambda: [l for l in watcher.lines if "instead" in l], timeout=15)
            found = re.search(r"serving on 127\.0\.0\.1:(\d+) instead", moved[0]) if moved else None
            expect(found and int(found.group(1)) > port + taken_offset, "--serve-next-free with port %d taken: %r" % (
                port + taken_offset, watcher.lines))
            # SIGTERM while nginx may still be starting: it stops with the watcher all the same.
            watcher.process.send_signal(signal.SIGTERM)
            code = watcher.process.wait(20)
            other = int(found.group(1)) if found else port + 2
            freed = poll(lambda: port_free(other) and port_free(other + 1), timeout=10)
            expect(code == 0 and freed, "SIGTERM during nginx's start: exit %r, ports %s" % (code, "free" if freed else "still taken"))
    print("serve: a taken port: exit 3 in %.2f s" % seconds, flush=True)
    code, stderr, _ = run_quire(workspace, "--serve", "nonsense")
    expect(code == 2, "--serve nonsense: exit %r, want 2" % code)
    if os.geteuid() == 0 and os.path.exists("/usr/sbin/nginx"):
        hide = "mount --bind /dev/null /usr/sbin/nginx && PATH=/usr/bin:/bin exec \"$@\""
        command = ["unshare", "--mount", "sh", "-c", hide, "sh", QUIRE, "watch", "--pages", workspace.pages, "--dist", workspace.dist,
                   "--site", SITE, "--no-preview", "--serve", "127.0.0.1:%d" % free_pair()]
        result = subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, timeout=15)
        expect(result.returncode == 3 and "nginx" in result.stderr and "not installed" in result.stderr,
               "nginx missing: exit %d: %s" % (result.returncode, result.stderr.strip()))
    else:
        print("serve: skipped the missing-nginx check (needs root to hide /usr/sbin/nginx)", flush=True)


def main():
    global WORKSPACE
    started = time.time()
    workspace = WORKSPACE = setup()
    auth = AuthService()
    try:
        port = free_pair()
        watcher = Watcher(workspace, ["--site", SITE, "--serve", "127.0.0.1:%d" % port, "--serve-auth", auth.url])
        urls = served_lines(watcher)
        if not expect("status page" in urls and "preview" in urls, "no status page and preview URLs printed: " + watcher.tail()):
            watcher.process.kill()
            raise SystemExit(1)
        expect(urls["status page"] == "http://127.0.0.1:%d/%s/status/" % (port + 1, SITE), "status URL %r" % urls["status page"])
        expect(os.path.exists(os.path.join(workspace.site_root, "status", "index.html")), "status URL printed before its file")
        check_public(workspace, port)
        check_editors(port + 1)
        check_variants(port, gated=True)
        check_ttl_reload(workspace, watcher, port)
        check_rollback_reload(workspace, watcher, port)
        check_live_reload(workspace, watcher, urls["preview"])
        complaints = [l for l in watcher.lines if re.match(r"quire: nginx: (warn|error|crit|alert|emerg)", l)]
        expect(not complaints, "nginx complained: %r" % complaints[:5])
        stop_and_check_gone(watcher, [port, port + 1], "SIGTERM")

        port = free_pair()
        watcher = Watcher(workspace, ["--site", SITE, "--no-preview", "--serve", "127.0.0.1:%d" % port])
        expect(poll(lambda: any(": status page " in l for l in watcher.lines), timeout=30), "second watcher: " + watcher.tail())
        check_variants(port, gated=False)
        stop_and_check_gone(watcher, [port, port + 1], "kill -9")

        check_nginx_gone_first(workspace)
        check_preview_told_later(workspace)
        check_leftover_nginx(workspace)
        check_refusals(workspace)
    finally:
        auth.server.shutdown()
        for watcher in STARTED:
            if watcher.process.poll() is None:
                watcher.process.send_signal(signal.SIGTERM)
                watcher.process.wait(20)
    print("serve: %d check(s) failed, %.1f s" % (len(failures), time.time() - started) if failures
          else "serve: ok, %.1f s" % (time.time() - started), flush=True)
    if failures:
        raise SystemExit("FAIL: quire watch --serve (workspace kept at %s)" % workspace.path)
    workspace.remove()


if __name__ == "__main__":
    main()
