"""Editors against a running `quire watch` (issue 3).

Real editors driven through a pseudo-terminal (vim with swap, `4913` probe and `~` backups; nano
in place, then with --backup --locking; emacs -nw -Q with its `.#` lock symlink, `#autosave#` and
`~` backup), then scripted sequences: rsync -a (`.name.XXXXXX` temps), cp over a page, mv in and
out, rm, git checkout of several pages at once in a repository inside the site folder, and a
translation drop of one file per page (300 pages; QUIRE_EDITORS_PAGES to change).

Each sequence: the final content is published (polled in current/<locale>/<page>.json), it makes
few versions (an editor save 1, at most 2; bulk operations at most 3), every version it made holds
only real page ids (no temporary name published, no page missing mid-save), status.json and the
watcher's stderr name no temporary file, and (editors) nothing is built while the editor only has
the file open. At the end the watcher is still alive, SIGTERM exits 0, no staging is left and
`quire verify` passes."""

import fcntl
import json
import os
import pty
import re
import select
import shutil
import signal
import struct
import subprocess
import sys
import termios
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from quire_e2e import PAGES, SITE, Watcher, Workspace, poll, read  # noqa: E402

PAGE_COUNT = int(os.environ.get("QUIRE_EDITORS_PAGES", "300"))
BULK = ["bulk/p%03d" % n for n in range(max(PAGE_COUNT - len(PAGES), 0))]
TEMPORARY = re.compile(r"\.swp|\.swx|~|4913|\.#|#[^/\s]*#|___jb_|\.[\w.-]+\.[A-Za-z0-9]{6}(?![\w.])")
problems = []
summary = []


def check(condition, text):
    if not condition:
        problems.append(text)
        print("  problem: " + text, flush=True)
    return condition


def published(workspace, page, locale="en"):
    return read(os.path.join(workspace.site_root, "current", locale, page + ".json"))


def version_number(name):
    return int(name.lstrip("v"))


def newest(workspace):
    versions = workspace.versions()
    return version_number(versions[-1]) if versions else 0


def quiet(watcher, seconds=0.4, timeout=5.0):
    """Until the watcher has printed nothing for `seconds` (the settle window is ~50 ms)."""
    deadline = time.time() + timeout
    count, since = watcher.mark(), time.time()
    while time.time() < deadline:
        time.sleep(0.05)
        now = watcher.mark()
        if now != count:
            count, since = now, time.time()
        elif time.time() - since >= seconds:
            return


class EditSequence:
    """One check: versions and watcher lines from its start; `finish` checks what it published."""

    def __init__(self, workspace, watcher, label, pages):
        self.workspace, self.watcher, self.label = workspace, watcher, label
        self.pages = set(pages)  # the page ids that may exist during the sequence
        self.start = time.time()
        self.first = newest(workspace)
        self.mark = watcher.mark()
        self.temporaries_seen = set()

    def look(self, folder=None):
        """Notes the temporary names in the site folder (evidence that the editor made them)."""
        for path, _, names in os.walk(folder or self.workspace.site_dir):
            if "/.git" in path:
                continue
            self.temporaries_seen.update(name for name in names if TEMPORARY.search(name))

    def wait_for(self, page, text, locale="en", present=True, timeout=10.0):
        found = poll(lambda: ((published(self.workspace, page, locale) or "").find(text) >= 0) == present, timeout)
        return check(found, "%s: %s/%s.json %s %r after %.0f s (current %s; watcher: %s)" % (
            self.label, locale, page, "does not hold" if present else "still holds", text, timeout,
            self.workspace.current(), self.watcher.tail()))

    def wait_gone(self, page):
        gone = poll(lambda: published(self.workspace, page) is None)
        check(gone, "%s: en/%s.json is still published (watcher: %s)" % (self.label, page, self.watcher.tail()))

    def finish(self, most_versions, least_versions=1):
        quiet(self.watcher)
        made = newest(self.workspace) - self.first
        check(least_versions <= made <= most_versions, "%s: %d versions made, want %d to %d (watcher: %s)" % (
            self.label, made, least_versions, most_versions, " | ".join(self.watcher.builds_since(self.mark))))
        # Each locale's page index and its parts list the pages; they are no pages of their own.
        allowed = {"%s/%s.json" % (locale, page) for page in list(self.pages) + ["index"] for locale in ("en", "fr")}
        allowed |= {"%s/index.%d.json" % (locale, part) for part in range(1, 65) for locale in ("en", "fr")}
        cache = {}
        for number in range(self.first + 1, newest(self.workspace) + 1):
            version = "v%06d" % number
            if not os.path.isdir(os.path.join(self.workspace.site_root, "versions", version)):
                continue
            files = self.workspace.version_files(version, cache)
            pages = {path for path in files if path.startswith(("en/", "fr/"))}
            check(pages <= allowed, "%s: %s publishes unexpected paths: %s" % (self.label, version, sorted(pages - allowed)[:5]))
            temporary = [path for path in files if TEMPORARY.search(path)]
            check(not temporary, "%s: %s publishes temporary names: %s" % (self.label, version, temporary[:5]))
        status = read(os.path.join(self.workspace.site_root, "status", "status.json")) or ""
        named = sorted(set(match.group(0) for match in TEMPORARY.finditer(status)))
        check(not named, "%s: status.json mentions temporary names: %s" % (self.label, named))
        lines = [line for line in self.watcher.since(self.mark) if TEMPORARY.search(line)]
        check(not lines, "%s: the watcher's output names temporary files: %s" % (self.label, lines[:3]))
        check(self.watcher.process.poll() is None, "%s: the watcher exited %s: %s" % (
            self.label, self.watcher.process.returncode, self.watcher.tail()))
        seen = " (saw %s)" % ", ".join(sorted(self.temporaries_seen)) if self.temporaries_seen else ""
        summary.append("%-28s %d version%s, %.1f s%s" % (self.label, made, "" if made == 1 else "s", time.time() - self.start, seen))


