import Foundation
import Glibc
import QuireModel
import Testing

@testable import QuireCore

/// Spare folders (`SpareFolders`): a delta publish that edits a folder through the spare copy of
/// its earlier tree must publish exactly what linking every kept entry publishes.
@Suite struct PublishSpareFoldersTests {
    /// Two dists fed the same publishes, one keeping spare folders and one not.
    final class Pair {
        let spared = TemporaryDist()
        let plain = TemporaryDist()
        let withSpares: SiteStore
        let without: SiteStore

        init(_ files: [OutputFile]) throws {
            withSpares = try spared.store()
            without = try plain.store()
            try withSpares.spareFolders.keep()
            _ = try withSpares.publish(request(files))
            _ = try without.publish(request(files))
        }

        /// Publishes the same delta to both, after making the spares of the newest version.
        func delta(files: [OutputFile], removed: [String] = [], preparing: Bool = true, sourceLocation: SourceLocation = #_sourceLocation)
            throws
        {
            if preparing { withSpares.spareFolders.prepare { false } }
            for store in [withSpares, without] {
                let base = try #require(try store.reader.newestVersion())
                let delta = PublishDelta(
                    base: base, files: files, removed: removed, manifest: JSONObject([("locales", ["en", "fr"])]),
                    buildRecord: JSONObject())
                #expect(try store.publish(delta) == .published(VersionID(base.number + 1), isCurrent: true), sourceLocation: sourceLocation)
            }
            #expect(try withSpares.operations.verify().isEmpty, sourceLocation: sourceLocation)
            #expect(current(spared) == current(plain), sourceLocation: sourceLocation)
        }

        /// Publishes the same whole version to both, after making the spares of the newest version.
        func whole(_ files: [OutputFile], sourceLocation: SourceLocation = #_sourceLocation) throws {
            withSpares.spareFolders.prepare { false }
            for store in [withSpares, without] {
                let base = try #require(try store.reader.newestVersion())
                #expect(
                    try store.publish(request(files)) == .published(VersionID(base.number + 1), isCurrent: true),
                    sourceLocation: sourceLocation)
            }
            #expect(try withSpares.operations.verify().isEmpty, sourceLocation: sourceLocation)
            #expect(current(spared) == current(plain), sourceLocation: sourceLocation)
        }

        /// Every path under `current/`, with the bytes of files and the targets of links.
        func current(_ dist: TemporaryDist) -> [String: String] {
            var found: [String: String] = [:]
            func walk(_ folder: String, _ prefix: String) {
                for name in (try? FileSystem.list(folder)) ?? [] {
                    let path = folder + "/" + name
                    if let info = lstatInfo(path), FileSystem.isSymbolicLink(info), prefix.isEmpty == false {
                        // Subtree links name content ids: equal trees, equal links.
                        found[prefix + name] = "link " + (link(path) ?? "?")
                    }
                    var isFolder: ObjCBool = false
                    if FileManager.default.fileExists(atPath: path, isDirectory: &isFolder), isFolder.boolValue {
                        walk(path, prefix + name + "/")
                    } else {
                        found[prefix + name] = readText(path) ?? "?"
                    }
                }
            }
            walk(dist.path + "/trex/current", "")
            found["manifest.json"] = nil
            found["build.json"] = nil
            return found
        }

        var spares: [String] {
            let staging = spared.path + "/trex/staging"
            guard
                let folder = (try? FileSystem.list(staging))?.first(where: { $0.hasPrefix(SpareFolders.prefix) && !$0.hasSuffix(".lock") })
            else { return [] }
            return (try? FileSystem.list(staging + "/" + folder)) ?? []
        }
    }

