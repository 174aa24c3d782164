"""nginx under load while versions change (issue 5).

nginx serves dist/ with a config derived from deploy/nginx.conf while client threads fetch pages
through /<site>/current/... and this process publishes (edit a page, `quire build`), rolls back
and unpins. Every response must be 200, complete JSON, and its SHA-256 must be that page's hash
in some published version (read from the tree manifests right after each publish, before any
later gc can remove it). Zero errors allowed. Then the header and privacy checks of the public
and internal servers.

QUIRE_DEEP=1: 5,000 publishes and 8 clients instead of 500 and 4."""

import collections
import hashlib
import http.client
import json
import os
import random
import re
import signal
import socket
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from quire_e2e import LOCALES, PAGES, ROOT, SITE, Workspace, deep, get  # noqa: E402

PUBLISHES = int(os.environ.get("QUIRE_LOAD_PUBLISHES", 5000 if deep() else 500))
CLIENTS = int(os.environ.get("QUIRE_LOAD_CLIENTS", 8 if deep() else 4))
# Seconds each client waits between requests: the machine has 2 cores, and builds need one.
PAUSE = float(os.environ.get("QUIRE_LOAD_PAUSE", 0.002))
KEEP = 40


def free_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def nginx_config(workspace, public_port, internal_port, prefix):
    with open(os.path.join(ROOT, "deploy", "nginx.conf")) as handle:
        servers = handle.read()
    servers = servers.replace("/srv/quire/dist", workspace.dist)
    servers = re.sub(r"listen 8080;", "listen 127.0.0.1:%d;" % public_port, servers)
    servers = re.sub(r"listen 127\.0\.0\.1:8081;", "listen 127.0.0.1:%d;" % internal_port, servers)
    assert str(public_port) in servers and str(internal_port) in servers, "deploy/nginx.conf no longer listens on 8080/8081"
    user = "user www-data;\n" if os.geteuid() == 0 else ""
    return (
        "%sworker_processes 2;\ndaemon off;\npid %s/nginx.pid;\nerror_log %s/error.log warn;\n"
        "events { worker_connections 512; }\n"
        "http {\n  access_log off;\n  client_body_temp_path %s/body;\n  proxy_temp_path %s/proxy;\n"
        "  types { application/json json; text/html html; image/jpeg jpg; }\n%s\n}\n"
    ) % (user, prefix, prefix, prefix, prefix, servers)


class Nginx:
    def __init__(self, workspace):
        self.prefix = os.path.join(workspace.path, "nginx")
        os.makedirs(self.prefix)
        self.public = free_port()
        self.internal = free_port()
        config = os.path.join(self.prefix, "nginx.conf")
        with open(config, "w") as handle:
            handle.write(nginx_config(workspace, self.public, self.internal, self.prefix))
        self.process = subprocess.Popen(["nginx", "-p", self.prefix, "-c", config], stderr=subprocess.PIPE)
        for _ in range(200):
            try:
                socket.create_connection(("127.0.0.1", self.public), timeout=1).close()
                return
            except OSError:
                if self.process.poll() is not None:
                    raise SystemExit("FAIL: nginx did not start: " + self.process.stderr.read().decode())
                time.sleep(0.05)
        raise SystemExit("FAIL: nginx did not listen on %d" % self.public)

    def stop(self):
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGQUIT)
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()

    def error_log(self):
        path = os.path.join(self.prefix, "error.log")
        return open(path).read() if os.path.exists(path) else ""


