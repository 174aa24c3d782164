import Foundation
import QuireCore
import Testing

@testable import QuireWatch

/// Real inotify on real temporary folders. libinotifytools is process-wide: these tests run one
/// at a time, all in this one suite.
@Suite("PageWatcher (real inotify)", .serialized)
struct PageWatcherTests {
    @Test("echo > file is reported")
    func echoIntoFile() async throws {
        let fixture = try WatchFixture()
        defer { fixture.tearDown() }
        try fixture.shell("echo 'title: Store' > store.yaml")
        #expect(await fixture.waitFor("store.yaml"))
    }

    @Test("change sets are delivered on the queue the caller names (quire watch: its build queue)")
    func deliveredOnTheCallersQueue() async throws {
        let fixture = try WatchFixture()
        defer { fixture.tearDown() }
        try fixture.shell("echo 'title: Store' > store.yaml && echo 'title: About' > about.yaml")
        #expect(await fixture.waitFor("store.yaml", "about.yaml"))
        #expect(!fixture.deliveredOnQueue.isEmpty)
        #expect(fixture.deliveredOnQueue.allSatisfy { $0 })
    }

    @Test("cp, mv in, mv out and rm are reported")
    func copyMoveRemove() async throws {
        let fixture = try WatchFixture()
        defer { fixture.tearDown() }
        try fixture.shell("echo a > \"$OUTSIDE/a.yaml\" && echo b > \"$OUTSIDE/b.yaml\"")
        try fixture.shell("cp \"$OUTSIDE/a.yaml\" copied.yaml")
        #expect(await fixture.waitFor("copied.yaml"))
        try fixture.shell("mv \"$OUTSIDE/b.yaml\" moved-in.yaml")
        #expect(await fixture.waitFor("moved-in.yaml"))
        let before = fixture.changeSets.count
        try fixture.shell("mv copied.yaml \"$OUTSIDE/\"")
        #expect(await fixture.waitUntil { $0.changeSets.dropFirst(before).contains { $0.paths.contains(fixture.path("copied.yaml")) } })
        let beforeRemove = fixture.changeSets.count
        try fixture.shell("rm moved-in.yaml")
        #expect(
            await fixture.waitUntil { $0.changeSets.dropFirst(beforeRemove).contains { $0.paths.contains(fixture.path("moved-in.yaml")) } })
    }

    @Test("safe saves by vim, JetBrains and rsync report the page and never a temp name")
    func safeSaves() async throws {
        let fixture = try WatchFixture { root in
            for page in ["vim.yaml", "vim-rename.yaml", "jb.yaml", "rsync.yaml"] {
                try "a: 1\n".write(toFile: root + "/" + page, atomically: false, encoding: .utf8)
            }
        }
        defer { fixture.tearDown() }
        // Real vim: swap files .vim.yaml.swp and .swx around an in-place write.
        try fixture.shell("vim -u NONE -i NONE -N -es -c 'normal! Gob: 2' -c 'wq' vim.yaml")
        // vim with backupcopy=no: probe 4913, rename to a ~ backup, write anew, drop the backup.
        try fixture.shell(
            "echo > 4913 && rm 4913 && mv vim-rename.yaml vim-rename.yaml~ && echo 'b: 2' > vim-rename.yaml && rm vim-rename.yaml~")
        // JetBrains safe write.
        try fixture.shell(
            "echo 'b: 2' > jb.yaml___jb_tmp___ && mv jb.yaml jb.yaml___jb_old___ && mv jb.yaml___jb_tmp___ jb.yaml && rm jb.yaml___jb_old___"
        )
        // rsync: a hidden temp name renamed into place.
        try fixture.shell("echo 'b: 2' > .rsync.yaml.Xy12Ab && mv .rsync.yaml.Xy12Ab rsync.yaml")
        // Others: partial downloads and .tmp files.
        try fixture.shell("echo x > page.yaml.part && rm page.yaml.part && echo x > page.yaml.tmp && rm page.yaml.tmp")
        try fixture.shell("echo done > sentinel.yaml")
        #expect(await fixture.waitFor("vim.yaml", "vim-rename.yaml", "jb.yaml", "rsync.yaml", "sentinel.yaml"))
        let tempPaths = fixture.reportedPaths.filter {
            EditorTempFiles.isIgnored(relativePath: String($0.dropFirst(fixture.root.count)))
        }
        #expect(tempPaths.isEmpty, "temp names reported: \(tempPaths.sorted())")
    }

    @Test("a file still being written is not reported until its writer closes it")
    func slowWriter() async throws {
        let fixture = try WatchFixture()
        defer { fixture.tearDown() }
        // One open(O_CREAT) for the whole write, as an editor or upload does.
        let descriptor = open(fixture.path("slow.yaml"), O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        #expect(descriptor >= 0)
        let handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: false)
        handle.write(Data("title: half".utf8))
        try await Task.sleep(for: .milliseconds(400))
        #expect(!fixture.reportedPaths.contains(fixture.path("slow.yaml")), "reported while still open for writing")
        handle.write(Data(" and the rest\n".utf8))
        try handle.close()
        #expect(await fixture.waitFor("slow.yaml"))
    }

    @Test("a hard link, which never sends a close, is still reported")
    func hardLink() async throws {
        let fixture = try WatchFixture()
        defer { fixture.tearDown() }
        try fixture.shell("echo 'title: x' > $OUTSIDE/x.yaml && ln $OUTSIDE/x.yaml linked.yaml")
        #expect(await fixture.waitFor("linked.yaml"))
    }

    @Test("an emacs lock file (a dangling symlink) is ignored without complaint")
    func emacsLockFile() async throws {
        let fixture = try WatchFixture()
        defer { fixture.tearDown() }
        try fixture.shell("ln -s 'editor@host.4242:1700000000' .#store.yaml && echo x > '#store.yaml#'")
        try fixture.shell("echo 'title: Store' > store.yaml && rm .#store.yaml '#store.yaml#'")
        #expect(await fixture.waitFor("store.yaml"))
        #expect(!fixture.reportedPaths.contains { $0.contains("#") })
        #expect(fixture.log.isEmpty, "unexpected messages: \(fixture.log)")
    }

    @Test("files written right after mkdir -p are found by scanning the new folder")
    func newFolderScan() async throws {
        let fixture = try WatchFixture()
        defer { fixture.tearDown() }
        // Written from this process at once, most before the reader has watched the folder.
        let names = (0..<20).map { "guides/safety/range/rule-\($0).yaml" }
        try FileManager.default.createDirectory(atPath: fixture.path("guides/safety/range"), withIntermediateDirectories: true)
        for name in names {
            try "rule: 1\n".write(toFile: fixture.path(name), atomically: false, encoding: .utf8)
        }
        #expect(await fixture.waitUntil { fixture in names.allSatisfy { fixture.reportedPaths.contains(fixture.path($0)) } })
        // The new folders are watched too.
        try fixture.shell("echo z > guides/safety/range/later.yaml && echo y > guides/intro.yaml")
        #expect(await fixture.waitFor("guides/safety/range/later.yaml", "guides/intro.yaml"))
    }

    @Test("a folder moved in is watched and its files reported")
    func folderMovedIn() async throws {
        let fixture = try WatchFixture()
        defer { fixture.tearDown() }
        try fixture.shell("mkdir -p \"$OUTSIDE/drills/sub\" && echo x > \"$OUTSIDE/drills/sub/d1.yaml\" && mv \"$OUTSIDE/drills\" drills")
        #expect(await fixture.waitFor("drills/sub/d1.yaml"))
        try fixture.shell("echo y > drills/sub/d2.yaml")
        #expect(await fixture.waitFor("drills/sub/d2.yaml"))
    }

    @Test("a renamed folder reports old and new paths, and keeps being watched under its new name")
    func folderRename() async throws {
        let fixture = try WatchFixture { root in
            try FileManager.default.createDirectory(atPath: root + "/guides/deep", withIntermediateDirectories: true)
            try "a: 1\n".write(toFile: root + "/guides/deep/a.yaml", atomically: false, encoding: .utf8)
        }
        defer { fixture.tearDown() }
        try fixture.shell("mv guides manuals")
        #expect(await fixture.waitFor("guides", "manuals/deep/a.yaml"))
        try fixture.shell("echo b > manuals/deep/b.yaml")
        #expect(await fixture.waitFor("manuals/deep/b.yaml"))
        #expect(!fixture.reportedPaths.contains(fixture.path("guides/deep/b.yaml")))
        // A folder moved out stops being reported; one deleted and recreated is watched anew.
        try fixture.shell("mv manuals \"$OUTSIDE/\" && echo c > \"$OUTSIDE/manuals/deep/c.yaml\"")
        try fixture.shell("mkdir -p manuals/deep && echo d > manuals/deep/d.yaml && rm -r manuals && mkdir -p manuals/deep")
        try fixture.shell("echo e > manuals/deep/e.yaml")
        #expect(await fixture.waitFor("manuals/deep/e.yaml"))
        #expect(!fixture.reportedPaths.contains(fixture.path("manuals/deep/c.yaml")))
        #expect(fixture.log.isEmpty, "unexpected messages: \(fixture.log)")
    }

    @Test("a deleted folder is reported as a change")
    func folderDeleted() async throws {
        let fixture = try WatchFixture { root in
            try FileManager.default.createDirectory(atPath: root + "/old", withIntermediateDirectories: true)
            try "a: 1\n".write(toFile: root + "/old/a.yaml", atomically: false, encoding: .utf8)
        }
        defer { fixture.tearDown() }
        try fixture.shell("rm -r old")
        #expect(await fixture.waitFor("old", "old/a.yaml"))
    }

    @Test("300 files written in a burst arrive in at most 3 change sets that publish")
    func burst() async throws {
        // A wide quiet window: a busy shared machine must not split the burst.
        let fixture = try WatchFixture(options: WatchOptions(quietWindow: 0.5, maxDelay: 10))
        defer { fixture.tearDown() }
        let names = (0..<300).map { "burst/page-\($0).yaml" }
        try FileManager.default.createDirectory(atPath: fixture.path("burst"), withIntermediateDirectories: true)
        for name in names {
            try "title: \(name)\n".write(toFile: fixture.path(name), atomically: false, encoding: .utf8)
        }
        #expect(await fixture.waitUntil(timeout: 20) { fixture in names.allSatisfy { fixture.reportedPaths.contains(fixture.path($0)) } })
        // Parts handed over while the burst is written are marked `moreComing`: not published.
        #expect(await fixture.waitUntil(timeout: 5) { !($0.changeSets.last?.moreComing ?? true) })
        let publishing = fixture.changeSets.filter { !$0.moreComing }
        #expect(publishing.count <= 3, "\(publishing.count) change sets that publish")
    }

    @Test("changes wait while .git/index.lock exists and are emitted when it is removed")
    func gitIndexLockHolds() async throws {
        let fixture = try WatchFixture { root in
            try FileManager.default.createDirectory(atPath: root + "/.git", withIntermediateDirectories: true)
        }
        defer { fixture.tearDown() }
        try fixture.shell("touch .git/index.lock && echo x > checked-out.yaml")
        #expect(await fixture.waitUntil { $0.log.contains { $0.contains("holding changes") } })
        #expect(!fixture.reportedPaths.contains(fixture.path("checked-out.yaml")))
        try fixture.shell("echo y > second.yaml && rm .git/index.lock")
        #expect(await fixture.waitFor("checked-out.yaml", "second.yaml"))
        #expect(!fixture.reportedPaths.contains { $0.contains("/.git") })
    }

    @Test("poll mode reports changed paths from snapshot differences")
    func pollMode() async throws {
        let fixture = try WatchFixture(options: WatchOptions(pollInterval: 0.1)) { root in
            try "a: 1\n".write(toFile: root + "/kept.yaml", atomically: false, encoding: .utf8)
            try "a: 1\n".write(toFile: root + "/removed.yaml", atomically: false, encoding: .utf8)
        }
        defer { fixture.tearDown() }
        try fixture.shell("mkdir -p sub && echo x > sub/new.yaml && rm removed.yaml && echo x > .hidden.yaml.swp")
        #expect(await fixture.waitFor("sub/new.yaml", "removed.yaml"))
        #expect(!fixture.reportedPaths.contains(fixture.path("kept.yaml")))
        #expect(!fixture.reportedPaths.contains { $0.contains(".swp") })
    }

    @Test("running out of inotify watches says how to raise the limit and falls back to rescans")
    func watchLimitFallback() async throws {
        let fixture = try WatchFixture(watchBudget: 2) { root in
            try FileManager.default.createDirectory(atPath: root + "/a", withIntermediateDirectories: true)
        }
        defer { fixture.tearDown() }
        // Two watches (root, a) fit; the third folder does not.
        try fixture.shell("mkdir b")
        #expect(await fixture.waitUntil { $0.changeSets.contains(where: \.needsFullRescan) })
        #expect(
            fixture.log.contains {
                $0.contains("/proc/sys/fs/inotify/max_user_watches") && $0.contains("sysctl fs.inotify.max_user_watches=524288")
            })
        try fixture.shell("echo x > b/polled.yaml")
        #expect(await fixture.waitFor("b/polled.yaml"))
    }

    @Test("a second inotify watcher in the same process is refused")
    func oneWatcherPerProcess() throws {
        let fixture = try WatchFixture()
        defer { fixture.tearDown() }
        let second = try PageWatcher(root: fixture.outside) { _ in }
        #expect(throws: WatchError.alreadyWatching(root: fixture.outside)) { try second.start() }
    }
}
