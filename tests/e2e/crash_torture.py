"""Crash torture (issue 5).

Part 1: stop a publish, rollback, unpin and gc at each of its steps with QUIRE_CRASH_AT=<step>
(SIGKILL right there). After each: `quire verify` of current passes; the next run leaves no
staging, passes verify, and puts `current` where it belongs (the pin while pinned, else the
newest version).

Part 2: SIGKILL at random moments during repeated builds, rollbacks, unpins and gcs (200 kills;
QUIRE_DEEP=1: 2,000), each run logging its steps (QUIRE_STEP_LOG) so the step each kill hit is
reported. Same checks after each kill.

Part 3: SIGKILL `quire watch` while it publishes an edit as a delta (40 kills; QUIRE_DEEP=1:
400): edit a page, kill at a random moment or after a random number of the delta publish's
steps, verify, then let a fresh watcher (or a `quire build` first) settle the site; the
restarted watcher's first build publishes the last edit when the kill lost it."""

import collections
import os
import random
import signal
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from quire_e2e import PAGES, QUIRE, SITE, Workspace, deep, quire_command  # noqa: E402

KILLS = int(os.environ.get("QUIRE_TORTURE_KILLS", 2000 if deep() else 200))
WATCH_KILLS = int(os.environ.get("QUIRE_TORTURE_WATCH_KILLS", 400 if deep() else 40))
problems = []


def check(condition, text):
    if not condition:
        problems.append(text)
        print("  problem: " + text, flush=True)


def verify(workspace, label, version=None):
    arguments = ["verify", "--site", SITE] + ([version] if version else [])
    result = workspace.quire(*arguments, check=False)
    check(result.returncode == 0, "%s: quire verify %s exited %d: %s" % (label, version or "current", result.returncode, result.stderr.strip()[-600:]))


def settled(workspace, label, watcher=None, stopped_watcher=False):
    """After a run that was not stopped: no staging (but the spare folders of a running
    watcher, or those a cleanly stopped one hands over: a killed one's are gone), current
    where it belongs, all verifies."""
    live = "spares-%d-" % watcher.process.pid if watcher else None
    left = [name for name in workspace.staging_left(stopped_watcher) if not (live and name.startswith(live))]
    check(left == [], "%s: staging left: %r" % (label, left))
    versions = workspace.versions()
    pin = workspace.pinned()
    want = pin or (versions[-1] if versions else None)
    check(workspace.current() == want, "%s: current is %s, want %s (pin %s, newest %s)" % (
        label, workspace.current(), want, pin, versions[-1] if versions else None))
    leftovers = [name for name in os.listdir(workspace.site_root) if ".tmp-" in name]
    leftovers += [name for name in os.listdir(os.path.join(workspace.site_root, "state")) if ".tmp-" in name]
    check(leftovers == [], "%s: temporary files left: %r" % (label, leftovers))
    verify(workspace, label)
    if versions and versions[-1] != workspace.current():
        verify(workspace, label, versions[-1])


def command_for(operation, workspace, rng):
    if operation == "build":
        workspace.edit()
        return ["build", "--site", SITE, "--no-preview"]
    if operation == "rollback":
        candidates = [v for v in workspace.versions()[-6:] if v != workspace.current()]
        return ["rollback", "--site", SITE, "--reason", "torture"] + ([rng.choice(candidates)] if candidates and rng.random() < 0.5 else [])
    if operation == "unpin":
        return ["unpin", "--site", SITE, "--reason", "torture"]
    return ["gc", "--site", SITE, "--keep", str(rng.randint(2, 4))]


def popen(workspace, arguments, env):
    command = quire_command(workspace, arguments)
    return subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)


def recover(workspace, label):
    """The next ordinary run after a crash: a build (publishes when the crash lost the edit)."""
    workspace.quire("build", "--site", SITE, "--no-preview")
    settled(workspace, label + ", after the next build")


# Part 1 ------------------------------------------------------------------------------------

STEPS = {
    # staging#2 and move#2: in the middle of writing and of moving (after the first tree).
    "build": ["recover", "staging", "staging#2", "sync", "move", "move#2", "history", "swap", "cleanup"],
    "rollback": ["recover", "pin", "history", "swap"],
    "unpin": ["recover", "pin", "history", "swap"],
    "gc": ["recover", "mark", "sweep", "sweep#2", "cleanup", "history"],
}


