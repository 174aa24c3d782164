"""Shared parts of the end-to-end tests that drive the built `quire` binary: a small site in a
0755 temporary folder, edits that give each publish distinct content, and a reader of the
published tree (version manifests -> tree manifests -> path: sha256)."""

import http.client
import http.server
import json
import os
import shutil
import socket
import subprocess
import tempfile
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
QUIRE = os.environ.get("QUIRE_BIN", os.path.join(ROOT, ".build", "debug", "quire"))
SITE = "load"
PAGES = ["home", "about", "news", "guides/safety"]
LOCALES = ["en", "fr"]


# The folder options each command takes (`quire <command> --help`): a command rejects one it
# does not take.
TAKES_PAGES = {"build", "check", "watch", "rollback", "unpin", "gc", "push", "l10n", "schema"}
TAKES_DIST = {"build", "watch", "versions", "diff", "rollback", "unpin", "verify", "gc", "export", "push"}


def quire_command(workspace, arguments):
    """`quire COMMAND --pages P --dist D ARGUMENTS...`, with the folders COMMAND takes."""
    name = arguments[0]
    folders = (["--pages", workspace.pages] if name in TAKES_PAGES else []) + (["--dist", workspace.dist] if name in TAKES_DIST else [])
    return [QUIRE, name] + folders + list(arguments[1:])


def deep():
    return os.environ.get("QUIRE_DEEP", "0") == "1"


class Workspace:
    """`<tmp>/pages/load/...` and `<tmp>/dist/`, every folder 0755 (nginx workers read it)."""

    def __init__(self, keep=None, prefix="quire-e2e-", catalog=0):
        self.path = tempfile.mkdtemp(prefix=prefix)
        os.chmod(self.path, 0o755)
        self.pages = os.path.join(self.path, "pages")
        self.dist = os.path.join(self.path, "dist")
        self.site_dir = os.path.join(self.pages, SITE)
        self.site_root = os.path.join(self.dist, SITE)
        self.edition = 0
        os.makedirs(os.path.join(self.site_dir, "guides"))
        os.makedirs(os.path.join(self.site_dir, "assets"))
        os.makedirs(self.dist)
        for folder, _, _ in os.walk(self.path):
            os.chmod(folder, 0o755)
        site = "title: Load test\ndefault_locale: en\nlocales: [en, fr]\nttl: 300\n"
        if keep is not None:
            site += "keep: %d\n" % keep
        self.write("site.yaml", site)
        with open(os.path.join(self.site_dir, "assets", "banner.jpg"), "wb") as handle:
            handle.write(b"\xff\xd8\xff\xe0" + bytes(range(256)) * 8)  # a JPEG's first bytes: assets are media
        for page in PAGES:
            self.write_page(page, 0)
        # Pages beside the others: past 512 entries, a folder's manifest is stored in parts.
        for number in range(catalog):
            self.write("item-%04d.yaml" % number, "title: Item %d\nsections:\n  - type: divider\n    id: line\n" % number)

    def write(self, name, text):
        path = os.path.join(self.site_dir, name)
        temporary = path + ".new"
        with open(temporary, "w") as handle:
            handle.write(text)
        os.rename(temporary, path)

    def write_page(self, page, edition):
        self.write(page + ".yaml", (
            "title: Page %s\n"
            "sections:\n"
            "  - type: hero_banner\n"
            "    id: hero\n"
            "    image_url: /assets/banner.jpg\n"
            "    title: Welcome to %s\n"
            "  - type: markdown_block\n"
            "    id: body\n"
            "    body: \"## Edition %d\\nSome **text** for %s, edition %d.%s\"\n"
        ) % (page, page, edition, page, edition, " More." * (edition % 7)))

    def edit(self):
        """Changes one page (rotating), so the next build publishes distinct content."""
        self.edition += 1
        self.write_page(PAGES[self.edition % len(PAGES)], self.edition)

    def quire(self, *arguments, env=None, check=True):
        command = quire_command(self, arguments)
        result = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
        if check and result.returncode != 0:
            raise SystemExit("FAIL: %s exited %d\n%s%s" % (" ".join(command), result.returncode, result.stdout, result.stderr))
        return result

    def versions(self):
        folder = os.path.join(self.site_root, "versions")
        return sorted(name for name in os.listdir(folder) if name.startswith("v")) if os.path.isdir(folder) else []

    def current(self):
        link = os.path.join(self.site_root, "current")
        return os.readlink(link).split("/")[-1] if os.path.islink(link) else None

    def pinned(self):
        path = os.path.join(self.site_root, "state", "pin")
        if not os.path.exists(path):
            return None
        with open(path) as handle:
            return json.load(handle)["version"]

    def staging_left(self, stopped_watcher=False):
        """What is in staging/. After a watcher stopped cleanly, the whole spare folders it
        hands the next one (`spares-kept`, tree ids only, nothing half made) are expected."""
        staging = os.path.join(self.site_root, "staging")
        left = os.listdir(staging)
        if stopped_watcher and "spares-kept" in left:
            kept = os.listdir(os.path.join(staging, "spares-kept"))
            if all(len(name) == 64 and all(c in "0123456789abcdef" for c in name) for name in kept):
                left.remove("spares-kept")
        return left

    def version_files(self, version, trees_cache=None):
        """path -> sha256 of every file of a version, through its tree manifests."""
        cache = trees_cache if trees_cache is not None else {}
        with open(os.path.join(self.site_root, "versions", version, "manifest.json")) as handle:
            manifest = json.load(handle)
        files = {}

        def entries(tree):
            with open(os.path.join(self.site_root, "trees", tree + ".json")) as handle:
                listed = json.load(handle)
            if "parts" not in listed:
                return listed["entries"]
            # A large folder is listed in parts, each a manifest of a run of its entries.
            return [entry for part in listed["parts"] for entry in entries(part["part"])]

        def walk(tree, prefix):
            if tree not in cache:
                cache[tree] = entries(tree)
            for entry in cache[tree]:
                path = prefix + "/" + entry["name"]
                if entry["kind"] == "tree":
                    walk(entry["tree"], path)
                else:
                    files[path] = entry["sha256"]

        for name, folder in manifest["folders"].items():
            walk(folder["tree"], name)
        return files

    def remove(self):
        shutil.rmtree(self.path, ignore_errors=True)


