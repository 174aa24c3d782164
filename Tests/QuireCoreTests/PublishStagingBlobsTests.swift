import Foundation
import Glibc
import QuireModel
import Testing
@testable import QuireCore

/// Rendered files streamed to `staging/blobs-*` while a build renders, then moved into trees.
@Suite struct PublishStagingBlobsTests {
    func staged(_ blobs: StagingBlobs, _ path: String, _ text: String) throws -> (file: OutputFile, blob: StagedBlob) {
        let content = blobs.stage(Array(text.utf8))
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
        #expect(blob.sha256 == SHA256.hash(Array(#"{"title":"A"}"#.utf8)))
        #expect(blob.size == 13)
        #expect(FileSystem.exists(blob.path))
        let outcome = try store.publish(request([file, page("fr/a.json", #"{"title":"A (fr)"}"#)]))
        #expect(outcome == .published(VersionID(1), isCurrent: true))
        #expect(readText(store.root + "/current/en/a.json") == #"{"title":"A"}"#)
        #expect(try store.files(of: VersionID(1))["en/a.json"]?.sha256 == blob.sha256)
        // Moved, not copied; mode 0644 like any published file.
        #expect(!FileSystem.exists(blob.path))
        let info = try #require(lstatInfo((store.root + "/current/en/a.json").resolvedThroughLinks))
        #expect(info.st_mode & 0o777 == 0o644)
        #expect(try FileSystem.list(store.root + "/staging").count == 2)
        blobs.close()
        #expect(try FileSystem.list(store.root + "/staging").isEmpty)
        // After closing, content stays in memory.
        guard case .bytes = blobs.stage([1, 2, 3]) else {
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

    @Test func aBuildStreamsItsOutputAndLeavesNoStagingWhileCheckWritesNothing() throws {
        let fixture = try SiteFixture()
        try fixture.write("title: A\nsections:\n  - type: markdown_block\n    id: why\n    body: \"# Why\\nBecause.\"\n", to: "a.yaml")
        try fixture.write("title: B\nsections:\n  - type: divider\n", to: "b.yaml")
        try fixture.write("why.body: \"# Pourquoi\\nParce que.\"\n", to: "l10n/fr/a.yaml")

        _ = fixture.build(publish: false)
        #expect(!FileManager.default.fileExists(atPath: fixture.dist))

        var options = BuildOptions()
        options.keepsSources = false
        let result = SiteBuilder(site: fixture.site, pagesRoot: fixture.pages, distRoot: fixture.dist, options: options).build()
        #expect(result.operationalError == nil)
        #expect(result.filesRendered > 0)
        #expect(try FileSystem.list("\(fixture.dist)/\(fixture.site)/staging").isEmpty)
        #expect(try fixture.published("fr/a.json").contains("Pourquoi"))
        #expect(try fixture.published("en/a.json").contains("Because"))
        // The same bytes as a builder that keeps its sources (`quire watch`).
        #expect(IncrementalBuildTests.snapshot(fixture.dist, site: fixture.site) == IncrementalBuildTests.fresh(fixture))
    }
}
