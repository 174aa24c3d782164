import Foundation
import Glibc
import QuireModel
import Synchronization
import Testing

@testable import QuireCore

/// Rendered files streamed to `staging/blobs-*` while a build renders, then moved into trees.
@Suite struct PublishStagingBlobsTests {
    func staged(_ blobs: StagingBlobs, _ path: String, _ text: String) throws -> (file: OutputFile, blob: StagedBlob) {
        let content = blobs.stage(Array(text.utf8), at: path)
        guard case .staged(let blob) = content else {
            Issue.record("'\(path)' was not staged")
            throw StoreError("not staged")
        }
        return (OutputFile(path: path, content: content, inputDigest: "d"), blob)
    }

    @Test func stagedBlobsAreMovedIntoTheirTreesAndCloseLeavesNothing() throws {
        let dist = TemporaryDist()
        let store = try dist.store()
        let blobs = try store.openStagingBlobs()
        let (file, blob) = try staged(blobs, "en/a.json", #"{"title":"A"}"#)
        #expect(blob.sha256 == SHA256.digest(Array(#"{"title":"A"}"#.utf8)))
        #expect(blob.size == 13)
        #expect(FileSystem.exists(blob.path))
        let outcome = try store.publish(request([file, page("fr/a.json", #"{"title":"A (fr)"}"#)]))
        #expect(outcome == .published(VersionID(1), isCurrent: true))
        #expect(readText(store.root + "/current/en/a.json") == #"{"title":"A"}"#)
        #expect(try store.reader.files(of: VersionID(1))["en/a.json"]?.sha256 == blob.sha256)
        // Moved, not copied; mode 0644 like any published file.
        #expect(!FileSystem.exists(blob.path))
        let info = try #require(lstatInfo((store.root + "/current/en/a.json").resolvedThroughLinks))
        #expect(info.st_mode & 0o777 == 0o644)
        #expect(try FileSystem.list(store.root + "/staging").count == 2)
        blobs.close()
        #expect(try FileSystem.list(store.root + "/staging").isEmpty)
        // After closing, content stays in memory.
        guard case .bytes = blobs.stage([1, 2, 3], at: "en/b.json") else {
            Issue.record("a closed staging area still staged a file")
            return
        }
    }

    @Test func aLiveBuildsBlobsSurviveTheLeftoverCleanupOfOtherPublishes() throws {
        let dist = TemporaryDist()
        let store = try dist.store()
        let blobs = try store.openStagingBlobs()
        defer { blobs.close() }
        let (file, blob) = try staged(blobs, "en/a.json", "A")
        // Another publish of this process, and one through another store (another lock holder),
        // both clean leftovers under the lock: a live staging area is not a leftover.
        _ = try store.publish(request([page("en/b.json", "B")]))
        _ = try dist.store().publish(request([page("en/c.json", "C")]))
        #expect(FileSystem.exists(blob.path))
        _ = try store.publish(request([file]))
        #expect(readText(store.root + "/current/en/a.json") == "A")
    }

    @Test func theBlobsOfABuildThatDiedAreRemovedByTheNextLockHolder() throws {
        let dist = TemporaryDist()
        let store = try dist.store()
        let staging = store.root + "/staging"
        // What a build killed while rendering leaves: its lock file is no longer locked.
        try FileSystem.makeDirectory(staging + "/blobs-1-dead")
        try FileSystem.createFile(staging + "/blobs-1-dead/1", Array("half".utf8))
        try FileSystem.createFile(staging + "/blobs-1-dead.lock", [])
        try FileSystem.makeDirectory(staging + "/blobs-2-nolock")
        _ = try store.publish(request([page("en/a.json", "A")]))
        #expect(try FileSystem.list(staging).isEmpty)
    }

    @Test func aBlobWhoseBytesAreStoredAlreadyIsLinkedAndLeftForClose() throws {
        let dist = TemporaryDist()
        let store = try dist.store()
        _ = try store.publish(request([page("en/a.json", "same")]))
        let blobs = try store.openStagingBlobs()
        let (file, blob) = try staged(blobs, "fr/a.json", "same")
        _ = try store.publish(request([carried("en/a.json"), file]))
        #expect(readText(store.root + "/current/fr/a.json") == "same")
        let stored = try #require(lstatInfo((store.root + "/current/en/a.json").resolvedThroughLinks))
        let linked = try #require(lstatInfo((store.root + "/current/fr/a.json").resolvedThroughLinks))
        #expect(stored.st_ino == linked.st_ino)
        #expect(FileSystem.exists(blob.path))
        blobs.close()
        #expect(try FileSystem.list(store.root + "/staging").isEmpty)
    }

    @Test func aFolderOfStagedBlobsBecomesItsTreeInOneMoveAndMixedFoldersStillComplete() throws {
        let dist = TemporaryDist()
        let store = try dist.store()
        let blobs = try store.openStagingBlobs()
        defer { blobs.close() }
        let a = try staged(blobs, "en/guides/a.json", "A")
        let b = try staged(blobs, "en/guides/b.json", "B")
        let c = try staged(blobs, "en/c.json", "C")
        let slash = try #require(a.blob.path.lastIndex(of: "/"))
        let guidesFolder = String(a.blob.path[..<slash])
        #expect(b.blob.path.hasPrefix(guidesFolder + "/") && !c.blob.path.hasPrefix(guidesFolder + "/"))
        let folderBefore = try #require(lstatInfo(guidesFolder))
        // en/ mixes a staged blob, new bytes and a subfolder: it cannot be adopted as it is.
        _ = try store.publish(request([a.file, b.file, c.file, page("en/d.json", "D")]))
        let guides = try #require(lstatInfo((store.root + "/current/en/guides").resolvedThroughLinks))
        #expect(guides.st_ino == folderBefore.st_ino)
        for (path, text) in [("en/guides/a.json", "A"), ("en/guides/b.json", "B"), ("en/c.json", "C"), ("en/d.json", "D")] {
            #expect(readText(store.root + "/current/" + path) == text)
        }
        #expect(try FileSystem.list((store.root + "/current/en").resolvedThroughLinks) == ["c.json", "d.json", "guides"])
        #expect(try store.operations.verify() == [])
    }

    @Test func blobsOfOneFolderStagedOnAllCoresAtOnceAreAllStaged() throws {
        let dist = TemporaryDist()
        let blobs = try dist.store().openStagingBlobs()
        defer { blobs.close() }
        let stagedCount = Atomic<Int>(0)
        // Neighbouring indices run at the same time: each pair races to make its folder.
        DispatchQueue.concurrentPerform(iterations: 2000) { index in
            if case .staged = blobs.stage([UInt8(index % 256)], at: "folder-\(index / 2)/\(index).json") {
                stagedCount.add(1, ordering: .relaxed)
            }
        }
        #expect(stagedCount.load(ordering: .relaxed) == 2000)
    }

    @Test func outputFoldersGetStagingFoldersOfTheirOwn() {
        let names = ["", "en", "en/guides", "en%2Fguides", "en%guides", "preview/en", "fr/été"].map { StagingBlobs.folderName($0[...]) }
        #expect(Set(names).count == names.count)
        #expect(names == ["f", "fen", "fen%2Fguides", "fen%252Fguides", "fen%25guides", "fpreview%2Fen", "ffr%2Fété"])
    }

    @Test func aBuildStreamsItsOutputAndLeavesNoStagingWhileCheckWritesNothing() throws {
        let fixture = try SiteFixture()
        try fixture.write("title: A\nsections:\n  - type: markdown_block\n    id: why\n    body: \"# Why\\nBecause.\"\n", to: "a.yaml")
        try fixture.write("title: B\nsections:\n  - type: divider\n", to: "b.yaml")
        try fixture.write("why.body: \"# Pourquoi\\nParce que.\"\n", to: "l10n/fr/a.yaml")

        let checked = fixture.build(publish: false)
        #expect(!FileManager.default.fileExists(atPath: fixture.dist))

        var options = BuildOptions()
        options.keepsSources = false
        let result = SiteBuilder(site: fixture.site, pagesRoot: fixture.pages, distRoot: fixture.dist, options: options).build()
        #expect(result.operationalError == nil)
        #expect(result.filesRendered > 0)
        // A check makes no file of what it renders, and says what a build would.
        #expect(checked.filesRendered == result.filesRendered)
        #expect(checked.diagnostics.map(\.description) == result.diagnostics.map(\.description))
        #expect(try FileSystem.list("\(fixture.dist)/\(fixture.site)/staging").isEmpty)
        #expect(try fixture.published("fr/a.json").contains("Pourquoi"))
        #expect(try fixture.published("en/a.json").contains("Because"))
        // The same bytes as a builder that keeps its sources (`quire watch`).
        #expect(IncrementalBuildTests.snapshot(fixture.dist, site: fixture.site) == IncrementalBuildTests.fresh(fixture))
    }
}

@Suite struct WriteBehindTests {
    /// Counts syncs, and how many ran at once.
    final class SyncRecorder: Sendable {
        let started = Atomic<Int>(0)
        let running = Atomic<Int>(0)
        let mostAtOnce = Atomic<Int>(0)

        func sync() {
            started.add(1, ordering: .relaxed)
            let now = running.add(1, ordering: .relaxed).newValue
            if now > mostAtOnce.load(ordering: .relaxed) { mostAtOnce.store(now, ordering: .relaxed) }
            usleep(2_000)
            running.subtract(1, ordering: .relaxed)
        }
    }

    @Test func aSyncStartsOnlyPastTheThreshold() {
        let recorder = SyncRecorder()
        let writeBehind = WriteBehind(threshold: 100) { recorder.sync() }
        writeBehind.wrote(60)
        writeBehind.wait()
        #expect(recorder.started.load(ordering: .relaxed) == 0)
        writeBehind.wrote(60)
        writeBehind.wait()
        #expect(recorder.started.load(ordering: .relaxed) == 1)
        // The count starts again after a sync.
        writeBehind.wrote(60)
        writeBehind.wait()
        #expect(recorder.started.load(ordering: .relaxed) == 1)
    }

    @Test func writersOnManyThreadsNeverRunTwoSyncsAtOnce() {
        let recorder = SyncRecorder()
        let writeBehind = WriteBehind(threshold: 1_000) { recorder.sync() }
        DispatchQueue.concurrentPerform(iterations: 2_000) { _ in writeBehind.wrote(100) }
        writeBehind.wait()
        // 200,000 bytes: at most one sync per 1,000, at least one, and one at a time.
        let started = recorder.started.load(ordering: .relaxed)
        #expect(started >= 1 && started <= 200)
        #expect(recorder.mostAtOnce.load(ordering: .relaxed) == 1)
    }

    @Test func stagingSyncsTheFileSystemWhileABuildWrites() throws {
        let dist = TemporaryDist()
        let store = try dist.store()
        let blobs = try store.openStagingBlobs()
        let megabyte = [UInt8](repeating: 0x61, count: 1 << 20)
        let files = WriteBehind.defaultThreshold >> 20
        for index in 0..<files - 1 { _ = blobs.stage(megabyte, at: "en/page-\(index).json") }
        #expect(blobs.writeBehind.syncsStarted.load(ordering: .relaxed) == 0)
        guard case .staged = blobs.stage(megabyte, at: "en/last.json") else {
            Issue.record("not staged")
            return
        }
        #expect(blobs.writeBehind.syncsStarted.load(ordering: .relaxed) == 1)
        // Closing waits for the sync, then removes every blob and the lock.
        blobs.close()
        #expect(try FileSystem.list(store.root + "/staging").isEmpty)
    }
}
