"""No save is lost by `quire watch`, whenever it is made.

1. A save made during the first build of a 3,000-page site (one folder, default options), at the
   moment the build starts staging its publish (after it read every page): published.
2. A save made the moment the first publish appears, on a small site (three runs): published.
3. Edits, an added page and a removed page made while the watcher was stopped: published when it
   starts again.
4. A save whose publish fails (another process holds the publish lock past `--lock-timeout`):
   published once the lock is free, without another save.
5. A stop (SIGTERM) during the first build, with a save made then: the build is published, the
   watcher exits 0 leaving its restart file, and the next one publishes the save. Two SIGINTs
   during the first build end it at once (130), leaving nothing half-written.

Every check polls `current/<locale>/<page>.json` with a generous limit, so a lost save fails
instead of hanging."""

import fcntl
import os
import signal
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from quire_e2e import SITE, Watcher, Workspace, check, poll, problems, read  # noqa: E402

CATALOG_PAGES = 3000
STOP_CATALOG_PAGES = 600


def published(workspace, page, locale="en"):
    return read(os.path.join(workspace.site_root, "current", locale, page + ".json")) or ""


def is_ready(watcher):
    return any(line.startswith("quire: watching ") for line in watcher.since(0)) or watcher.process.poll() is not None


def stop(watcher):
    if watcher.process.poll() is None:
        watcher.process.send_signal(signal.SIGTERM)
        watcher.process.wait(timeout=60)
    return watcher.process.returncode


def expect_published(workspace, watcher, page, text, label, timeout=30.0):
    found = poll(lambda: text in published(workspace, page), timeout, 0.05)
    return check(found, "%s: %r not published in en/%s.json after %.0f s (current %s; watcher: %s)" % (
        label, text, page, timeout, workspace.current(), watcher.tail()))


def held_at_staging(workspace):
    """The environment of a watcher whose first build waits at its publish's `staging` step
    until the returned file is removed, and logs its steps to the returned log."""
    steps = os.path.join(workspace.path, "steps.log")
    hold = os.path.join(workspace.path, "hold-at-staging")
    open(hold, "w").close()
    env = dict(os.environ, QUIRE_STEP_LOG=steps, QUIRE_PAUSE_AT="staging:" + hold, NO_COLOR="1")
    return env, steps, hold


def release(hold):
    if os.path.exists(hold):
        os.remove(hold)


def save_during_first_build():
    workspace = Workspace(prefix="quire-lost-save-")
    try:
        os.makedirs(os.path.join(workspace.site_dir, "products"))
        for number in range(CATALOG_PAGES):
            workspace.write("products/p%04d.yaml" % number, (
                "title: Product %d\nsections:\n  - type: markdown_block\n    id: body\n"
                "    body: \"Product **%d**, a sturdy thing.\"\n") % (number, number))
        env, steps, hold = held_at_staging(workspace)
        watcher = Watcher(workspace, options=("--site", SITE), env=env)
        staging = poll(lambda: "staging" in (read(steps) or "") or watcher.process.poll() is not None, 120.0, 0.01)
        before_publish = workspace.current() is None
        workspace.write_page("home", 101)
        release(hold)
        check(staging and watcher.process.poll() is None, "the first build never staged (watcher: %s)" % watcher.tail())
        check(before_publish, "the first build published before the save: the test saved too late to test anything")
        expect_published(workspace, watcher, "home", "edition 101.", "a save during the first build", 120.0)
        check(stop(watcher) == 0, "the watcher did not exit 0 on SIGTERM: %s" % watcher.tail())
        print("  save during the first build of %d pages: published" % (CATALOG_PAGES + 4), flush=True)
    finally:
        workspace.remove()


def save_at_first_publish(runs=3):
    for run in range(runs):
        workspace = Workspace(prefix="quire-lost-save-")
        try:
            watcher = Watcher(workspace, env=dict(os.environ, NO_COLOR="1"))
            check(poll(lambda: workspace.current() is not None or watcher.process.poll() is not None, 60.0, 0.002),
                  "run %d: nothing published (watcher: %s)" % (run, watcher.tail()))
            workspace.write_page("about", 200 + run)
            expect_published(workspace, watcher, "about", "edition %d." % (200 + run), "run %d: a save at the first publish" % run)
            stop(watcher)
        finally:
            workspace.remove()
    print("  a save the moment the first version appears: published (%d runs)" % runs, flush=True)


def edits_while_stopped():
    workspace = Workspace(prefix="quire-lost-save-")
    try:
        watcher = Watcher(workspace, env=dict(os.environ, NO_COLOR="1"))
        check(poll(lambda: is_ready(watcher), 60.0, 0.05), "the watcher never got ready: %s" % watcher.tail())
        check(stop(watcher) == 0, "the watcher did not exit 0 on SIGTERM: %s" % watcher.tail())
        workspace.write_page("news", 300)
        workspace.write_page("added", 301)
        os.remove(os.path.join(workspace.site_dir, "guides", "safety.yaml"))
        watcher = Watcher(workspace, env=dict(os.environ, NO_COLOR="1"))
        check(poll(lambda: is_ready(watcher), 60.0, 0.05), "the watcher never got ready again: %s" % watcher.tail())
        expect_published(workspace, watcher, "news", "edition 300.", "an edit made while stopped")
        expect_published(workspace, watcher, "added", "edition 301.", "a page added while stopped")
        check(poll(lambda: not published(workspace, "guides/safety"), 30.0, 0.05),
              "a page removed while stopped is still published (watcher: %s)" % watcher.tail())
        stop(watcher)
        print("  edits, an added and a removed page made while stopped: published on restart", flush=True)
    finally:
        workspace.remove()


