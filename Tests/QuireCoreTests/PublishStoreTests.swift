import Foundation
import Glibc
import QuireModel
import Testing

@testable import QuireCore

@Suite struct PublishStoreTests {
    @Test func firstPublishLaysOutVersionTreesAndCurrent() throws {
        let dist = TemporaryDist()
        let store = try dist.store()
        let outcome = try store.publish(request(baseFiles))
        #expect(outcome == .published(VersionID(1), isCurrent: true))
        #expect(link(store.root + "/current") == "versions/v000001")
        #expect(readText(store.root + "/current/en/trex-store.json") == #"{"title":"Store"}"#)
        #expect(readText(store.root + "/current/en/guides/range-safety.json") == #"{"title":"Safety"}"#)
        #expect(link(store.root + "/versions/v000001/en")?.hasPrefix("../../trees/") == true)
        let manifest = try #require(readText(store.root + "/versions/v000001/manifest.json"))
        #expect(manifest.contains(#""ttl": 60"#))
        #expect(manifest.contains(#""version": "v000001""#))
        #expect(FileSystem.exists(store.root + "/versions/v000001/build.json"))
        // Modes are fixed whatever the umask.
        let oldMask = umask(0o077)
        defer { umask(oldMask) }
        _ = try store.publish(request(baseFiles + [page("de/x.json", "{}")]))
        let file = try #require(lstatInfo((store.root + "/versions/v000002/de/x.json").resolvedThroughLinks))
        #expect(file.st_mode & 0o777 == 0o644)
        let folder = try #require(lstatInfo((store.root + "/versions/v000002/de").resolvedThroughLinks))
        #expect(folder.st_mode & 0o777 == 0o755)
        let files = try store.reader.files(of: VersionID(1))
        #expect(files.count == 4)
        #expect(files["en/guides/range-safety.json"]?.sha256 == SHA256.digest(Array(#"{"title":"Safety"}"#.utf8)))
        #expect(try store.reader.newestVersion() == VersionID(2))
        #expect(try store.reader.currentVersion() == VersionID(2))
        #expect(try FileSystem.list(store.root + "/staging").isEmpty)
    }