def part_one():
    # Folders of over 512 pages: their manifests are stored in parts.
    workspace = Workspace(prefix="quire-crash-steps-", catalog=600)
    rng = random.Random(1)
    stopped = collections.Counter()
    for _ in range(4):
        workspace.edit()
        workspace.quire("build", "--site", SITE, "--no-preview")
    for operation, steps in STEPS.items():
        for step in steps:
            # Each operation needs something to do: an unpinned site to roll back, a pinned one
            # to unpin, old versions to collect.
            if operation == "rollback" and workspace.pinned():
                workspace.quire("unpin", "--site", SITE)
            if operation == "unpin" and not workspace.pinned():
                workspace.quire("rollback", "--site", SITE)
            if operation == "gc":
                for _ in range(3):
                    workspace.edit()
                    workspace.quire("build", "--site", SITE, "--no-preview")
            label = "%s stopped at %s" % (operation, step)
            env = dict(os.environ, QUIRE_CRASH_AT=step)
            before = (workspace.current(), workspace.versions()[-1])
            process = popen(workspace, command_for(operation, workspace, rng), env)
            _, error = process.communicate()
            check(process.returncode == -signal.SIGKILL, "%s: the step was not reached (exit %d): %s" % (label, process.returncode, error.decode()[-400:]))
            if process.returncode == -signal.SIGKILL:
                stopped[operation] += 1
            verify(workspace, label)
            print("  %-30s current %s -> %s, newest %s -> %s, staging %d, pin %s" % (
                label, before[0], workspace.current(), before[1], workspace.versions()[-1], len(workspace.staging_left()), workspace.pinned()), flush=True)
            recover(workspace, label)
    total = sum(stopped.values())
    print("crash steps: %d stops (%s); every one left a current that verifies and was cleaned by the next run" % (
        total, ", ".join("%s %d" % item for item in stopped.items())))
    return workspace


# Part 2 ------------------------------------------------------------------------------------

def part_two():
    workspace = Workspace(prefix="quire-crash-random-")
    rng = random.Random(2)
    for _ in range(3):
        workspace.edit()
        workspace.quire("build", "--site", SITE, "--no-preview")
    step_log = os.path.join(workspace.path, "steps.log")
    hits = collections.Counter()  # (operation, step) -> kills
    finished = 0
    runs = 0
    started = time.time()
    kills = 0
    while kills < KILLS:
        operation = rng.choices(["build", "rollback", "unpin", "gc"], weights=[6, 2, 1, 2])[0]
        if operation == "unpin" and not workspace.pinned():
            operation = "rollback"
        if os.path.exists(step_log):
            os.remove(step_log)
        env = dict(os.environ, QUIRE_STEP_LOG=step_log)
        process = popen(workspace, command_for(operation, workspace, rng), env)
        runs += 1
        if rng.random() < 0.4:
            # Anywhere in the run, the build's own work included.
            time.sleep(rng.uniform(0, 0.25 if operation == "build" else 0.06))
        else:
            # Inside the store: once the lock is taken, after a random number of steps.
            wanted = rng.randint(1, 8)
            deadline = time.time() + 5
            while process.poll() is None and time.time() < deadline:
                try:
                    with open(step_log) as handle:
                        if handle.read().count("\n") >= wanted:
                            break
                except FileNotFoundError:
                    pass
                time.sleep(0.0003)
            time.sleep(rng.uniform(0, 0.003))
        if process.poll() is not None:
            _, error = process.communicate()
            finished += 1
            # A default rollback when gc left nothing older than current is refused, and says so.
            refused = process.returncode == 3 and b"to roll back to" in error
            if process.returncode != 0 and not refused:
                check(False, "%s run %d exited %d without being killed: %s" % (operation, runs, process.returncode, error.decode()[-400:]))
            continue
        process.send_signal(signal.SIGKILL)
        process.communicate()
        kills += 1
        steps = open(step_log).read().split() if os.path.exists(step_log) else []
        step = steps[-1] if steps else "(before the lock)"
        hits[(operation, step)] += 1
        label = "kill %d (%s at %s)" % (kills, operation, step)
        verify(workspace, label)
        recover(workspace, label)
        if kills % 50 == 0:
            print("  %d kills, %d runs finished before their kill, %.0f s" % (kills, finished, time.time() - started), flush=True)
    print("random kills: %d SIGKILLs survived (%d runs finished before their kill), by operation and step:" % (kills, finished))
    by_step = collections.Counter()
    for (operation, step), count in sorted(hits.items()):
        print("  %-8s %-40s %d" % (operation, step, count))
        by_step[step] += count
    print("  by step: " + ", ".join("%s %d" % item for item in sorted(by_step.items(), key=lambda item: -item[1])))
    history = open(os.path.join(workspace.site_root, "state", "history.jsonl")).read().splitlines()
    import json
    torn = 0
    for line in history:
        try:
            json.loads(line)
        except ValueError:
            torn += 1
    print("  history: %d lines, %d torn by a kill (skipped by readers), %d versions on disk" % (len(history), torn, len(workspace.versions())))
    return workspace


