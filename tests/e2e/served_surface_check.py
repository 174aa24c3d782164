"""The served surface (issue 46), through the real nginx `quire watch --serve` runs and through
deploy/nginx.conf:

  1. a site folder whose name breaks the id rule (one built to inject a header into the TTL map,
     one with `}`) is reported and left out; the other sites publish, nginx loads its
     configuration, and no response carries the injected header;
  2. nginx's workers are not root; a link out of dist/ placed in a version folder by another user
     is not followed, nor is a file only root may read; no folder is listed;
  3. an asset that is not media (HTML, HTML named .png) is an error at the file and not published;
     an SVG is served sandboxed; every response carries nosniff and a Content-Security-Policy;
  4. the editors' listener serves status pages, previews and pages, and refuses listings,
     staging, trees, build records and state; it listens on loopback when apps listen on
     0.0.0.0; another address needs --editors-auth, which gates every request;
  5. nginx's folder is private and unguessable; Server names no version; redirects keep no host.
"""
import http.client
import http.server
import os
import pwd
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import quire_e2e  # noqa: E402
from quire_e2e import QUIRE, ROOT, SITE, SignIn, Workspace, free_pair, get, poll  # noqa: E402
from serve_check import nginx_folder, nginx_processes  # noqa: E402

failures = []
HOSTILE = ['z" 1; ~. "1\r\nSet-Cookie: injected=1"; "q', "a}b", "Upper"]
IS_ROOT = os.geteuid() == 0


def expect(condition, message):
    if not condition:
        failures.append(message)
        print("FAIL: " + message, flush=True)
    return condition


def add_hostile_sites(workspace):
    for name in HOSTILE:
        folder = os.path.join(workspace.pages, name)
        shutil.copytree(workspace.site_dir, folder)


def add_assets(workspace):
    assets = os.path.join(workspace.site_dir, "assets")
    with open(os.path.join(assets, "evil.html"), "w") as handle:
        handle.write("<script>alert(document.domain)</script>")
    with open(os.path.join(assets, "fake.png"), "w") as handle:
        handle.write("<html><script>alert(1)</script></html>")
    with open(os.path.join(assets, "icon.svg"), "w") as handle:
        handle.write('<?xml version="1.0"?>\n<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>')
    with open(os.path.join(assets, "dot.png"), "wb") as handle:
        handle.write(bytes.fromhex("89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d49444154789c6360000002000100"
                                   "0d0a2db40000000049454e44ae426082"))


def check_build(workspace):
    result = workspace.quire("build", check=False)
    said = result.stderr
    expect(result.returncode == 1, "build with hostile folders and assets: exit %d, not 1\n%s" % (result.returncode, said))
    for name in HOSTILE:
        expect("is not a site name" in said and not os.path.exists(os.path.join(workspace.dist, name)),
               "hostile folder %r: not reported, or published\n%s" % (name, said))
    expect("\r\nSet-Cookie" not in said, "a hostile name reached the terminal unescaped")
    expect(re.search(r"assets/evil\.html:1:1: error: not a media file", said), "evil.html: no error at the file\n" + said)
    expect(re.search(r"assets/fake\.png:1:1: error: is not image/png", said), "fake.png: no error at the file\n" + said)
    assets = os.path.join(workspace.site_root, "current", "assets")
    published = sorted(os.listdir(assets))
    expect(published == ["banner.jpg", "dot.png", "icon.svg"], "assets published: %r" % published)
    with open(os.path.join(workspace.site_root, "current", "http", "nginx-ttl.map")) as handle:
        expect("Set-Cookie" not in handle.read(), "the TTL map holds the hostile name")


def check_headers(port, path, status, label, csp=None):
    code, headers, body = get(port, path)
    expect(code == status, "%s %s: %d, not %d" % (label, path, code, status))
    expect(headers.get("x-content-type-options") == "nosniff", "%s %s: no nosniff (%r)" % (label, path, headers))
    expect("content-security-policy" in headers, "%s %s: no Content-Security-Policy" % (label, path))
    if csp:
        expect(csp in headers.get("content-security-policy", ""), "%s %s: CSP %r lacks %r" % (label, path, headers.get("content-security-policy"), csp))
    expect("set-cookie" not in headers, "%s %s: a Set-Cookie header" % (label, path))
    expect(headers.get("server") == "nginx", "%s %s: Server says %r" % (label, path, headers.get("server")))
    return headers, body