def save_while_lock_held():
    workspace = Workspace(prefix="quire-lost-save-")
    try:
        watcher = Watcher(workspace, options=("--site", SITE, "--no-preview", "--lock-timeout", "0.5"), env=dict(os.environ, NO_COLOR="1"))
        check(poll(lambda: is_ready(watcher), 60.0, 0.05), "the watcher never got ready: %s" % watcher.tail())
        mark = watcher.mark()
        with open(os.path.join(workspace.site_root, "state", "lock"), "a+") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            workspace.write_page("home", 400)
            failed = poll(lambda: any("trying again" in line for line in watcher.since(mark)), 30.0, 0.05)
            check(failed, "the watcher did not report the failed publish: %s" % watcher.tail())
            time.sleep(2.0)
            check("edition 400." not in published(workspace, "home"), "published while another process held the lock")
            fcntl.flock(lock, fcntl.LOCK_UN)
        expect_published(workspace, watcher, "home", "edition 400.", "a save whose publish failed, once the lock is free")
        check(stop(watcher) == 0, "the watcher did not exit 0 on SIGTERM: %s" % watcher.tail())
        verify = workspace.quire("verify", "--site", SITE, check=False)
        check(verify.returncode == 0, "quire verify failed: %s%s" % (verify.stdout, verify.stderr))
        print("  a save whose publish failed on the lock: published once it was free, without another save", flush=True)
    finally:
        workspace.remove()


def stop_during_first_build():
    def start_and_wait_for_staging(workspace):
        env, steps, hold = held_at_staging(workspace)
        watcher = Watcher(workspace, env=env)
        staging = poll(lambda: "staging" in (read(steps) or "") or watcher.process.poll() is not None, 60.0, 0.01)
        check(staging and watcher.process.poll() is None and workspace.current() is None,
              "the first build was not caught staging (watcher: %s)" % watcher.tail())
        return watcher, hold

    workspace = Workspace(prefix="quire-lost-save-", catalog=STOP_CATALOG_PAGES)
    try:
        watcher, hold = start_and_wait_for_staging(workspace)
        workspace.write_page("home", 500)
        watcher.process.send_signal(signal.SIGTERM)
        check(poll(lambda: any("stopping once the first build is published" in line for line in watcher.since(0)), 30.0, 0.01),
              "the SIGTERM was not acknowledged: %s" % watcher.tail())
        release(hold)
        watcher.process.wait(timeout=60)
        check(watcher.process.returncode == 0, "a SIGTERM during the first build: exit %s, not 0: %s" % (
            watcher.process.returncode, watcher.tail()))
        check(any("stopping once the first build is published" in line for line in watcher.since(0)),
              "the watcher did not say it waits for the first build: %s" % watcher.tail())
        check(workspace.current() is not None, "the first build was not published before the stop")
        check(os.path.exists(os.path.join(workspace.site_root, "state", "watch-cache")),
              "the stopped watcher left no restart file")
        watcher = Watcher(workspace, env=dict(os.environ, NO_COLOR="1"))
        expect_published(workspace, watcher, "home", "edition 500.", "a save made during a stopped first build")
        stop(watcher)
    finally:
        workspace.remove()

    workspace = Workspace(prefix="quire-lost-save-", catalog=STOP_CATALOG_PAGES)
    try:
        watcher, hold = start_and_wait_for_staging(workspace)
        watcher.process.send_signal(signal.SIGINT)
        check(poll(lambda: any("again to stop now" in line for line in watcher.since(0)), 30.0, 0.01),
              "the first SIGINT was not acknowledged: %s" % watcher.tail())
        watcher.process.send_signal(signal.SIGINT)
        watcher.process.wait(timeout=10)
        check(watcher.process.returncode == 130, "a second SIGINT during the first build: exit %s, not 130: %s" % (
            watcher.process.returncode, watcher.tail()))
        if workspace.current() is not None:
            verify = workspace.quire("verify", "--site", SITE, check=False)
            check(verify.returncode == 0, "quire verify failed after a forced stop: %s%s" % (verify.stdout, verify.stderr))
    finally:
        workspace.remove()
    print("  a stop during the first build: published, exit 0, the save published on restart; "
          "a second SIGINT ends it at once (130)", flush=True)


def main():
    started = time.time()
    for case in [save_during_first_build, save_at_first_publish, edits_while_stopped, save_while_lock_held,
                 stop_during_first_build]:
        case_started = time.time()
        case()
        print("    (%.1f s)" % (time.time() - case_started), flush=True)
    if problems:
        print("FAIL: %d problem(s)" % len(problems))
        sys.exit(1)
    print("lost saves: none (%.0f s)" % (time.time() - started))


if __name__ == "__main__":
    main()
