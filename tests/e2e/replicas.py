"""Replicas for real (issue 37): an origin pushing to two replicas on loopback, one a folder, one
behind an rsync daemon, each served by its own nginx (config derived from deploy/nginx.conf).

Part 1: readers on both replicas during 100 publishes, 10 rollbacks and 10 unpins, each pushed by
`quire build`, `rollback` and `unpin` through `replicas:` in site.yaml: no error, every body equal
to that page in some published version, and after each command both replicas' current is the
origin's.
Part 2: the rsync daemon killed: publishes still reach the folder replica, each build warns naming
the stopped one; the daemon restarted: one `quire push` catches it up.
Part 3: SIGKILL of `quire push` at random instants (50; QUIRE_DEEP=1: 300), of the push alone (its
rsync children run on) or of its whole process group: after each, `quire verify --dist` passes on
every replica and its current names a whole published version. The readers run throughout.
At the end one push leaves each replica holding exactly the origin's versions and trees (keep:)."""

import collections
import json
import os
import random
import re
import signal
import subprocess
import sys
import time
import types

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import nginx_load  # noqa: E402
from nginx_load import Clients, Nginx, free_port  # noqa: E402
from quire_e2e import PAGES, QUIRE, SITE, Watcher, Workspace, check, deep, poll, problems, read  # noqa: E402

# Readers pause between requests: the builds and pushes under test need the machine's cores.
nginx_load.PAUSE = 0.01

PUBLISHES = int(os.environ.get("QUIRE_REPLICA_PUBLISHES", 400 if deep() else 100))
ROLLBACKS = PUBLISHES // 10
KILLS = int(os.environ.get("QUIRE_REPLICA_KILLS", 300 if deep() else 50))
KEEP = 6