    @Test func oneChangedPageSharesUnchangedTreesAndHardLinksUnchangedFiles() throws {
        let dist = TemporaryDist()
        let store = try dist.store()
        _ = try store.publish(request(baseFiles))
        var files = baseFiles
        files[0] = page("en/trex-store.json", #"{"title":"Store 2"}"#)
        files[1] = carried("en/guides/range-safety.json")
        let outcome = try store.publish(request(files))
        #expect(outcome == .published(VersionID(2), isCurrent: true))
        let v1 = store.root + "/versions/v000001"
        let v2 = store.root + "/versions/v000002"
        // Unchanged top-level folders are the same tree, nothing written.
        #expect(link(v1 + "/fr") == link(v2 + "/fr"))
        #expect(link(v1 + "/assets") == link(v2 + "/assets"))
        #expect(link(v1 + "/en") != link(v2 + "/en"))
        // The unchanged subfolder of the changed folder is shared too.
        let oldGuides = try #require(lstatInfo(v1 + "/en/guides"))
        #expect(FileSystem.isSymbolicLink(oldGuides))
        #expect(link(v1 + "/en/guides") == link(v2 + "/en/guides"))
        // A changed tree hard-links files it keeps: write a sibling file to prove it.
        files[2] = page("fr/trex-store.json", #"{"title":"Boutique 2"}"#)
        files[0] = carried("en/trex-store.json")
        files.append(page("fr/new.json", "{}"))
        _ = try store.publish(request(files))
        let v3 = store.root + "/versions/v000003"
        #expect(readText(v3 + "/fr/new.json") == "{}")
        #expect(link(v3 + "/en") == link(v2 + "/en"))
        #expect(try store.reader.currentVersion() == VersionID(3))
        #expect(readText(store.root + "/current/en/trex-store.json") == #"{"title":"Store 2"}"#)
    }

    @Test func changedFolderHardLinksItsUnchangedFiles() throws {
        let dist = TemporaryDist()
        let store = try dist.store()
        _ = try store.publish(request([page("en/a.json", "A"), page("en/b.json", "B")]))
        _ = try store.publish(request([carried("en/a.json"), page("en/b.json", "B2")]))
        let old = try #require(lstatInfo(store.root + "/versions/v000001/en/a.json".resolvedThroughLinks))
        let new = try #require(lstatInfo(store.root + "/versions/v000002/en/a.json".resolvedThroughLinks))
        #expect(old.st_ino == new.st_ino)
        #expect(new.st_nlink == 2)
        let changedOld = try #require(lstatInfo(store.root + "/versions/v000001/en/b.json".resolvedThroughLinks))
        let changedNew = try #require(lstatInfo(store.root + "/versions/v000002/en/b.json".resolvedThroughLinks))
        #expect(changedOld.st_ino != changedNew.st_ino)
        #expect(readText(store.root + "/current/en/b.json") == "B2")
    }

    /// A delta finds the files it can link through the newest version's folders: equal bytes
    /// anywhere in the site are linked, and a path that held them once but no longer does is
    /// never linked for them.
    @Test func deltaLinksEqualBytesOnlyWhereTheNewestVersionStillHoldsThem() throws {
        let dist = TemporaryDist()
        let store = try dist.store()
        _ = try store.publish(request([page("en/a.json", "A"), page("fr/b.json", "B")]))
        func delta(_ files: [OutputFile], removed: [String] = []) throws {
            let base = try #require(try store.reader.newestVersion())
            let outcome = try store.publish(
                PublishDelta(
                    base: base, files: files, removed: removed, manifest: request([]).manifest,
                    buildRecord: JSONObject()))
            #expect(outcome == .published(VersionID(base.number + 1), isCurrent: true))
        }
        func inode(_ path: String) -> ino_t? { lstatInfo((store.root + "/current/" + path).resolvedThroughLinks)?.st_ino }

        try delta([page("fr/c.json", "A")])
        #expect(inode("fr/c.json") == inode("en/a.json"))
        // en/a.json and fr/c.json now hold other bytes: a new "A" must be written, not linked.
        try delta([page("en/a.json", "A2"), page("fr/c.json", "C")])
        try delta([page("en/d.json", "A")])
        #expect(readText(store.root + "/current/en/d.json") == "A")
        #expect(inode("en/d.json") != inode("en/a.json"))
        #expect(inode("en/d.json") != inode("fr/c.json"))
        // A removed file is gone from the index too: the same bytes come back written.
        try delta([], removed: ["fr/b.json"])
        #expect(try store.reader.files(of: #require(try store.reader.newestVersion()))["fr/b.json"] == nil)
        try delta([page("fr/e.json", "B")])
        #expect(readText(store.root + "/current/fr/e.json") == "B")
        let reread = try dist.store().reader.files(of: #require(try store.reader.newestVersion()))
        #expect(try store.reader.files(of: #require(try store.reader.newestVersion())) == reread)
    }

    @Test func equalOutputPublishesNothing() throws {
        let dist = TemporaryDist()
        let store = try dist.store()
        _ = try store.publish(request(baseFiles))
        let again = baseFiles.enumerated().map { $0.offset % 2 == 0 ? carried($0.element.path) : $0.element }
        #expect(try store.publish(request(again)) == .unchanged(VersionID(1)))
        #expect(try FileSystem.list(store.root + "/versions") == ["v000001"])
        // A site field change alone is a new version, sharing every tree.
        #expect(try store.publish(request(baseFiles, ttl: 30)) == .published(VersionID(2), isCurrent: true))
        #expect(link(store.root + "/versions/v000001/en") == link(store.root + "/versions/v000002/en"))
    }

    /// Content that an older version already stores (an edit undone, in full and as a delta) is
    /// published as that version's trees: the stored folders are kept, not replaced or doubled.
    @Test func contentAnOlderVersionStoresKeepsItsTrees() throws {
        let dist = TemporaryDist()
        let store = try dist.store()
        _ = try store.publish(request([page("en/guides/a.json", "A"), page("fr/b.json", "B")]))
        let v1 = store.root + "/versions/v000001"
        let stored = try #require(lstatInfo((v1 + "/en").resolvedThroughLinks))
        _ = try store.publish(request([page("en/guides/a.json", "A2"), carried("fr/b.json")]))
        #expect(link(v1 + "/en") != link(store.root + "/versions/v000002/en"))
        _ = try store.publish(request([page("en/guides/a.json", "A"), carried("fr/b.json")]))
        let v3 = store.root + "/versions/v000003"
        #expect(link(v3 + "/en") == link(v1 + "/en"))
        #expect(lstatInfo((v3 + "/en").resolvedThroughLinks)?.st_ino == stored.st_ino)
        // The same undo as a delta, over the folder and its subfolder.
        _ = try store.publish(
            PublishDelta(
                base: VersionID(3), files: [page("en/guides/a.json", "A2")], removed: [],
                manifest: request([]).manifest, buildRecord: JSONObject()))
        _ = try store.publish(
            PublishDelta(
                base: VersionID(4), files: [page("en/guides/a.json", "A")], removed: [],
                manifest: request([]).manifest, buildRecord: JSONObject()))
        let v5 = store.root + "/versions/v000005"
        #expect(link(v5 + "/en") == link(v1 + "/en"))
        #expect(lstatInfo((v5 + "/en").resolvedThroughLinks)?.st_ino == stored.st_ino)
        #expect(readText(store.root + "/current/en/guides/a.json") == "A")
        #expect(try store.operations.verify().isEmpty)
        #expect(try FileSystem.list(store.root + "/staging").isEmpty)
        let trees = try FileSystem.list(store.root + "/trees")
        #expect(trees.filter { $0.hasSuffix(".json") }.count * 2 == trees.count)
    }

    @Test func carryingAFileTheNewestVersionLacksIsRefused() throws {
        let dist = TemporaryDist()
        let store = try dist.store()
        _ = try store.publish(request(baseFiles))
        #expect(throws: StoreError.self) { try store.publish(request([carried("en/missing.json")])) }
        #expect(throws: StoreError.self) { try store.publish(request([page("top.json", "{}")])) }
        #expect(throws: StoreError.self) { try store.publish(request([page("en/../x.json", "{}")])) }
        #expect(try store.reader.currentVersion() == VersionID(1))
    }

    @Test func filesOfNewestComeFromMemoryAndMatchADiskRead() throws {
        let dist = TemporaryDist()
        _ = try dist.store().publish(request(baseFiles))
        let fresh = try dist.store()
        let fromDisk = try fresh.reader.files(of: VersionID(1))
        let afterPublish = try fresh.publish(request(baseFiles + [page("en/x.json", "X")]))
        #expect(afterPublish == .published(VersionID(2), isCurrent: true))
        let cached = try fresh.reader.files(of: VersionID(2))
        let reread = try dist.store().reader.files(of: VersionID(2))
        #expect(cached == reread)
        #expect(cached.count == fromDisk.count + 1)
    }

    @Test func statusFilesAreReplacedWhole() throws {
        let dist = TemporaryDist()
        let store = try dist.store()
        try StatusFolder(layout: store.layout).write(["status.json": Array("{}".utf8), "page/index.html": Array("<p>".utf8)])
        try StatusFolder(layout: store.layout).write(["status.json": Array(#"{"ok":true}"#.utf8)])
        #expect(readText(store.root + "/status/status.json") == #"{"ok":true}"#)
        #expect(readText(store.root + "/status/page/index.html") == "<p>")
        #expect(throws: StoreError.self) { try StatusFolder(layout: store.layout).write(["../x": []]) }
    }
}

extension String {
    /// The path with every symbolic link resolved, to reach the stored file itself.
    var resolvedThroughLinks: String {
        guard let resolved = realpath(self, nil) else { return self }
        defer { free(resolved) }
        return String(cString: resolved)
    }
}
