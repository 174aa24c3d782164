import Foundation
import Glibc
import QuireModel
import Testing

@testable import QuireCore

@Suite struct PublishOperationsTests {
    /// Three versions: v1 base, v2 changes the English store page, v3 adds a French page.
    private func threeVersions(_ dist: TemporaryDist) throws -> SiteStore {
        let store = try dist.store()
        _ = try store.publish(request(baseFiles))
        var files = baseFiles
        files[0] = page("en/trex-store.json", #"{"title":"Store 2"}"#)
        _ = try store.publish(request(files))
        _ = try store.publish(request(files + [page("fr/new.json", "{}")]))
        return store
    }

    @Test func theLastEntriesOfALongHistoryAreReadFromItsEnd() throws {
        let dist = TemporaryDist()
        let store = try dist.store()
        let history = History(path: store.layout.history)
        // About 60 KB: several tail windows, lines cut at each window's start.
        for number in 1...300 {
            try history.append(
                HistoryEntry(
                    action: .publish, from: VersionID(number), to: VersionID(number + 1),
                    reason: String(repeating: "r", count: number % 7 * 20)))
        }
        let all = try store.operations.history()
        #expect(all.count == 300)
        for count in [1, 25, 299, 300, 400] {
            #expect(try store.operations.history(last: count).map(\.to) == all.suffix(count).map(\.to), "last \(count)")
        }
        // A torn last line (a crash mid-append) is skipped there too.
        let descriptor = open(store.layout.history, O_WRONLY | O_APPEND)
        _ = write(descriptor, "{\"when\":\"20", 12)
        close(descriptor)
        #expect(try store.operations.history(last: 3).map(\.to) == all.suffix(3).map(\.to))
    }

    @Test func rollbackPinsCurrentWhilePublishingContinues() throws {
        let dist = TemporaryDist()
        let store = try threeVersions(dist)
        #expect(try store.operations.rollback(reason: "bad banner") == VersionID(2))
        #expect(link(store.root + "/current") == "versions/v000002")
        #expect(try store.reader.pinnedVersion() == VersionID(2))
        #expect(try store.operations.pin()?.reason == "bad banner")

        let outcome = try store.publish(request(baseFiles + [page("de/x.json", "{}")]))
        #expect(outcome == .published(VersionID(4), isCurrent: false))
        #expect(try store.reader.currentVersion() == VersionID(2))
        #expect(try store.reader.newestVersion() == VersionID(4))

        #expect(try store.operations.unpin(reason: "fixed") == VersionID(4))
        #expect(try store.reader.pinnedVersion() == nil)
        #expect(link(store.root + "/current") == "versions/v000004")

        let actions = try store.operations.history().map(\.action)
        #expect(actions == [.publish, .publish, .publish, .rollback, .publish, .unpin])
        let rollback = try store.operations.history()[3]
        #expect(rollback.from == VersionID(3) && rollback.to == VersionID(2) && rollback.reason == "bad banner" && !rollback.user.isEmpty)
    }

    @Test func rollbackToAMissingVersionOrBeforeTheFirstIsRefused() throws {
        let dist = TemporaryDist()
        let store = try dist.store()
        _ = try store.publish(request(baseFiles))
        #expect(throws: StoreError.self) { try store.operations.rollback(reason: "") }
        #expect(throws: StoreError.self) { try store.operations.rollback(to: VersionID(9), reason: "") }
        #expect(try store.reader.currentVersion() == VersionID(1))
        #expect(try store.reader.pinnedVersion() == nil)
    }

    @Test func versionsListChangesAgainstTheParent() throws {
        let dist = TemporaryDist()
        let store = try threeVersions(dist)
        try store.operations.rollback(to: VersionID(1), reason: "test")
        let infos = try store.operations.versions()
        #expect(infos.map(\.id) == [VersionID(1), VersionID(2), VersionID(3)])
        #expect(infos[0].pages == 3)
        #expect(infos[0].locales == ["en", "fr"])
        #expect(infos[0].isCurrent && infos[0].isPinned)
        #expect(!infos[2].isCurrent)
        #expect(
            infos[1].changes == VersionChanges(from: try store.reader.files(of: VersionID(1)), to: try store.reader.files(of: VersionID(2)))
        )
        #expect(infos[1].changes?.changed == ["en/trex-store.json"])
        #expect(infos[2].changes?.added == ["fr/new.json"])
        #expect(infos[2].changes?.removed == [])
        #expect(infos[2].bytes == (try store.reader.files(of: VersionID(3))).values.reduce(0) { $0 + $1.size })
    }