class Clients:
    """Threads fetching `/<site>/current/<locale>/<page>.json` until stopped."""

    def __init__(self, port, count):
        self.port = port
        self.stop_flag = threading.Event()
        self.lock = threading.Lock()
        self.seen = collections.Counter()  # (path, sha256) -> responses
        self.errors = []
        self.counts = [0] * count  # requests per thread, live
        self.threads = [threading.Thread(target=self.run, args=(n,), daemon=True) for n in range(count)]

    def start(self):
        for thread in self.threads:
            thread.start()

    def error(self, text):
        with self.lock:
            self.errors.append(text)

    def run(self, number):
        rng = random.Random(number)
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=10)
        seen = collections.Counter()
        while not self.stop_flag.is_set():
            path = "%s/%s.json" % (rng.choice(LOCALES), rng.choice(PAGES))
            url = "/%s/current/%s" % (SITE, path)
            try:
                connection.request("GET", url)
                response = connection.getresponse()
                body = response.read()
            except (OSError, http.client.HTTPException) as failure:
                self.error("%s: %r" % (url, failure))
                connection.close()
                connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=10)
                continue
            self.counts[number] += 1
            if response.status != 200:
                self.error("%s: status %d" % (url, response.status))
                continue
            if response.getheader("ETag") is not None:
                self.error("%s: has an ETag header %r" % (url, response.getheader("ETag")))
            if "max-age=300" not in (response.getheader("Cache-Control") or ""):
                self.error("%s: Cache-Control %r lacks max-age=300" % (url, response.getheader("Cache-Control")))
            try:
                json.loads(body)
            except ValueError as failure:
                self.error("%s: incomplete or invalid JSON (%d bytes): %s" % (url, len(body), failure))
                continue
            seen[(path, hashlib.sha256(body).hexdigest())] += 1
            if PAUSE:
                time.sleep(PAUSE)
        connection.close()
        with self.lock:
            self.seen.update(seen)

    @property
    def requests(self):
        return sum(self.counts)

    def stop(self):
        self.stop_flag.set()
        for thread in self.threads:
            thread.join()


def header_checks(workspace, nginx, problems):
    """Caching headers on the public server; private paths kept off it; the internal server."""
    current = workspace.current()
    newest = workspace.versions()[-1]
    some_tree = next(name for name in os.listdir(os.path.join(workspace.site_root, "trees")) if name.endswith(".json"))
    status, headers, _ = get(nginx.public, "/%s/versions/%s/en/home.json" % (SITE, newest))
    if status != 200 or "immutable" not in headers.get("cache-control", "") or "etag" in headers:
        problems.append("versions/: status %d, headers %r (want 200, Cache-Control immutable, no ETag)" % (status, headers))
    status, headers, _ = get(nginx.public, "/%s/current/en/home.json" % SITE)
    if status != 200 or "max-age=300" not in headers.get("cache-control", "") or "immutable" in headers.get("cache-control", "") or "etag" in headers:
        problems.append("current/: status %d, headers %r (want 200, max-age=300, no ETag)" % (status, headers))
    private = [
        "/%s/status/status.json" % SITE, "/%s/status/" % SITE, "/%s/state/history.jsonl" % SITE, "/%s/state/lock" % SITE,
        "/%s/trees/%s" % (SITE, some_tree), "/%s/staging/" % SITE, "/%s/current/preview/en/home.html" % SITE,
        "/%s/versions/%s/preview/en/home.html" % (SITE, current), "/%s/current/build.json" % SITE,
        "/%s/versions/%s/build.json" % (SITE, newest),
    ]
    for path in private:
        status, _, _ = get(nginx.public, path)
        if status != 404:
            problems.append("public %s: status %d, want 404" % (path, status))
    for path, want in [("/%s/status/status.json" % SITE, 200), ("/%s/current/preview/en/home.html" % SITE, 200),
                       ("/%s/state/history.jsonl" % SITE, 404)]:
        status, _, _ = get(nginx.internal, path)
        if status != want:
            problems.append("internal %s: status %d, want %d" % (path, status, want))
    # What every preview loads, with the types a browser runs and applies.
    for path, want in [("/%s/current/preview/preview.js" % SITE, "text/javascript"), ("/%s/current/preview/preview.css" % SITE, "text/css")]:
        status, headers, _ = get(nginx.internal, path)
        if status != 200 or not headers.get("content-type", "").startswith(want):
            problems.append("internal %s: status %d, content type %r (want 200, %s)" % (path, status, headers.get("content-type"), want))