# Part 3 ------------------------------------------------------------------------------------

class Watcher:
    """A running `quire watch`, its stderr collected line by line on a thread."""

    def __init__(self, workspace, step_log):
        command = [QUIRE, "watch", "--pages", workspace.pages, "--dist", workspace.dist, "--site", SITE, "--no-preview"]
        self.process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                        env=dict(os.environ, QUIRE_STEP_LOG=step_log), text=True)
        self.step_log = step_log
        self.lines = []
        self.changed = threading.Condition()
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self):
        for line in self.process.stderr:
            with self.changed:
                self.lines.append(line.rstrip("\n"))
                self.changed.notify_all()
        with self.changed:
            self.changed.notify_all()

    def wait_for(self, predicate, start=0, timeout=20):
        """The first line from index `start` on that `predicate` accepts, or None (exit, timeout)."""
        deadline = time.time() + timeout
        with self.changed:
            while True:
                for line in self.lines[start:]:
                    if predicate(line):
                        return line
                start = len(self.lines)
                remaining = deadline - time.time()
                if remaining <= 0 or (self.process.poll() is not None and not self.reader.is_alive()):
                    return None
                self.changed.wait(min(remaining, 0.1))

    def wait_ready(self, label):
        """Until the first build is done and the page folder is watched."""
        # A restart after a kill recovers the store and builds again: a busy machine takes a while.
        line = self.wait_for(lambda line: line.startswith("quire: watching "), timeout=90)
        check(line is not None, "%s: the watcher did not start (exit %s): %s" % (label, self.process.poll(), self.tail()))
        return line is not None

    def steps(self):
        try:
            with open(self.step_log) as handle:
                return handle.read().split()
        except FileNotFoundError:
            return []

    def tail(self):
        with self.changed:
            return " | ".join(self.lines[-6:])

    def kill(self):
        self.process.send_signal(signal.SIGKILL)
        self.process.wait()
        self.reader.join(5)

    def stop(self):
        """SIGTERM: the watcher finishes its build and exits 0."""
        self.process.send_signal(signal.SIGTERM)
        self.process.wait(20)
        self.reader.join(5)
        return self.process.returncode


def edition_published(workspace, label):
    """The newest version holds the last edit's page, edition included (read through `current`:
    this part never pins)."""
    page = PAGES[workspace.edition % len(PAGES)]
    path = os.path.join(workspace.site_root, "current", "en", page + ".json")
    try:
        with open(path) as handle:
            text = handle.read()
    except OSError as error:
        check(False, "%s: the last edit's page is not published: %s" % (label, error))
        return
    want = "edition %d." % workspace.edition
    check(want in text, "%s: %s does not hold the last edit (%r), current %s" % (label, path, want, workspace.current()))


def dead_status_temporaries(workspace, watcher):
    """`status/` temporary files of processes other than the running watcher."""
    live = ".tmp-%d" % watcher.process.pid
    found = set()
    for folder, _, names in os.walk(os.path.join(workspace.site_root, "status")):
        found.update(os.path.join(folder, name) for name in names if ".tmp-" in name and not name.endswith(live))
    return found