class Watcher:
    """`quire watch` with its stderr collected line by line on a thread (by default one site, no previews)."""

    def __init__(self, workspace, options=("--site", SITE, "--no-preview"), env=None):
        command = [QUIRE, "watch", "--pages", workspace.pages, "--dist", workspace.dist] + list(options)
        self.process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=env)
        self.lines = []
        self.lock = threading.Lock()
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self):
        for line in self.process.stderr:
            with self.lock:
                self.lines.append(line.rstrip("\n"))

    def since(self, mark):
        with self.lock:
            return list(self.lines[mark:])

    def mark(self):
        with self.lock:
            return len(self.lines)

    def builds_since(self, mark):
        return [line for line in self.since(mark) if line.startswith("quire: %s: " % SITE)
                and ("published v" in line or "no changes" in line or "error" in line)]

    def tail(self):
        return " | ".join(self.since(max(self.mark() - 6, 0)))


class SignIn(http.server.BaseHTTPRequestHandler):
    """The editors' sign-in (as oauth2-proxy's /oauth2/auth): a session cookie names the user."""

    def do_GET(self):  # noqa: N802
        if self.headers.get("Cookie") == "session=alice":
            self.send_response(200)
            self.send_header("X-Auth-Request-User", "alice")
        else:
            self.send_response(401)
        self.end_headers()

    def log_message(self, *arguments):
        pass


class SignInService:
    """nginx's auth_request target on a free loopback port, served from a thread: `decide(headers)`
    names who is signed in, `(user, groups)` (groups None when not sent), or None for a 401."""

    def __init__(self, decide):
        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self):  # noqa: N802
                answer = decide(self.headers)
                self.send_response(200 if answer else 401)
                if answer:
                    self.send_header("X-Auth-Request-User", answer[0])
                    if answer[1] is not None:
                        self.send_header("X-Auth-Request-Groups", answer[1])
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *arguments):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = "http://127.0.0.1:%d/auth" % self.server.server_address[1]
        threading.Thread(target=self.server.serve_forever, daemon=True).start()


# What a script's checks found; it fails at its end when the list is not empty.
problems = []


def check(condition, text):
    if not condition:
        problems.append(text)
        print("  problem: " + text, flush=True)
    return condition


def poll(predicate, timeout=10.0, interval=0.02):
    deadline = time.time() + timeout
    while True:
        value = predicate()
        if value or time.time() > deadline:
            return value
        time.sleep(interval)


def read(path):
    try:
        with open(path) as handle:
            return handle.read()
    except OSError:
        return None


def get(port, path, headers=None):
    """GET http://127.0.0.1:PORT/PATH: status, headers by lower-case name, body."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        connection.request("GET", path, headers=headers or {})
        response = connection.getresponse()
        return response.status, {k.lower(): v for k, v in response.getheaders()}, response.read()
    finally:
        connection.close()


def port_free(port):
    with socket.socket() as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind(("127.0.0.1", port))
            return True
        except OSError:
            return False


def free_pair():
    """A port P with P+1 also free: `--serve` on P puts the editors' listener on P+1."""
    while True:
        with socket.socket() as sock:
            sock.bind(("127.0.0.1", 0))
            port = sock.getsockname()[1]
        if port < 65000 and port_free(port) and port_free(port + 1):
            return port