def main():
    workspace = Workspace(keep=KEEP, prefix="quire-nginx-load-")
    nginx = None
    rng = random.Random(5)
    try:
        workspace.quire("build", "--site", SITE)
        known = collections.defaultdict(set)  # path -> every sha256 a published version gives it
        recorded = set()
        trees = {}

        def record(version):
            if version in recorded:
                return
            for path, sha in workspace.version_files(version, trees).items():
                known[path].add(sha)
            recorded.add(version)

        record(workspace.current())
        nginx = Nginx(workspace)
        clients = Clients(nginx.public, CLIENTS)
        clients.start()
        started = time.time()
        rollbacks = unpins = pinned_builds = 0
        problems = []
        for number in range(1, PUBLISHES + 1):
            workspace.edit()
            output = workspace.quire("build", "--site", SITE, "--no-preview").stderr
            if "published v" not in output:
                raise SystemExit("FAIL: build %d did not publish a new version:\n%s" % (number, output))
            newest = workspace.versions()[-1]
            record(newest)
            pin = workspace.pinned()
            if pin:
                pinned_builds += 1
                if workspace.current() != pin:
                    problems.append("after build %d: pinned at %s but current is %s" % (number, pin, workspace.current()))
            elif workspace.current() != newest:
                problems.append("after build %d: unpinned but current is %s, newest %s" % (number, workspace.current(), newest))
            if number % 5 == 2:
                versions = [v for v in workspace.versions()[-30:] if v != workspace.current()]
                arguments = ["rollback", "--site", SITE, "--reason", "load test %d" % number]
                if number % 10 == 2:
                    arguments.insert(3, rng.choice(versions))
                workspace.quire(*arguments)
                rollbacks += 1
                if workspace.pinned() != workspace.current():
                    problems.append("after rollback %d: pin %s, current %s" % (rollbacks, workspace.pinned(), workspace.current()))
            elif number % 5 == 4:
                workspace.quire("unpin", "--site", SITE, "--reason", "load test %d" % number)
                unpins += 1
                if workspace.current() != workspace.versions()[-1]:
                    problems.append("after unpin %d: current %s, newest %s" % (unpins, workspace.current(), workspace.versions()[-1]))
            if number % 100 == 0:
                print("  %d publishes, %d rollbacks, %d unpins, %d requests so far (%.0f s)" % (
                    number, rollbacks, unpins, clients.requests, time.time() - started), flush=True)
        # One last build with previews, for the internal server's preview check.
        workspace.edit()
        workspace.quire("build", "--site", SITE)
        record(workspace.versions()[-1])
        clients.stop()
        elapsed = time.time() - started

        unknown = [(path, sha, count) for (path, sha), count in clients.seen.items() if sha not in known.get(path, ())]
        for path, sha, count in unknown[:20]:
            problems.append("%d responses for %s had sha256 %s, which no published version gives that page" % (count, path, sha))
        verify = workspace.quire("verify", "--site", SITE, check=False)
        if verify.returncode != 0:
            problems.append("quire verify failed: " + verify.stderr)
        header_checks(workspace, nginx, problems)
        log = nginx.error_log()
        if re.search(r"\[(error|crit|alert|emerg)\]", log):
            problems.append("nginx error log:\n" + log[-2000:])

        errors = len(clients.errors)
        distinct = len(clients.seen)
        print("nginx load: %d requests served by %d clients in %.0f s, %d errors; %d publishes (%d while pinned), "
              "%d rollbacks, %d unpins; %d distinct (page, content) pairs served, %d versions on disk at the end (keep %d)" % (
                  clients.requests, CLIENTS, elapsed, errors, PUBLISHES, pinned_builds, rollbacks, unpins, distinct,
                  len(workspace.versions()), KEEP))
        for text in clients.errors[:20]:
            print("  error: " + text)
        for text in problems[:40]:
            print("  problem: " + text)
        if errors or problems or clients.requests == 0:
            raise SystemExit("FAIL: nginx load test (workspace kept at %s)" % workspace.path)
        print("nginx load: ok")
        workspace.remove()
    finally:
        if nginx:
            nginx.stop()


if __name__ == "__main__":
    main()