def part_three():
    workspace = Workspace(prefix="quire-crash-watch-", catalog=600)
    status_leftovers = set()
    rng = random.Random(3)
    hits = collections.Counter()  # step -> kills
    restarts = collections.Counter()  # "watch" / "build, then watch" -> count
    finished = 0  # edits published before their kill
    started = time.time()
    starts = 0

    def start():
        nonlocal starts
        starts += 1
        return Watcher(workspace, os.path.join(workspace.path, "steps-%d.log" % starts))

    watcher = start()
    if not watcher.wait_ready("first start"):
        watcher.kill()
        return workspace
    check(any(": published v" in line for line in watcher.lines), "first start: no publish: %s" % watcher.tail())
    kills = 0
    while kills < WATCH_KILLS:
        # Sometimes a few edits published as deltas first, so the killed one builds on a delta.
        for _ in range(rng.choice([0, 0, 1, 2])):
            mark = len(watcher.lines)
            workspace.edit()
            published = watcher.wait_for(lambda line: ": published v" in line, start=mark, timeout=10)
            check(published is not None, "edit %d before kill %d: not published: %s" % (workspace.edition, kills + 1, watcher.tail()))
        before = len(watcher.steps())
        mark = len(watcher.lines)
        workspace.edit()
        if rng.random() < 0.4:
            # Anywhere: before the quiet window ends, while building, inside the store, after.
            time.sleep(rng.uniform(0, 0.04))
        else:
            # Inside the store: after a random number of the delta publish's steps.
            # A delta publish logs 12 steps (16 for a page in guides/): the lock of a build that
            # finds no change (the edit's temporary file), then recover, staging and move per
            # new tree (the root, one per locale, their guides/), sync, history, swap, cleanup.
            page = PAGES[workspace.edition % len(PAGES)]
            wanted = before + rng.randint(1, 16 if "/" in page else 12)
            deadline = time.time() + 5
            while (watcher.process.poll() is None and time.time() < deadline and len(watcher.steps()) < wanted
                   and not any(": published v" in line for line in watcher.lines[mark:])):
                time.sleep(0.0003)
            time.sleep(rng.uniform(0, 0.003))
        if watcher.process.poll() is not None:
            check(False, "kill %d: the watcher exited %d by itself: %s" % (kills + 1, watcher.process.returncode, watcher.tail()))
            watcher.kill()
            watcher = start()
            watcher.wait_ready("after an exit")
            continue
        watcher.kill()
        kills += 1
        steps = watcher.steps()[before:]
        published = any(": published v" in line for line in watcher.lines[mark:])
        if published:
            finished += 1
        step = "(published)" if published else steps[-1] if steps else "(before the lock)"
        hits[step] += 1
        label = "watch kill %d (edition %d, at %s)" % (kills, workspace.edition, step)
        verify(workspace, label)
        if rng.random() < 0.3:
            restarts["build, then watch"] += 1
            recover(workspace, label)
        else:
            restarts["watch"] += 1
        watcher = start()
        if not watcher.wait_ready(label + ", restarting"):
            watcher.kill()
            break
        settled(workspace, label + ", after the restart", watcher)
        edition_published(workspace, label + ", after the restart")
        status_leftovers.update(dead_status_temporaries(workspace, watcher))
        if kills % 20 == 0:
            print("  %d watch kills, %d edits published before their kill, %.0f s" % (kills, finished, time.time() - started), flush=True)
    # The last restart's first build must have published the last edit; one more edit then
    # goes through the delta path of a watcher that was never killed.
    edition_published(workspace, "final restart")
    mark = len(watcher.lines)
    workspace.edit()
    check(watcher.wait_for(lambda line: ": published v" in line, start=mark, timeout=10) is not None,
          "final edit: not published: %s" % watcher.tail())
    code = watcher.stop()
    check(code == 0, "final stop: the watcher exited %s: %s" % (code, watcher.tail()))
    settled(workspace, "final stop", stopped_watcher=True)
    edition_published(workspace, "final stop")
    print("watch kills: %d SIGKILLs of quire watch during delta publishes survived (%d edits published before their kill; restarts: %s), %.0f s" % (
        kills, finished, ", ".join("%s %d" % item for item in sorted(restarts.items())), time.time() - started))
    print("  by step: " + ", ".join("%s %d" % item for item in sorted(hits.items(), key=lambda item: (-item[1], item[0]))))
    print("  status temporaries left by killed watchers: %d %s" % (len(status_leftovers), sorted(os.path.relpath(p, workspace.site_root) for p in status_leftovers)[:5]))
    return workspace


def main():
    first = part_one()
    second = part_two()
    third = part_three()
    if problems:
        raise SystemExit("FAIL: crash torture: %d problems (workspaces kept: %s, %s, %s)" % (len(problems), first.path, second.path, third.path))
    first.remove()
    second.remove()
    third.remove()
    print("crash torture: ok")


if __name__ == "__main__":
    main()