# Editors through a pseudo-terminal ----------------------------------------------------------

class Terminal:
    """An editor on a pty (80x24, TERM=xterm); its output is drained on a thread."""

    def __init__(self, argv, cwd, home):
        pid, fd = pty.fork()
        if pid == 0:
            try:
                fcntl.ioctl(0, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
                os.chdir(cwd)
                env = dict(os.environ, TERM="xterm", HOME=home, LANG="C.UTF-8")
                env.pop("EDITOR", None)
                os.execvpe(argv[0], argv, env)
            finally:
                os._exit(127)
        self.pid, self.fd = pid, fd
        self.output = bytearray()
        self.last_output = time.time()
        self.lock = threading.Lock()
        self.status = None
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self):
        while True:
            try:
                ready, _, _ = select.select([self.fd], [], [], 0.1)
                if not ready:
                    if self.exited():
                        return
                    continue
                data = os.read(self.fd, 65536)
            except OSError:
                return
            if not data:
                return
            with self.lock:
                self.output += data
                self.last_output = time.time()

    def exited(self):
        if self.status is None:
            pid, status = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                self.status = status
        return self.status is not None

    def screen_text(self):
        with self.lock:
            return bytes(self.output).decode("utf-8", "replace")

    def settle(self, marker, label, quiet_for=0.3, timeout=15.0):
        """Until `marker` was drawn and the screen has been quiet for `quiet_for` seconds."""
        deadline = time.time() + timeout
        while time.time() < deadline:
            with self.lock:
                drawn = marker.encode() in self.output
                calm = time.time() - self.last_output >= quiet_for
            if drawn and calm:
                return True
            time.sleep(0.03)
        return check(False, "%s: the editor did not draw %r within %.0f s: %r" % (label, marker, timeout, self.screen_text()[-300:]))

    def type(self, keys, pause=0.0):
        for chunk in keys if isinstance(keys, list) else [keys]:
            os.write(self.fd, chunk.encode() if isinstance(chunk, str) else chunk)
            time.sleep(pause)

    def wait_exit(self, label, timeout=10.0):
        if poll(self.exited, timeout, 0.05):
            return True
        os.kill(self.pid, signal.SIGKILL)
        poll(self.exited, 2.0, 0.05)
        return check(False, "%s: the editor did not quit: %r" % (label, self.screen_text()[-300:]))

    def close(self):
        if not self.exited():
            os.kill(self.pid, signal.SIGKILL)
            poll(self.exited, 2.0, 0.05)
        os.close(self.fd)