class RsyncDaemon:
    """`rsync --daemon` on a loopback port, module `replica` read-write (links kept as they are)."""

    def __init__(self, folder, port):
        self.folder = folder
        self.port = port
        self.config = folder + ".rsyncd.conf"
        owner = "uid = root\ngid = root\n" if os.geteuid() == 0 else ""
        with open(self.config, "w") as handle:
            handle.write("use chroot = no\nmunge symlinks = no\n%s[replica]\npath = %s\nread only = no\n" % (owner, folder))
        self.process = None

    def start(self):
        self.process = subprocess.Popen(["rsync", "--daemon", "--no-detach", "--address=127.0.0.1", "--port=%d" % self.port,
                                         "--config=" + self.config], stderr=subprocess.DEVNULL)
        for _ in range(200):
            if self.process.poll() is not None:
                raise SystemExit("FAIL: rsync --daemon did not start on port %d" % self.port)
            probe = subprocess.run(["rsync", "--list-only", "rsync://127.0.0.1:%d/replica/" % self.port],
                                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            if probe.returncode == 0:
                return
            time.sleep(0.05)
        raise SystemExit("FAIL: rsync --daemon did not answer on port %d" % self.port)

    def kill(self):
        if self.process and self.process.poll() is None:
            self.process.kill()
            self.process.wait()


class Replica:
    """A replica's dist folder (where its files land), its destination as quire takes it, its nginx."""

    def __init__(self, name, dist, destination):
        self.name = name
        self.dist = dist
        self.destination = destination
        self.site_root = os.path.join(dist, SITE)
        self.nginx = None

    def current(self):
        link = os.path.join(self.site_root, "current")
        return os.readlink(link).split("/")[-1] if os.path.islink(link) else None

    def listing(self, folder):
        path = os.path.join(self.site_root, folder)
        return sorted(os.listdir(path)) if os.path.isdir(path) else []

    def verify(self):
        result = subprocess.run([QUIRE, "verify", "--site", SITE, "--dist", self.dist],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        return result.returncode, result.stdout + result.stderr

    def serve(self, root):
        self.nginx = Nginx(types.SimpleNamespace(path=root, dist=self.dist))


def make_folder(path):
    os.makedirs(path)
    os.chmod(path, 0o755)


def site_yaml(replicas):
    text = "title: Load test\ndefault_locale: en\nlocales: [en, fr]\nttl: 300\nkeep: %d\n" % KEEP
    if replicas:
        text += "replicas:\n" + "".join("  - %s\n" % replica.destination for replica in replicas)
    return text


def statuses(workspace):
    """destination -> (version, state) from status.json's replica entries."""
    with open(os.path.join(workspace.site_root, "status", "status.json")) as handle:
        entries = json.load(handle).get("replicas", [])
    return {entry["destination"]: (entry.get("version"), entry.get("state")) for entry in entries}


def part_publishes(workspace, replicas, record, rng):
    """Publishes, rollbacks and unpins, each pushed to both replicas before the command exits."""
    rollbacks = unpins = 0
    for number in range(1, PUBLISHES + 1):
        workspace.edit()
        result = workspace.quire("build", "--site", SITE, "--no-preview")
        check("published v" in result.stderr, "build %d did not publish: %s" % (number, result.stderr))
        record(workspace.versions()[-1])
        if number % 10 == 3:
            versions = [v for v in workspace.versions() if v != workspace.current()]
            workspace.quire("rollback", "--site", SITE, rng.choice(versions), "--reason", "replica test %d" % number)
            rollbacks += 1
        elif number % 10 == 7:
            workspace.quire("unpin", "--site", SITE, "--reason", "replica test %d" % number)
            unpins += 1
        for replica in replicas:
            check(replica.current() == workspace.current(), "after command %d: %s current %s, origin %s" % (
                number, replica.name, replica.current(), workspace.current()))
    return rollbacks, unpins


def part_stopped(workspace, replicas, daemon, record):
    """The daemon's replica stopped for a few publishes, then caught up by one push."""
    folder, behind = replicas
    held = behind.current()
    daemon.kill()
    for number in range(5):
        workspace.edit()
        result = workspace.quire("build", "--site", SITE, "--no-preview", check=False)
        record(workspace.versions()[-1])
        check(result.returncode == 0, "build with a replica stopped exited %d: %s" % (result.returncode, result.stderr))
        check(re.search(r"warning: .*%s is unreachable" % re.escape(behind.destination), result.stderr) is not None,
              "build %d with %s stopped: no warning naming it: %s" % (number, behind.name, result.stderr))
        check(folder.current() == workspace.current(), "stopped phase: %s current %s, origin %s" % (
            folder.name, folder.current(), workspace.current()))
        check(behind.current() == held, "stopped phase: %s moved to %s" % (behind.name, behind.current()))
    status = statuses(workspace)
    check(status.get(behind.destination) == (held, "unreachable"), "status of the stopped replica: %r" % (status.get(behind.destination),))
    check(status.get(folder.destination) == (workspace.current(), "current"), "status of the folder replica: %r" % (status.get(folder.destination),))
    daemon.start()
    started = time.time()
    workspace.quire("push", "--site", SITE)
    caught_up = time.time() - started
    for replica in replicas:
        check(replica.current() == workspace.current(), "after the catch-up push: %s current %s, origin %s" % (
            replica.name, replica.current(), workspace.current()))
        check(replica.listing("versions") == workspace.versions(), "after the catch-up push: %s holds %s, origin %s" % (
            replica.name, replica.listing("versions"), workspace.versions()))
    status = statuses(workspace)
    for replica in replicas:
        check(status.get(replica.destination) == (workspace.current(), "current"), "status after catch-up: %r" % status)
    return caught_up


def part_watch(workspace, replicas, record):
    """`quire watch` publishing saves in quick succession (keep: removing old versions while pushes
    copy): every save published, pushes in the background, both replicas on the last version."""
    watcher = Watcher(workspace)
    try:
        ready = poll(lambda: any("watching" in line or ": no changes" in line or ": published v" in line
                                 for line in watcher.since(0)), timeout=60)
        check(ready, "watch did not start: %s" % watcher.tail())
        mark = watcher.mark()
        saves = 8
        for _ in range(saves):
            workspace.edit()
            time.sleep(0.3)
        # Saves close together may share a build: the last one must be published.
        page = PAGES[workspace.edition % len(PAGES)]
        last = os.path.join(workspace.site_root, "current", "en", page + ".json")
        published = poll(lambda: "edition %d." % workspace.edition in (read(last) or ""), timeout=60)
        check(published, "watch did not publish the last save: %s" % watcher.tail())
        newest = workspace.current()
        for version in workspace.versions():
            record(version)
        reached = poll(lambda: all(replica.current() == newest for replica in replicas) or None, timeout=120)
        check(reached, "after watch: replicas %s, origin %s" % ([replica.current() for replica in replicas], newest))
        # The watcher's builder writes the status files again with each push's outcome.
        shown = poll(lambda: all(statuses(workspace).get(replica.destination) == (newest, "current") for replica in replicas)
                     or None, timeout=10)
        check(shown, "after watch: status.json shows replicas %r, origin %s" % (statuses(workspace), newest))
        lines = watcher.since(mark)
        builds = len([line for line in lines if ": published v" in line])
        pushes = len([line for line in lines if ": current is v" in line]) // len(replicas)
        for line in lines:
            check("error:" not in line and "unreachable" not in line and "failed" not in line, "watch: %s" % line)
        return saves, builds, pushes
    finally:
        watcher.process.send_signal(signal.SIGTERM)
        try:
            watcher.process.wait(60)
        except subprocess.TimeoutExpired:
            watcher.process.kill()


def push_command(workspace, replicas):
    return [QUIRE, "push", "--site", SITE, "--dist", workspace.dist] + [replica.destination for replica in replicas]


def part_kills(workspace, replicas, record, rng):
    """SIGKILLs of pushes at random instants; the origin changes between them."""
    workspace.write("site.yaml", site_yaml([]))  # builds stop pushing: only `quire push` does here
    timings = []
    for _ in range(3):
        workspace.edit()
        workspace.quire("build", "--site", SITE, "--no-preview")
        record(workspace.versions()[-1])
        started = time.time()
        subprocess.run(push_command(workspace, replicas), check=True, stderr=subprocess.DEVNULL)
        timings.append(time.time() - started)
    duration = max(timings)
    published = set(workspace.versions())
    outcomes = collections.Counter()
    for number in range(1, KILLS + 1):
        change = rng.random()
        if change > 0.85:
            versions = [v for v in workspace.versions() if v != workspace.current()]
            workspace.quire("rollback", "--site", SITE, rng.choice(versions), "--reason", "kill %d" % number)
        elif change > 0.7 and workspace.pinned():
            workspace.quire("unpin", "--site", SITE, "--reason", "kill %d" % number)
        else:
            for _ in range(rng.choice([1, 1, 2])):
                workspace.edit()
                workspace.quire("build", "--site", SITE, "--no-preview")
                record(workspace.versions()[-1])
        published.update(workspace.versions())
        whole_group = rng.random() < 0.5
        push = subprocess.Popen(push_command(workspace, replicas), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                text=True, start_new_session=True)
        time.sleep(rng.uniform(0, duration))
        if push.poll() is None:
            if whole_group:
                os.killpg(push.pid, signal.SIGKILL)
            else:
                push.kill()
            outcomes["killed with its rsync" if whole_group else "killed alone"] += 1
        else:
            outcomes["finished first"] += 1
        _, errors = push.communicate()
        check(push.returncode in (0, -signal.SIGKILL), "push %d exited %d: %s" % (number, push.returncode, errors))
        if "waiting for the push lock" in errors:
            outcomes["waited for the rsync of a killed push"] += 1
        for replica in replicas:
            status, output = replica.verify()
            check(status == 0, "after kill %d: quire verify --dist %s exited %d: %s" % (number, replica.dist, status, output))
            check(replica.current() in published, "after kill %d: %s current %s is not a published version" % (
                number, replica.name, replica.current()))
    return duration, outcomes


def final_push(workspace, replicas):
    """One push after the kills: every replica holds what the origin holds, nothing else."""
    result = workspace.quire("push", "--site", SITE, *[replica.destination for replica in replicas])
    origin_trees = sorted(os.listdir(os.path.join(workspace.site_root, "trees")))
    scratch = os.path.join(workspace.site_root, "state", "push")
    check(not os.path.exists(scratch), "final: the pushes left their scratch folder %s" % scratch)
    for replica in replicas:
        check(replica.current() == workspace.current(), "final: %s current %s, origin %s" % (replica.name, replica.current(), workspace.current()))
        check(replica.listing("versions") == workspace.versions(), "final: %s versions %s, origin (keep: %d) %s" % (
            replica.name, replica.listing("versions"), KEEP, workspace.versions()))
        check(replica.listing("trees") == origin_trees, "final: %s trees differ from the origin's: %s" % (
            replica.name, sorted(set(replica.listing("trees")) ^ set(origin_trees))[:6]))
        extra = [name for name in os.listdir(replica.site_root) if name not in ("current", "versions", "trees", "state", "staging", "status")]
        check(not extra, "final: %s holds stray files %s" % (replica.name, extra))
        status, output = replica.verify()
        check(status == 0, "final: quire verify --dist %s exited %d: %s" % (replica.dist, status, output))
    return result


def main():
    started = time.time()
    workspace = Workspace(keep=KEEP, prefix="quire-replicas-")
    rng = random.Random(37)
    folder_root = os.path.join(workspace.path, "replica-folder")
    daemon_root = os.path.join(workspace.path, "replica-daemon")
    make_folder(folder_root)
    make_folder(daemon_root)
    make_folder(os.path.join(folder_root, "dist"))
    make_folder(os.path.join(daemon_root, "dist"))
    daemon = RsyncDaemon(daemon_root, free_port())
    replicas = [
        Replica("folder replica", os.path.join(folder_root, "dist"), os.path.join(folder_root, "dist")),
        Replica("daemon replica", os.path.join(daemon_root, "dist"), "rsync://127.0.0.1:%d/replica/dist" % daemon.port),
    ]
    readers = []
    try:
        daemon.start()
        workspace.write("site.yaml", site_yaml(replicas))
        workspace.quire("build", "--site", SITE, "--no-preview")
        known = collections.defaultdict(set)
        recorded = set()
        trees = {}

        def record(version):
            if version not in recorded:
                for path, sha in workspace.version_files(version, trees).items():
                    known[path].add(sha)
                recorded.add(version)

        record(workspace.current())
        for replica, root in zip(replicas, [folder_root, daemon_root]):
            replica.serve(root)
            readers.append(Clients(replica.nginx.public, 2))
        for clients in readers:
            clients.start()

        phase = time.time()
        rollbacks, unpins = part_publishes(workspace, replicas, record, rng)
        publishing = time.time() - phase
        print("replicas: %d publishes, %d rollbacks, %d unpins pushed to both in %.0f s" % (PUBLISHES, rollbacks, unpins, publishing), flush=True)
        caught_up = part_stopped(workspace, replicas, daemon, record)
        print("replicas: rsync daemon stopped for 5 publishes, caught up by one push in %.2f s" % caught_up, flush=True)
        phase = time.time()
        saves, builds, pushes = part_watch(workspace, replicas, record)
        print("replicas: quire watch published %d saves in %d versions, pushed in the background %d times, in %.0f s" % (
            saves, builds, pushes, time.time() - phase), flush=True)
        phase = time.time()
        duration, outcomes = part_kills(workspace, replicas, record, rng)
        print("replicas: %d pushes killed at random instants within %.2f s (%s) in %.0f s" % (
            KILLS, duration, ", ".join("%d %s" % (n, what) for what, n in sorted(outcomes.items())), time.time() - phase), flush=True)
        final_push(workspace, replicas)
        for clients in readers:
            clients.stop()
        for replica, clients in zip(replicas, readers):
            unknown = [(path, sha, n) for (path, sha), n in clients.seen.items() if sha not in known.get(path, ())]
            for path, sha, n in unknown[:10]:
                check(False, "%s: %d responses for %s had sha256 %s, which no published version gives it" % (replica.name, n, path, sha))
            for text in clients.errors[:10]:
                check(False, "%s reader: %s" % (replica.name, text))
            check(clients.requests > 0, "%s: no requests served" % replica.name)
            log = replica.nginx.error_log()
            check(not re.search(r"\[(error|crit|alert|emerg)\]", log), "%s nginx error log:\n%s" % (replica.name, log[-1500:]))
            print("replicas: %s served %d requests, %d errors, %d distinct (page, content) pairs" % (
                replica.name, clients.requests, len(clients.errors), len(clients.seen)), flush=True)
    finally:
        for clients in readers:
            clients.stop_flag.set()
        for replica in replicas:
            if replica.nginx:
                replica.nginx.stop()
        daemon.kill()
    if problems:
        raise SystemExit("FAIL: replicas test, %d problems (workspace kept at %s)" % (len(problems), workspace.path))
    print("replicas: ok in %.0f s" % (time.time() - started))
    workspace.remove()


if __name__ == "__main__":
    main()