    @Test func verifyPassesOnAFreshVersionAndFindsModifiedMissingAndExtraFiles() throws {
        let dist = TemporaryDist()
        let store = try threeVersions(dist)
        #expect(try store.operations.verify(version: VersionID(3)) == [])
        let en = (store.root + "/versions/v000003/en").resolvedThroughLinks
        let guides = (store.root + "/versions/v000003/en/guides").resolvedThroughLinks
        // Hard links share the inode: break the link first so only this tree's copy changes.
        try FileSystem.remove(en + "/trex-store.json")
        try FileSystem.createFile(en + "/trex-store.json", Array(#"{"title":"Hacked"}"#.utf8))
        try FileSystem.remove(guides + "/range-safety.json")
        try FileSystem.createFile(en + "/stray.json", [])
        let problems = try store.operations.verify(version: VersionID(3))
        #expect(problems.contains { $0.kind == .changed && $0.path == "en/trex-store.json" })
        #expect(problems.contains { $0.kind == .missing && $0.path == "en/guides/range-safety.json" })
        #expect(problems.contains { $0.kind == .extra && $0.path == "en/stray.json" })
        #expect(problems.count == 3)
        // v2 shares the damaged en tree with v3; v1 has its own en tree but shares en/guides.
        #expect(try store.operations.verify(version: VersionID(2)).count == 3)
        #expect(try store.operations.verify(version: VersionID(1)).map(\.path) == ["en/guides/range-safety.json"])
    }

    @Test func gcKeepsCurrentPinnedAndNewerAndRemovesUnreachableTrees() throws {
        let dist = TemporaryDist()
        let store = try threeVersions(dist)
        _ = try store.publish(request([page("en/only.json", "{}")]))
        try store.operations.rollback(to: VersionID(2), reason: "pin v2")
        let enOfV1 = try #require(link(store.root + "/versions/v000001/en"))
        let report = try store.operations.gc(keep: 1)
        #expect(report.removedVersions == [VersionID(1)])
        #expect(report.removedTrees >= 1)
        #expect(try FileSystem.list(store.root + "/versions") == ["v000002", "v000003", "v000004"])
        let enTree = String(enOfV1.dropFirst("../../trees/".count))
        #expect(!FileSystem.exists(store.root + "/trees/" + enTree))
        #expect(!FileSystem.exists(store.root + "/trees/" + enTree + ".json"))
        for version in [2, 3, 4] { #expect(try store.operations.verify(version: VersionID(version)) == []) }
        #expect(try store.reader.currentVersion() == VersionID(2))
        #expect(try store.operations.history().last?.action == .gc)

        try store.operations.unpin(reason: "done")
        let second = try store.operations.gc(keep: 1)
        #expect(second.removedVersions == [VersionID(2), VersionID(3)])
        #expect(try store.operations.verify(version: VersionID(4)) == [])
        // Only v4's trees remain: one for en, none for fr and assets.
        let treeFolders = try FileSystem.list(store.root + "/trees").filter { !$0.hasSuffix(".json") }
        #expect(treeFolders.count == 1)
    }

    /// Retention sweeps all of `trees/` at its first run in a process, then only the trees the
    /// versions it removes reached: a tree no version reaches waits for the next whole sweep.
    @Test func retentionSweepsAllOnceThenWhatTheRemovedVersionsReached() throws {
        let dist = TemporaryDist()
        var store = try dist.store()
        func publish(_ number: Int) throws {
            var files = baseFiles
            files[0] = page("en/trex-store.json", #"{"title":"Store \#(number)"}"#)
            _ = try store.publish(request(files + [page("fr/n\(number).json", "{}")]))
        }
        func retain() throws -> CollectionReport {
            try store.operations.lock.withOperationLock { (lock) throws(StoreError) -> CollectionReport in
                try store.operations.gc(keep: 2, retaining: true, holding: lock)
            }
        }
        func orphan(_ character: Character) throws -> String {
            let id = String(repeating: character, count: 64)
            try FileSystem.makeDirectory(store.root + "/trees/" + id)
            try FileSystem.replaceFile(store.root + "/trees/" + id + ".json", Array("{}".utf8))
            return id
        }
        /// The trees on disk that the kept versions do not reach.
        func unreached() throws -> Set<String> {
            let kept = try store.reader.allVersions()
            let reachable = try GarbageCollector(layout: store.layout, children: store.reader.treeChildren, faults: .none)
                .reachable(from: kept)
            let onDisk = try FileSystem.list(store.root + "/trees").map { $0.hasSuffix(".json") ? String($0.dropLast(5)) : $0 }
            return Set(onDisk).subtracting(reachable)
        }

        for number in 1...3 { try publish(number) }
        let first = try orphan("a")
        #expect(try retain().removedVersions == [VersionID(1)])
        #expect(try unreached() == [], "the first retention in a process sweeps all of trees/")
        #expect(!FileSystem.exists(store.root + "/trees/" + first))

        let second = try orphan("b")
        try publish(4)
        let report = try retain()
        #expect(report.removedVersions == [VersionID(2)])
        #expect(report.removedTrees >= 1, "v2's own trees go")
        #expect(try unreached() == [second], "only the orphan is left: it waits for a whole sweep")
        for version in [3, 4] { #expect(try store.operations.verify(version: VersionID(version)) == []) }

        // Another process (a new store) sweeps all again; so does a gc by hand.
        store = try dist.store()
        try publish(5)
        _ = try retain()
        #expect(try unreached() == [])
        let third = try orphan("c")
        try store.operations.gc(keep: 2)
        #expect(!FileSystem.exists(store.root + "/trees/" + third))
    }

    @Test func exportWritesPlainFilesThatVerify() throws {
        let dist = TemporaryDist()
        let store = try threeVersions(dist)
        let destination = dist.path + "/export-v3"
        try store.operations.export(version: VersionID(3), to: destination)
        #expect(readText(destination + "/en/guides/range-safety.json") == #"{"title":"Safety"}"#)
        let info = try #require(lstatInfo(destination + "/en"))
        #expect(FileSystem.isDirectory(info))
        let manifest = try #require(readText(destination + "/manifest.json"))
        #expect(manifest.contains(#""fr/new.json": {"#))
        #expect(!manifest.contains("folders"))
        #expect(try StoreOperations.verify(exportedFolder: destination) == [])

        try FileSystem.remove(destination + "/fr/new.json")
        try FileSystem.createFile(destination + "/fr/new.json", Array("{ }".utf8))
        try FileSystem.createFile(destination + "/en/extra.json", [])
        try FileSystem.remove(destination + "/assets/banner.jpg")
        let problems = try StoreOperations.verify(exportedFolder: destination)
        #expect(
            Set(problems.map { "\($0.kind) \($0.path)" }) == ["changed fr/new.json", "extra en/extra.json", "missing assets/banner.jpg"])
        #expect(throws: StoreError.self) { try store.operations.export(version: VersionID(3), to: destination) }
    }
}
