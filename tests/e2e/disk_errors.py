"""Disk full, read-only dist and permission denied (issue 5): each gives a clear error naming the
system's reason, exit code 3, and leaves `current` (and the pin) untouched and verifying; the
next run after the cause is gone cleans up and publishes.

Full and read-only use a real 300 KiB tmpfs (tests run as root, so modes alone would not stop
writes); without mount rights those parts are skipped with a message. Permission denied runs
quire as `nobody` against a dist owned by root."""

import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from quire_e2e import SITE, Workspace, quire_command  # noqa: E402

problems = []


def check(condition, text):
    if not condition:
        problems.append(text)
        print("  problem: " + text, flush=True)


def expect_operational_failure(workspace, label, arguments, reason, env=None, prefix=()):
    current, pin, versions = workspace.current(), workspace.pinned(), workspace.versions()
    command = list(prefix) + quire_command(workspace, arguments)
    result = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    message = result.stderr.strip().splitlines()[-1] if result.stderr.strip() else ""
    print("  %-34s exit %d: %s" % (label, result.returncode, message))
    check(result.returncode == 3, "%s: exit %d, want 3" % (label, result.returncode))
    check(reason in result.stderr, "%s: the error does not say %r:\n%s" % (label, reason, result.stderr))
    check(workspace.current() == current, "%s: current moved from %s to %s" % (label, current, workspace.current()))
    check(workspace.pinned() == pin, "%s: the pin changed from %s to %s" % (label, pin, workspace.pinned()))
    check(workspace.versions() == versions, "%s: versions changed: %s -> %s" % (label, versions[-3:], workspace.versions()[-3:]))
    verified = workspace.quire("verify", "--site", SITE, check=False)
    check(verified.returncode == 0, "%s: current does not verify: %s" % (label, verified.stderr))


def settled(workspace, label):
    workspace.quire("build", "--site", SITE, "--no-preview")
    check(workspace.staging_left() == [], "%s: staging left after the next build: %r" % (label, workspace.staging_left()))
    verified = workspace.quire("verify", "--site", SITE, check=False)
    check(verified.returncode == 0, "%s: current does not verify after the next build: %s" % (label, verified.stderr))


def mount(*arguments):
    return subprocess.run(["mount"] + list(arguments), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def full_and_read_only():
    workspace = Workspace(prefix="quire-disk-")
    result = mount("-t", "tmpfs", "-o", "size=300k,mode=0755", "tmpfs", workspace.dist)
    if result.returncode != 0:
        print("  skipped disk full and read-only: cannot mount a tmpfs here (%s)" % result.stderr.strip())
        workspace.remove()
        return
    try:
        workspace.quire("build", "--site", SITE, "--no-preview")
        workspace.edit()
        workspace.quire("build", "--site", SITE, "--no-preview")

        # Disk full while staging a big page.
        body = "All work and no play. " * 7000
        workspace.write("big.yaml", "title: Big\nsections:\n" + "".join(
            "  - type: markdown_block\n    id: part%d\n    body: \"%s\"\n" % (number, body) for number in range(3)))
        expect_operational_failure(workspace, "build, disk full", ["build", "--site", SITE, "--no-preview"], "no space left on device")
        check(workspace.staging_left() == [], "disk full: staging left: %r" % workspace.staging_left())
        os.remove(os.path.join(workspace.site_dir, "big.yaml"))
        settled(workspace, "disk full")

        # Disk full to the last block: a rollback cannot write its pin.
        filler = os.path.join(workspace.dist, "filler")
        descriptor = os.open(filler, os.O_WRONLY | os.O_CREAT)
        try:
            while True:
                os.write(descriptor, b"\0" * 4096)
        except OSError:
            pass
        os.close(descriptor)
        expect_operational_failure(workspace, "rollback, disk full", ["rollback", "--site", SITE], "no space left on device")
        workspace.edit()
        expect_operational_failure(workspace, "build, disk full to the last block", ["build", "--site", SITE, "--no-preview"], "no space left on device")
        os.remove(filler)
        settled(workspace, "disk full to the last block")

        # Read-only.
        result = mount("-o", "remount,ro", workspace.dist)
        if result.returncode != 0:
            print("  skipped read-only: cannot remount (%s)" % result.stderr.strip())
            return
        workspace.edit()
        expect_operational_failure(workspace, "build, read-only dist", ["build", "--site", SITE, "--no-preview"], "read-only file system")
        expect_operational_failure(workspace, "rollback, read-only dist", ["rollback", "--site", SITE], "read-only file system")
        expect_operational_failure(workspace, "gc, read-only dist", ["gc", "--site", SITE, "--keep", "1"], "read-only file system")
        mount("-o", "remount,rw", workspace.dist)
        settled(workspace, "read-only")
    finally:
        subprocess.run(["umount", workspace.dist])
        workspace.remove()


def permission_denied():
    if os.geteuid() != 0:
        print("  skipped permission denied: needs root to run quire as another user")
        return
    workspace = Workspace(prefix="quire-perm-")
    try:
        workspace.quire("build", "--site", SITE, "--no-preview")
        workspace.edit()
        nobody = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]
        expect_operational_failure(workspace, "build as nobody", ["build", "--site", SITE, "--no-preview"], "permission denied", prefix=nobody)
        expect_operational_failure(workspace, "rollback as nobody", ["rollback", "--site", SITE], "permission denied", prefix=nobody)
        settled(workspace, "permission denied")
    finally:
        workspace.remove()


def main():
    full_and_read_only()
    permission_denied()
    if problems:
        raise SystemExit("FAIL: disk errors: %d problems" % len(problems))
    print("disk errors: ok")


if __name__ == "__main__":
    main()