EDITORS = {
    # vim's own defaults (swap file, writebackup with the 4913 probe) plus `backup`, so the
    # original is renamed to `page.yaml~` and the new content written to a fresh file.
    "vim": {
        "argv": ["vim", "-u", "DEFAULTS", "-i", "NONE", "-N", "-c", "set backup writebackup backupcopy=auto"],
        "edit": ["gg", "cc", "title: {token}", "\x1b"],
        "open_temporaries": [".{name}.swp"],
        "save": [":w\r"],
        "autosave": None,
        "quit": [":q\r"],
    },
    # nano's default save writes the file in place.
    "nano": {
        "argv": ["nano", "-I"],
        "edit": ["\x0b", "title: {token}\r"],
        "open_temporaries": [],
        "save": ["\x0f", "\r"],
        "autosave": None,
        "quit": ["\x18"],
    },
    # nano with a `~` backup and a `.name.swp` lock file.
    "nano --backup --locking": {
        "argv": ["nano", "-I", "--backup", "--locking"],
        "edit": ["\x0b", "title: {token}\r"],
        "open_temporaries": [".{name}.swp"],
        "save": ["\x0f", "\r"],
        "autosave": None,
        "quit": ["\x18"],
    },
    # emacs -Q: the `.#name` lock symlink on the first change, `#name#` from do-auto-save, and
    # make-backup-files renames the original to `name~` on the first save.
    "emacs": {
        "argv": ["emacs", "-nw", "-Q"],
        "edit": ["\x1b<", "\x0b", "title: {token}"],
        "open_temporaries": [".#{name}"],
        "save": ["\x18\x13"],
        "autosave": ["\x1bx", "do-auto-save\r"],
        "quit": ["\x18\x03"],
    },
}


def editor_sequence(workspace, watcher, label, page):
    recipe = EDITORS[label]
    name = os.path.basename(page) + ".yaml"
    folder = os.path.dirname(os.path.join(workspace.site_dir, page + ".yaml"))
    # Letters only: syntax highlighting splits numbers from words on the screen.
    stamp = "".join(chr(ord("a") + int(digit)) for digit in str(int(time.time() * 1000) % 10**9))
    token = "Saved by %s %s" % (label.split()[0], stamp)
    old_title = json.loads(published(workspace, page))["title"]
    sequence = EditSequence(workspace, watcher, label, PAGES + BULK)
    terminal = Terminal(recipe["argv"] + [name], folder, os.path.join(workspace.path, "home"))
    try:
        if not terminal.settle("hero_banner", label):
            return
        terminal.type([key.format(token=token) for key in recipe["edit"]], pause=0.05)
        terminal.settle(token, label)
        for temporary in recipe["open_temporaries"]:
            path = os.path.join(folder, temporary.format(name=name))
            check(poll(lambda: os.path.lexists(path), 5.0), "%s: %s did not appear while editing" % (label, temporary.format(name=name)))
        if recipe["autosave"]:
            terminal.type(recipe["autosave"], pause=0.05)
            autosave = os.path.join(folder, "#%s#" % name)
            check(poll(lambda: os.path.lexists(autosave), 5.0), "%s: #%s# did not appear after do-auto-save" % (label, name))
        sequence.look(folder)
        quiet(watcher)
        # Before the save: the editor's temporaries made no build and no version.
        check(newest(workspace) == sequence.first, "%s: a version was published before the save" % label)
        builds = watcher.builds_since(sequence.mark)
        check(not builds, "%s: the editor's temporary files triggered builds before the save: %s" % (label, builds))
        check(old_title in (published(workspace, page) or ""), "%s: the page changed before the save" % label)
        saved_mark = watcher.mark()
        terminal.type(recipe["save"], pause=0.1)
        check(poll(lambda: token in (read(os.path.join(folder, name)) or ""), 10.0), "%s: the editor did not write %s" % (label, name))
        sequence.look(folder)
        sequence.wait_for(page, token)
        terminal.type(recipe["quit"], pause=0.1)
        terminal.wait_exit(label)
        sequence.look(folder)
        quiet(watcher)
        after = [line for line in watcher.builds_since(saved_mark) if "no changes" in line]
        if after:
            summary.append("  note: %s: %d build(s) with no changes after the save" % (label, len(after)))
        sequence.finish(most_versions=2)
        check(token in (published(workspace, page) or ""), "%s: the saved title is gone after quitting" % label)
    finally:
        terminal.close()
        for leftover in (name + "~",):
            path = os.path.join(folder, leftover)
            if os.path.lexists(path):
                os.remove(path)


