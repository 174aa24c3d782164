"""Crash torture (issue 5).

Part 1: stop a publish, rollback, unpin and gc at each of its steps with QUIRE_CRASH_AT=<step>
(SIGKILL right there). After each: `quire verify` of current passes; the next run leaves no
staging, passes verify, and puts `current` where it belongs (the pin while pinned, else the
newest version).

Part 2: SIGKILL at random moments during repeated builds, rollbacks, unpins and gcs (200 kills;
QUIRE_DEEP=1: 2,000), each run logging its steps (QUIRE_STEP_LOG) so the step each kill hit is
reported. Same checks after each kill."""

import collections
import os
import random
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from quire_e2e import QUIRE, SITE, Workspace, deep  # noqa: E402

KILLS = int(os.environ.get("QUIRE_TORTURE_KILLS", 2000 if deep() else 200))
problems = []


def check(condition, text):
    if not condition:
        problems.append(text)
        print("  problem: " + text, flush=True)


def verify(workspace, label, version=None):
    arguments = ["verify", "--site", SITE] + ([version] if version else [])
    result = workspace.quire(*arguments, check=False)
    check(result.returncode == 0, "%s: quire verify %s exited %d: %s" % (label, version or "current", result.returncode, result.stderr.strip()[-600:]))


def settled(workspace, label):
    """After a run that was not stopped: no staging, current where it belongs, all verifies."""
    check(workspace.staging_left() == [], "%s: staging left: %r" % (label, workspace.staging_left()))
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
    command = [QUIRE, arguments[0], "--pages", workspace.pages, "--dist", workspace.dist] + arguments[1:]
    return subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)


def recover(workspace, label):
    """The next ordinary run after a crash: a build (publishes when the crash lost the edit)."""
    workspace.quire("build", "--site", SITE, "--no-preview")
    settled(workspace, label + ", after the next build")


# Part 1 ------------------------------------------------------------------------------------

STEPS = {
    # staging#2 and move#2: in the middle of writing and of moving (after the first tree).
    "build": ["recover", "staging", "staging#2", "sync", "move", "move#2", "cleanup", "history", "swap"],
    "rollback": ["recover", "pin", "history", "swap"],
    "unpin": ["recover", "pin", "history", "swap"],
    "gc": ["recover", "mark", "sweep", "sweep#2", "cleanup", "history"],
}


def part_one():
    workspace = Workspace(prefix="quire-crash-steps-")
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


def main():
    first = part_one()
    second = part_two()
    if problems:
        raise SystemExit("FAIL: crash torture: %d problems (workspaces kept: %s, %s)" % (len(problems), first.path, second.path))
    first.remove()
    second.remove()
    print("crash torture: ok")


if __name__ == "__main__":
    main()