def check_served(workspace, apps, editors):
    for port, label in ((apps, "apps"), (editors, "editors")):
        check_headers(port, "/%s/current/en/home.json" % SITE, 200, label)
        headers, _ = check_headers(port, "/%s/current/assets/icon.svg" % SITE, 200, label, csp="sandbox")
        expect(headers.get("content-type") == "image/svg+xml", "%s: icon.svg served as %r" % (label, headers.get("content-type")))
        headers, _ = check_headers(port, "/%s/current/assets/dot.png" % SITE, 200, label)
        expect(headers.get("content-type") == "image/png", "%s: dot.png served as %r" % (label, headers.get("content-type")))
        for path in ["/%s/current/assets/evil.html" % SITE, "/%s/current/assets/fake.png" % SITE, "/%s/" % SITE,
                     "/%s/current/" % SITE, "/%s/versions/" % SITE, "/%s/staging/" % SITE, "/%s/trees/" % SITE,
                     "/%s/current/build.json" % SITE, "/%s/current/http/nginx-ttl.map" % SITE, "/%s/state/history.jsonl" % SITE,
                     "/%s/current/en/" % SITE] + (["/"] if label == "apps" else []):
            code, _, body = get(port, path)
            expect(code in (403, 404) and b"Index of" not in body, "%s %s: %d (a listing or a private file)" % (label, path, code))
    # The editors' / leads to the dashboard (a path of the same origin, no host from the request).
    code, headers, _ = get(editors, "/", {"Host": "evil.example"})
    expect(code == 302 and headers.get("location") == "/dashboard/", "editors /: %d Location %r" % (code, headers.get("location")))
    # What editors use.
    headers, body = check_headers(editors, "/%s/status/" % SITE, 200, "editors")
    meta = re.search(rb'http-equiv="Content-Security-Policy" content="([^"]+)"', body)
    expect(meta and headers.get("content-security-policy") == meta.group(1).decode() + "; frame-ancestors 'self'",
           "status page: the header's CSP %r is not the meta's" % headers.get("content-security-policy"))
    preview = "/%s/current/preview/en/home.html" % SITE
    headers, body = check_headers(editors, preview, 200, "editors")
    meta = re.search(rb'http-equiv="Content-Security-Policy" content="([^"]+)"', body)
    expect(meta and headers.get("content-security-policy") == meta.group(1).decode() + "; frame-ancestors 'self'",
           "preview: the header's CSP %r is not the meta's" % headers.get("content-security-policy"))
    for path in ["/%s/status/" % SITE, preview]:
        code, _, _ = get(apps, path)
        expect(code == 404, "apps %s: %d, not 404" % (path, code))
    # A redirect (a folder without its slash) keeps no host from the request.
    code, headers, _ = get(editors, "/%s/current/preview/en" % SITE, {"Host": "evil.example"})
    expect(code == 301 and headers.get("location", "").startswith("/"), "redirect: %d Location %r" % (code, headers.get("location")))


def check_links_out(workspace, apps, editors):
    """Links a non-quire user put in a version folder: never followed out of dist/."""
    version = os.path.join(workspace.site_root, "versions", workspace.current())
    secret_folder = tempfile.mkdtemp(prefix="quire-secret-")
    secret = os.path.join(secret_folder, "secret.json")
    with open(secret, "w") as handle:
        handle.write('{"secret": true}')
    os.chmod(secret, 0o600)
    links = {"etc": "/etc", "os.json": "/etc/os-release", "secret.json": secret}
    nobody = pwd.getpwnam("nobody")
    for name, target in links.items():
        os.symlink(target, os.path.join(version, name))
        if IS_ROOT:
            os.lchown(os.path.join(version, name), nobody.pw_uid, nobody.pw_gid)
    for port, label in ((apps, "apps"), (editors, "editors")):
        for path in ["etc/os-release", "etc/", "os.json", "secret.json"]:
            code, _, body = get(port, "/%s/versions/%s/%s" % (SITE, workspace.current(), path))
            expect(code in (403, 404) and b"secret" not in body and b"VERSION" not in body,
                   "%s: a link out of dist/ followed: %s -> %d" % (label, path, code))
    if IS_ROOT:
        # A link root made to a file only root reads: the worker (not root) cannot read it.
        os.symlink(secret, os.path.join(version, "root-secret.json"))
        code, _, body = get(editors, "/%s/versions/%s/root-secret.json" % (SITE, workspace.current()))
        expect(code in (403, 404) and b"secret" not in body, "a file only root reads was served: %d" % code)
    shutil.rmtree(secret_folder)