# Scripted sequences --------------------------------------------------------------------------

def run(*command, cwd=None):
    result = subprocess.run(list(command), cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if result.returncode != 0:
        raise SystemExit("FAIL: %s exited %d: %s" % (" ".join(command), result.returncode, result.stderr.strip()))
    return result.stdout


def set_title(path, title):
    with open(path) as handle:
        lines = handle.read().split("\n")
    lines[0] = "title: " + title
    with open(path, "w") as handle:
        handle.write("\n".join(lines))


def rsync_session(workspace, watcher):
    sequence = EditSequence(workspace, watcher, "rsync -a", PAGES + BULK)
    copy = os.path.join(workspace.path, "rsync-copy")
    shutil.copytree(workspace.site_dir, copy, symlinks=True)
    changed = {"home": "Rsynced home", "guides/safety": "Rsynced safety", BULK[0] if BULK else "news": "Rsynced bulk"}
    for page, title in changed.items():
        set_title(os.path.join(copy, page + ".yaml"), title)
    run("rsync", "-a", copy + "/", workspace.site_dir + "/")
    for page, title in changed.items():
        sequence.wait_for(page, title)
    sequence.finish(most_versions=3)


def cp_session(workspace, watcher):
    sequence = EditSequence(workspace, watcher, "cp over a page", PAGES + BULK)
    source = os.path.join(workspace.path, "about-new.yaml")
    shutil.copy(os.path.join(workspace.site_dir, "about.yaml"), source)
    set_title(source, "Copied about")
    run("cp", source, os.path.join(workspace.site_dir, "about.yaml"))
    sequence.wait_for("about", "Copied about")
    sequence.finish(most_versions=2)


def mv_session(workspace, watcher):
    sequence = EditSequence(workspace, watcher, "mv in, mv out, rm", PAGES + BULK + ["extra"])
    outside = os.path.join(workspace.path, "extra.yaml")
    shutil.copy(os.path.join(workspace.site_dir, "news.yaml"), outside)
    set_title(outside, "Moved in")
    run("mv", outside, os.path.join(workspace.site_dir, "extra.yaml"))
    sequence.wait_for("extra", "Moved in")
    run("mv", os.path.join(workspace.site_dir, "extra.yaml"), outside)
    sequence.wait_gone("extra")
    run("mv", outside, os.path.join(workspace.site_dir, "extra.yaml"))
    sequence.wait_for("extra", "Moved in")
    os.remove(os.path.join(workspace.site_dir, "extra.yaml"))
    sequence.wait_gone("extra")
    sequence.finish(most_versions=6, least_versions=4)


def git(site_dir, *arguments):
    return run("git", "-c", "user.name=t", "-c", "user.email=t@t", "-c", "init.defaultBranch=main",
               "-c", "advice.detachedHead=false", *arguments, cwd=site_dir)


def git_session(workspace, watcher):
    # The commits are made in a copy, then fetched into a repository inside the site folder,
    # whose index is set to the first commit (same content as the tree): nothing to publish.
    copy = os.path.join(workspace.path, "git-copy")
    shutil.copytree(workspace.site_dir, copy, symlinks=True)
    git(copy, "init", "-q")
    git(copy, "add", "-A")
    git(copy, "commit", "-q", "-m", "first")
    first = git(copy, "rev-parse", "HEAD").strip()
    changed = {"home": "Checked out home", "about": "Checked out about", "news": "Checked out news",
               "guides/safety": "Checked out safety"}
    changed.update({page: "Checked out %s" % page for page in BULK[:20]})
    for page, title in changed.items():
        set_title(os.path.join(copy, page + ".yaml"), title)
    git(copy, "commit", "-q", "-a", "-m", "second")
    second = git(copy, "rev-parse", "HEAD").strip()

    sequence = EditSequence(workspace, watcher, "git init and fetch", PAGES + BULK)
    git(workspace.site_dir, "init", "-q")
    git(workspace.site_dir, "fetch", "-q", copy, "main")
    git(workspace.site_dir, "reset", "-q", first)
    quiet(watcher)
    check(newest(workspace) == sequence.first, "git init and fetch: published a version (.git/ is not pages)")
    check(git(workspace.site_dir, "status", "--porcelain").strip() == "", "git: the site differs from the first commit")
    sequence.finish(most_versions=0, least_versions=0)

    sequence = EditSequence(workspace, watcher, "git checkout (%d pages)" % len(changed), PAGES + BULK)
    git(workspace.site_dir, "checkout", "-q", second)
    for page, title in changed.items():
        sequence.wait_for(page, title)
    sequence.finish(most_versions=3)

    sequence = EditSequence(workspace, watcher, "git checkout back", PAGES + BULK)
    git(workspace.site_dir, "checkout", "-q", first)
    for page, title in changed.items():
        sequence.wait_for(page, title, present=False)
    sequence.finish(most_versions=3)


def translation_drop(workspace, watcher):
    pages = PAGES + BULK
    sequence = EditSequence(workspace, watcher, "l10n drop (%d files)" % len(pages), pages)
    drop = os.path.join(workspace.path, "drop", "fr")
    for page in pages:
        path = os.path.join(drop, page + ".yaml")
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as handle:
            handle.write("title: Traduit %s\n" % page)
    run("cp", "-r", drop, os.path.join(workspace.site_dir, "l10n") + "/")
    for page in pages:
        if not sequence.wait_for(page, "Traduit %s" % page, locale="fr"):
            break
    sequence.finish(most_versions=3)


def main():
    began = time.time()
    for tool in ("vim", "nano", "emacs", "rsync", "git"):
        if shutil.which(tool) is None:
            raise SystemExit("FAIL: %s is not installed (scripts/ensure-packages test installs it)" % tool)
    workspace = Workspace(prefix="quire-editors-")
    os.makedirs(os.path.join(workspace.path, "home"))
    os.makedirs(os.path.join(workspace.site_dir, "l10n"))
    for page in BULK:
        path = os.path.join(workspace.site_dir, page + ".yaml")
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as handle:
            handle.write("title: Bulk %s\nsections:\n  - type: markdown_block\n    id: body\n    body: \"Page %s.\"\n" % (page, page))
    watcher = Watcher(workspace)
    try:
        ready = poll(lambda: any(line.startswith("quire: watching ") for line in watcher.since(0)) or watcher.process.poll() is not None, 30.0, 0.05)
        if not ready or watcher.process.poll() is not None:
            raise SystemExit("FAIL: the watcher did not start: %s" % watcher.tail())
        if not any(": published v" in line for line in watcher.since(0)):
            raise SystemExit("FAIL: the watcher's first build published nothing: %s" % watcher.tail())
        quiet(watcher)
        summary.append("%-28s %.1f s (%d pages)" % ("first publish", time.time() - began, len(PAGES) + len(BULK)))
        editor_sequence(workspace, watcher, "vim", "home")
        editor_sequence(workspace, watcher, "nano", "about")
        editor_sequence(workspace, watcher, "nano --backup --locking", "news")
        editor_sequence(workspace, watcher, "emacs", "guides/safety")
        rsync_session(workspace, watcher)
        cp_session(workspace, watcher)
        mv_session(workspace, watcher)
        git_session(workspace, watcher)
        translation_drop(workspace, watcher)

        check(watcher.process.poll() is None, "the watcher is not alive at the end (exit %s): %s" % (watcher.process.returncode, watcher.tail()))
        watcher.process.send_signal(signal.SIGTERM)
        try:
            code = watcher.process.wait(20)
        except subprocess.TimeoutExpired:
            watcher.process.kill()
            code = "none (killed after 20 s)"
        watcher.reader.join(5)
        check(code == 0, "SIGTERM: the watcher exited %s: %s" % (code, watcher.tail()))
        check(workspace.staging_left(stopped_watcher=True) == [], "staging left: %r" % workspace.staging_left())
        result = workspace.quire("verify", "--site", SITE, check=False)
        check(result.returncode == 0, "quire verify exited %d: %s" % (result.returncode, result.stderr.strip()[-600:]))
    finally:
        if watcher.process.poll() is None:
            watcher.process.kill()
            watcher.process.wait()
    print("editors against quire watch (%.1f s):" % (time.time() - began))
    for line in summary:
        print("  " + line)
    if problems:
        print("FAIL: %d problem(s); workspace kept at %s" % (len(problems), workspace.path))
        for problem in problems:
            print("  - " + problem)
        sys.exit(1)
    workspace.remove()
    print("ok")


if __name__ == "__main__":
    main()