    static let site =
        baseFiles + [
            page("en/guides/holsters.json", #"{"title":"Holsters"}"#),
            page("fr/guides/range-safety.json", #"{"title":"Sécurité"}"#),
        ]

    @Test func editsThroughSparesPublishWhatLinkingPublishes() throws {
        let pair = try Pair(Self.site)
        // A file changed two folders down: the spares of `en/guides` and `en` are taken.
        try pair.delta(files: [page("en/guides/range-safety.json", #"{"title":"Safety, edited"}"#)])
        #expect(pair.withSpares.spareFolders.taken == 2)
        // A file added, one removed, in the same folder.
        try pair.delta(files: [page("en/guides/optics.json", #"{"title":"Optics"}"#)], removed: ["en/guides/holsters.json"])
        #expect(pair.withSpares.spareFolders.taken == 4)
        // A whole folder emptied (its parent drops the subfolder link), and a new folder.
        try pair.delta(files: [page("fr/classes/basics.json", #"{"title":"Bases"}"#)], removed: ["fr/guides/range-safety.json"])
        // Edits of the same folder twice in a row: its new tree got a spare in between.
        try pair.delta(files: [page("en/trex-store.json", #"{"title":"Store 2"}"#)])
        let taken = pair.withSpares.spareFolders.taken
        try pair.delta(files: [page("en/trex-store.json", #"{"title":"Store 3"}"#)])
        #expect(pair.withSpares.spareFolders.taken == taken + 1)
    }

    /// A full build plans every folder, and one the newest version holds as an edit of its tree:
    /// what it keeps comes with the spare (with spares) or is linked from the tree by name
    /// (without), and either way the version is the one a store without history publishes.
    @Test func aWholePublishEditsAFolderThroughItsSpare() throws {
        let pair = try Pair(Self.site)
        // `en/guides`: a file changed, one added, one gone; a file of `fr/guides` carried.
        var files = Self.site.filter { $0.path != "en/guides/holsters.json" && $0.path != "fr/guides/range-safety.json" }
        files = files.map { $0.path == "en/guides/range-safety.json" ? page($0.path, #"{"title":"Safety, edited"}"#) : $0 }
        files += [page("en/guides/optics.json", #"{"title":"Optics"}"#), carried("fr/guides/range-safety.json")]
        try pair.whole(files)
        #expect(pair.withSpares.spareFolders.taken == 1, "en/guides: the one folder of files that changed")
        let fresh = TemporaryDist()
        _ = try fresh.store().publish(
            request(files.map { $0.path == "fr/guides/range-safety.json" ? page($0.path, #"{"title":"Sécurité"}"#) : $0 }))
        #expect(pair.current(pair.spared) == pair.current(fresh))
        // Then only `fr/guides` changes: its spare is taken, the folders carried whole are kept.
        try pair.whole(files.map { $0.path == "fr/guides/range-safety.json" ? page($0.path, #"{"title":"Sûreté"}"#) : carried($0.path) })
        #expect(pair.withSpares.spareFolders.taken == 2)
    }

    /// A folder listed in parts: the edit re-encodes the parts it touches, and its tree is the one
    /// the same files make from nothing (equal ids, so equal manifests).
    @Test func aWholePublishEditsABigFolderAsItsFilesWouldMakeIt() throws {
        let folder = (0..<600).map { page(String(format: "en/all/p-%03d.json", $0), #"{"n":\#($0)}"#) }
        let pair = try Pair(Self.site + folder)
        var files = Self.site + folder.filter { $0.path != "en/all/p-007.json" }
        files = files.map { $0.path == "en/all/p-300.json" ? page($0.path, #"{"n":"edited"}"#) : $0 }
        try pair.whole(files + [page("en/all/p-600.json", #"{"n":600}"#)])
        #expect(pair.withSpares.spareFolders.taken == 1)
        let fresh = TemporaryDist()
        _ = try fresh.store().publish(request(files + [page("en/all/p-600.json", #"{"n":600}"#)]))
        #expect(pair.current(pair.spared) == pair.current(fresh))
    }

    @Test func aSpareThatDoesNotMatchItsTreeIsNotUsed() throws {
        let pair = try Pair(Self.site)
        pair.withSpares.spareFolders.prepare { false }
        let staging = pair.spared.path + "/trex/staging"
        let folder = try #require(try FileSystem.list(staging).first { $0.hasPrefix(SpareFolders.prefix) && !$0.hasSuffix(".lock") })
        // Spares with an extra file, or one entry short: neither may reach a new tree.
        for (index, spare) in pair.spares.enumerated() {
            let path = staging + "/" + folder + "/" + spare
            if index % 2 == 0 {
                try FileSystem.createFile(path + "/stray.json", Array("stray".utf8))
            } else if let first = try FileSystem.list(path).first {
                try FileSystem.remove(path + "/" + first)
            }
        }
        try pair.delta(files: [page("en/guides/range-safety.json", #"{"title":"Safety, edited"}"#)])
        #expect(pair.withSpares.spareFolders.taken == 2, "taken, found wrong, and not used")
    }

    @Test func makingSparesStopsWhenASaveStartsAndDropsTheSparesOfOldTrees() throws {
        let pair = try Pair(Self.site)
        var asked = 0
        let made = pair.withSpares.spareFolders.prepare {
            asked += 1
            return asked > 2
        }
        #expect(made == 2)
        #expect(pair.spares.count == 2)
        #expect(!pair.spares.contains { $0.hasSuffix(".tmp") })
        // The next round makes the rest, and drops spares of trees the newest version lost.
        let all = pair.withSpares.spareFolders.prepare { false }
        #expect(all > 0)
        // A full publish changes `en` without taking its spare: the next round drops that one.
        let before = Set(pair.spares)
        _ = try pair.withSpares.publish(
            request(Self.site.map { $0.path == "en/trex-store.json" ? page($0.path, #"{"title":"Store 2"}"#) : $0 }))
        #expect(pair.withSpares.spareFolders.prepare { false } == 1)
        #expect(pair.spares.count == before.count, "one spare per folder, the old tree's dropped")
        #expect(Set(pair.spares).subtracting(before).count == 1)
    }

    @Test func aBigFolderStoppedHalfWayIsFinishedByTheNextRound() throws {
        // 300 files in one folder: linked in several rounds, each stopped by a save.
        let folder = (0..<300).map { page(String(format: "en/all/p-%03d.json", $0), #"{"n":\#($0)}"#) }
        let pair = try Pair(Self.site + folder)
        var asked = 0
        var rounds = 0
        var stoppedInside = false
        repeat {
            rounds += 1
            try #require(rounds < 50, "the spares are never finished")
            pair.withSpares.spareFolders.prepare {
                asked += 1
                return asked % 3 == 0
            }
            stoppedInside = stoppedInside || pair.spares.contains { $0.hasSuffix(".tmp") }
        } while pair.spares.count < 6 || pair.spares.contains { $0.hasSuffix(".tmp") }
        #expect(stoppedInside, "a round stopped inside the big folder and left its part")
        try pair.delta(files: [page("en/all/p-150.json", #"{"n":"edited"}"#)])
        #expect(pair.withSpares.spareFolders.taken == 2, "en/all and en, the big one finished across rounds")
    }

    /// A site with a folder of 300 pages whose spares stopped half way: assets, en and fr first,
    /// then en/all, stopped at its 128th link.
    private static func pairWithHalfMadeSpare() throws -> Pair {
        let folder = (0..<300).map { page(String(format: "en/all/p-%03d.json", $0), #"{"n":\#($0)}"#) }
        let pair = try Pair(site + folder)
        var asked = 0
        pair.withSpares.spareFolders.prepare {
            asked += 1
            return asked > 5
        }
        return pair
    }

    @Test func aSaveTakesAHalfMadeSpareAndLinksWhatItLacks() throws {
        let pair = try Self.pairWithHalfMadeSpare()
        #expect(pair.spares.contains("\(try #require(treeID(pair, "en/all"))).tmp"))
        // One entry it holds and one it lacks are dropped; one it lacks is edited.
        try pair.delta(
            files: [page("en/all/p-150.json", #"{"n":"edited"}"#)], removed: ["en/all/p-010.json", "en/all/p-200.json"], preparing: false)
        #expect(pair.withSpares.spareFolders.taken == 2, "en whole, en/all half made")
        #expect(!pair.spares.contains { $0.hasSuffix(".tmp") })
    }

    @Test func twoWorkersMakeEverySpareAndASaveTakesThem() throws {
        let folder = (0..<300).map { page(String(format: "en/all/p-%03d.json", $0), #"{"n":\#($0)}"#) }
        let pair = try Pair(Self.site + folder)
        let made = pair.withSpares.spareFolders.prepare(workers: 2) { false }
        #expect(made > 0 && made == pair.spares.count)
        #expect(!pair.spares.contains { $0.hasSuffix(".tmp") })
        try pair.delta(files: [page("en/all/p-150.json", #"{"n":"edited"}"#)], preparing: false)
        #expect(pair.withSpares.spareFolders.taken == 2, "en/all and en, both whole")
    }

    @Test func aHalfMadeSpareIsResumedWhereItStoppedNotMadeAgain() throws {
        let pair = try Self.pairWithHalfMadeSpare()
        let part = try #require(pair.spares.first { $0.hasSuffix(".tmp") })
        let staging = pair.spared.path + "/trex/staging"
        let lease = try #require(try FileSystem.list(staging).first { $0.hasPrefix(SpareFolders.prefix) && !$0.hasSuffix(".lock") })
        let held = try FileSystem.list(staging + "/" + lease + "/" + part).count
        #expect(held > 0 && held < 300)
        // A name it holds, taken out behind its back, is not linked again: the round goes on from its count.
        let first = try #require(try FileSystem.list(staging + "/" + lease + "/" + part).sorted().first)
        try FileSystem.remove(staging + "/" + lease + "/" + part + "/" + first)
        pair.withSpares.spareFolders.prepare { false }
        let whole = String(part.dropLast(4))
        #expect(try FileSystem.list(staging + "/" + lease + "/" + whole).count == 299)
    }

    /// The tree id of a folder of the newest version.
    private func treeID(_ pair: Pair, _ path: String) -> String? {
        link(pair.spared.path + "/trex/current/" + path).map { String($0.split(separator: "/").last ?? "") }
    }

    @Test func anotherProcessesCleanupKeepsTheSparesAndClosingRemovesThem() throws {
        let pair = try Pair(Self.site)
        pair.withSpares.spareFolders.prepare { false }
        let count = pair.spares.count
        #expect(count > 0)
        // Another store on the same dist takes the lock and clears leftovers: the lease holds.
        let other = try pair.spared.store()
        _ = try other.withPublishLock(timeout: 5, waiting: { _ in }) { _ in 0 }
        #expect(pair.spares.count == count)
        let staging = pair.spared.path + "/trex/staging"
        try #require(try FileSystem.list(staging).contains { $0.hasPrefix(SpareFolders.prefix) })
        pair.withSpares.spareFolders.close()
        #expect(try !FileSystem.list(staging).contains { $0.hasPrefix(SpareFolders.prefix) })
        // Without spares, a delta publishes as before.
        try pair.delta(files: [page("en/trex-store.json", #"{"title":"Store 2"}"#)])
    }

    @Test func aStoppedWatchersSparesServeTheNextOnesFirstPublish() throws {
        let pair = try Pair(Self.site)
        pair.withSpares.spareFolders.prepare { false }
        let made = pair.spares.sorted()
        #expect(made.count > 1)
        let staging = pair.spared.path + "/trex/staging"
        pair.withSpares.spareFolders.close(handingOver: true)
        #expect(try FileSystem.list(staging) == [SpareFolders.handedOver], "no lease left, the spares kept")

        // The next watcher's store takes them before its first publish, which takes two.
        let restarted = try pair.spared.store()
        try restarted.spareFolders.keep()
        #expect(pair.spares.sorted() == made)
        let base = try #require(try restarted.reader.newestVersion())
        let edit = [page("en/guides/range-safety.json", #"{"title":"Safety, edited"}"#)]
        for store in [restarted, pair.without] {
            let delta = PublishDelta(
                base: base, files: edit, removed: [], manifest: JSONObject([("locales", ["en", "fr"])]), buildRecord: JSONObject())
            #expect(try store.publish(delta) == .published(VersionID(base.number + 1), isCurrent: true))
        }
        #expect(restarted.spareFolders.taken == 2)
        #expect(try restarted.operations.verify().isEmpty)
        #expect(pair.current(pair.spared) == pair.current(pair.plain))
        restarted.spareFolders.close()
        #expect(try FileSystem.list(staging).isEmpty)
    }

    @Test func anyLockHoldersCleanupRemovesHandedOverSpares() throws {
        let pair = try Pair(Self.site)
        pair.withSpares.spareFolders.prepare { false }
        pair.withSpares.spareFolders.close(handingOver: true)
        let staging = pair.spared.path + "/trex/staging"
        try #require(try FileSystem.list(staging) == [SpareFolders.handedOver])
        // A build or rollback run between two watchers: its first lock clears leftovers.
        let other = try pair.spared.store()
        _ = try other.withPublishLock(timeout: 5, waiting: { _ in }) { _ in 0 }
        #expect(try FileSystem.list(staging).isEmpty)
    }
}