def check_nginx_process(watcher):
    folder = nginx_folder(watcher.process.pid)
    expect(folder and folder != "/tmp/quire-nginx-%d" % watcher.process.pid, "nginx's folder is named after the watcher: %r" % folder)
    if folder:
        info = os.stat(folder)
        expect(info.st_uid == os.geteuid() and (info.st_mode & 0o777) in (0o700, 0o711),
               "nginx's folder %s: owner %d, mode %o" % (folder, info.st_uid, info.st_mode & 0o777))
    processes = nginx_processes(watcher.process.pid)
    workers = processes[1:]
    expect(workers, "no nginx worker found")
    for worker in workers:
        status = quire_e2e.read("/proc/%d/status" % worker)
        if status is None:
            continue  # gone since it was listed (a worker replaced on reload): nothing to check
        uid = int(re.search(r"^Uid:\s+(\d+)", status, re.M).group(1))
        expect(uid != 0, "an nginx worker runs as root")


def listens(port):
    """The addresses a TCP port is listened on, from /proc/net/tcp."""
    found = []
    with open("/proc/net/tcp") as handle:
        for line in handle.readlines()[1:]:
            fields = line.split()
            address, hex_port = fields[1].split(":")
            if fields[3] == "0A" and int(hex_port, 16) == port:
                found.append(socket.inet_ntoa(bytes.fromhex(address)[::-1]))
    return found


def check_editors_listener(workspace):
    port = free_pair()
    watcher = quire_e2e.Watcher(workspace, ["--site", SITE, "--no-preview", "--serve", "0.0.0.0:%d" % port])
    try:
        expect(poll(lambda: any("editors on" in l for l in watcher.lines), timeout=30), "0.0.0.0: nginx did not start: " + watcher.tail())
        expect(listens(port + 1) == ["127.0.0.1"], "--serve 0.0.0.0: the editors' listener is on %r" % listens(port + 1))
        expect(any("editors on 127.0.0.1:%d" % (port + 1) in l for l in watcher.lines), "the address printed: " + watcher.tail())
    finally:
        watcher.process.terminate()
        watcher.process.wait(20)
    result = subprocess.run([QUIRE, "watch", "--pages", workspace.pages, "--dist", workspace.dist, "--site", SITE, "--serve",
                             str(port), "--editors-listen", "0.0.0.0:%d" % (port + 1)], capture_output=True, text=True, timeout=20)
    expect(result.returncode == 2 and "--editors-auth" in result.stderr,
           "--editors-listen 0.0.0.0 without a gate: exit %d: %s" % (result.returncode, result.stderr))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), SignIn)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    watcher = quire_e2e.Watcher(workspace, ["--site", SITE, "--no-preview", "--serve", str(port), "--editors-listen",
                                            "0.0.0.0:%d" % (port + 1), "--editors-auth", "http://127.0.0.1:%d/auth" % server.server_port])
    try:
        expect(poll(lambda: any("editors on" in l for l in watcher.lines), timeout=30), "gated: nginx did not start: " + watcher.tail())
        code, _, _ = get(port + 1, "/%s/status/" % SITE)
        expect(code == 401, "gated editors' listener without a session: %d" % code)
        code, _, _ = get(port + 1, "/%s/status/" % SITE, {"Cookie": "session=alice"})
        expect(code == 200, "gated editors' listener with a session: %d" % code)
        code, _, _ = get(port, "/%s/current/en/home.json" % SITE)
        expect(code == 200, "the apps' listener asked for a sign-in: %d" % code)
    finally:
        watcher.process.terminate()
        watcher.process.wait(20)
        server.shutdown()


def check_deploy_configuration(workspace):
    """deploy/nginx.conf, pointed at this dist/, as an operator runs it: loads, serves, no injected header."""
    folder = tempfile.mkdtemp(prefix="quire-deploy-")
    os.chmod(folder, 0o755)
    port = free_pair()
    with open(os.path.join(ROOT, "deploy", "nginx.conf")) as handle:
        rules = handle.read().replace("/srv/quire/dist", workspace.dist)
    rules = rules.replace("listen 8080;", "listen 127.0.0.1:%d;" % port).replace("listen 127.0.0.1:8081;", "listen 127.0.0.1:%d;" % (port + 1))
    user = "user www-data www-data;\n" if IS_ROOT else ""
    temporaries = "".join("%s_temp_path %s/%s;\n" % (name, folder, name) for name in ["client_body", "proxy", "fastcgi", "uwsgi", "scgi"])
    with open(os.path.join(folder, "nginx.conf"), "w") as handle:
        handle.write("%sdaemon off;\npid %s/nginx.pid;\nerror_log stderr warn;\nevents {}\nhttp {\naccess_log off;\n%s%s\n}\n" % (
            user, folder, temporaries, rules))
    tested = subprocess.run(["nginx", "-t", "-q", "-e", "stderr", "-c", folder + "/nginx.conf"], capture_output=True, text=True)
    expect(tested.returncode == 0, "deploy/nginx.conf: nginx -t failed: " + tested.stderr)
    nginx = subprocess.Popen(["nginx", "-e", "stderr", "-c", folder + "/nginx.conf"], stderr=subprocess.DEVNULL)
    try:
        if expect(poll(lambda: os.path.exists(folder + "/nginx.pid"), timeout=10), "deploy/nginx.conf: nginx did not start"):
            time.sleep(0.2)
            check_headers(port, "/%s/current/en/home.json" % SITE, 200, "deploy apps")
            check_headers(port, "/%s/current/assets/icon.svg" % SITE, 200, "deploy apps", csp="sandbox")
            check_headers(port + 1, "/%s/status/" % SITE, 200, "deploy editors")
    finally:
        nginx.terminate()
        nginx.wait(10)
        shutil.rmtree(folder, ignore_errors=True)


def main():
    started = time.time()
    workspace = Workspace(prefix="quire-surface-")
    try:
        add_hostile_sites(workspace)
        add_assets(workspace)
        check_build(workspace)
        check_deploy_configuration(workspace)
        apps = free_pair()
        watcher = quire_e2e.Watcher(workspace, ["--serve", "127.0.0.1:%d" % apps])
        try:
            expect(poll(lambda: any(": status page " in l for l in watcher.lines), timeout=30), "watch: " + watcher.tail())
            expect(sum("is not a site name" in l for l in watcher.lines) == len(HOSTILE), "watch: hostile folders: " + watcher.tail())
            check_nginx_process(watcher)
            check_served(workspace, apps, apps + 1)
            check_links_out(workspace, apps, apps + 1)
            # A hostile folder made while watching: reported, and nginx goes on serving the others.
            shutil.copytree(workspace.site_dir, os.path.join(workspace.pages, 'late"}'))
            told = poll(lambda: any('late\\"}' in l and "is not a site name" in l for l in watcher.lines), timeout=10)
            expect(told, "a hostile folder made while watching: not reported: " + watcher.tail())
            workspace.edit()
            expect(poll(lambda: get(apps, "/%s/current/en/home.json" % SITE)[0] == 200 and watcher.process.poll() is None, timeout=10),
                   "after a hostile folder was made: not served")
        finally:
            watcher.process.terminate()
            watcher.process.wait(20)
        check_editors_listener(workspace)
    finally:
        workspace.remove()
    if failures:
        raise SystemExit("served-surface: %d problem(s)" % len(failures))
    print("served-surface: ok, %.1f s" % (time.time() - started), flush=True)


if __name__ == "__main__":
    main()
