import Foundation
import Glibc
import QuireModel
import Testing

@testable import QuireCore

@Suite struct PublishRecoveryTests {
    @Test func leftoverStagingIsRemovedWhenTheLockIsTaken() throws {
        let dist = TemporaryDist()
        let store = try dist.store()
        _ = try store.publish(request(baseFiles))
        let leftover = store.root + "/staging/999-dead"
        try FileSystem.makeDirectories(leftover + "/trees/abc")
        try FileSystem.createFile(leftover + "/trees/abc/x.json", [1])
        try FileSystem.symbolicLink("versions/v000001", at: store.root + "/current.tmp-999")
        try dist.store().withPublishLock(timeout: 1, waiting: { _ in }) { _ in }
        #expect(try FileSystem.list(store.root + "/staging").isEmpty)
        #expect(!FileSystem.exists(store.root + "/current.tmp-999"))
        #expect(try store.operations.verify() == [])
    }

    @Test func aStoreRemovesLeftoversBeforeItsFirstBodyAndBehindLaterOnes() throws {
        let dist = TemporaryDist()
        let store = try dist.store()
        let leftover = store.root + "/staging/999-dead"
        try FileSystem.makeDirectories(leftover)
        try store.withPublishLock(timeout: 1, waiting: { _ in }) { _ in
            #expect(!FileSystem.exists(leftover))
        }
        // A process that crashed while this store lived: its leftovers go once the next body is done.
        try FileSystem.makeDirectories(leftover)
        try FileSystem.symbolicLink("versions/v000001", at: store.root + "/current.tmp-999")
        #expect(try store.publish(request(baseFiles)) == .published(VersionID(1), isCurrent: true))
        #expect(try FileSystem.list(store.root + "/staging").isEmpty)
        #expect(!FileSystem.exists(store.root + "/current.tmp-999"))
        #expect(try store.operations.verify() == [])
    }

    @Test func aSecondHolderWaitsSaysWhoHoldsTheLockAndGivesUp() throws {
        let dist = TemporaryDist()
        let first = try dist.store()
        let second = try dist.store()
        var messages: [String] = []
        try first.withPublishLock(timeout: 1, waiting: { _ in }) { lock in
            // flock belongs to the open file description: a second open conflicts even in-process.
            var refused = false
            do { try second.withPublishLock(timeout: 0.2, waiting: { messages.append($0) }) { _ in } } catch is StoreError {
                refused = true
            }
            #expect(refused)
            // The holder publishes with the lock it holds.
            #expect(try first.publish(request(baseFiles), holding: lock) == .published(VersionID(1), isCurrent: true))
        }
        #expect(messages == ["waiting for the publish lock of site 'trex' held by pid \(getpid())"])
        try second.withPublishLock(timeout: 1, waiting: { _ in Issue.record("the lock is free") }) { _ in }
    }

    @Test func atTheLinkLimitStoredFilesAreCopiedAndSubfoldersLinkedAnew() throws {
        let dist = TemporaryDist()
        let faults = FaultPlan()
        let store = try dist.store(faults: faults)
        _ = try store.publish(
            request([page("en/a.json", "A"), page("en/b.json", "B"), page("en/guides/g.json", "G"), page("fr/a.json", "FA")]))
        // Every hard link of a stored entry fails as it does when an inode has too many names.
        faults.fail(.init(operation: "hard-link", pathPrefix: store.root + "/trees/", errorNumber: EMLINK))
        defer { faults.stopFailing() }
        // A full publish carrying files, and a delta keeping entries of the edited folder.
        _ = try store.publish(request([carried("en/a.json"), page("en/b.json", "B2"), carried("en/guides/g.json"), carried("fr/a.json")]))
        let delta = PublishDelta(
            base: VersionID(2), files: [page("en/b.json", "B3")], removed: [], manifest: JSONObject([("locales", ["en", "fr"])]),
            buildRecord: JSONObject())
        #expect(try store.publish(delta) == .published(VersionID(3), isCurrent: true))
        for (path, text) in [("en/a.json", "A"), ("en/b.json", "B3"), ("en/guides/g.json", "G"), ("fr/a.json", "FA")] {
            #expect(readText(store.root + "/current/" + path) == text)
        }
        let copied = try #require(lstatInfo((store.root + "/current/en/a.json").resolvedThroughLinks))
        let first = try #require(lstatInfo((store.root + "/versions/v000001/en/a.json").resolvedThroughLinks))
        #expect(copied.st_ino != first.st_ino, "a copy, not a link")
        #expect(try store.operations.verify() == [])
    }

    @Test func aFailedWriteLeavesCurrentAndCleansStaging() throws {
        let dist = TemporaryDist()
        let faults = FaultPlan()
        let store = try dist.store(faults: faults)
        _ = try store.publish(request(baseFiles))
        faults.fail(.init(operation: "write", pathPrefix: store.root + "/staging/", errorNumber: ENOSPC))
        defer { faults.stopFailing() }
        let error = #expect(throws: StoreError.self) {
            try store.publish(request(baseFiles + [page("en/new.json", "{}")]))
        }
        #expect(error?.errorNumber == ENOSPC)
        #expect(error?.operation == "write")
        #expect(error?.description.contains("no space left on device") == true)
        #expect(try store.reader.currentVersion() == VersionID(1))
        #expect(try store.reader.newestVersion() == VersionID(1))
        #expect(try FileSystem.list(store.root + "/staging").isEmpty)
    }

    @Test func aFailedSyncBeforeTheSwapLeavesCurrent() throws {
        let dist = TemporaryDist()
        let faults = FaultPlan()
        let store = try dist.store(faults: faults)
        _ = try store.publish(request(baseFiles))
        // The trees and the version are moved in before the one `syncfs`: a failed sync takes
        // the version back out.
        faults.fail(.init(operation: "sync the file system of", pathPrefix: store.root, errorNumber: EIO))
        let error = #expect(throws: StoreError.self) { try store.publish(request(baseFiles + [page("en/new.json", "{}")])) }
        faults.stopFailing()
        #expect(error?.errorNumber == EIO)
        #expect(error?.path == store.root)
        #expect(try store.reader.currentVersion() == VersionID(1), "nothing went live")
        #expect(try store.reader.newestVersion() == VersionID(1), "the version was taken back")
        #expect(try FileSystem.list(store.root + "/staging").isEmpty)
        // The trees it left are whole: the same publish again finds and keeps them.
        #expect(try store.publish(request(baseFiles + [page("en/new.json", "{}")])) == .published(VersionID(2), isCurrent: true))
        #expect(try store.operations.verify() == [])
    }

    /// Whether this process may mount a tmpfs (root with CAP_SYS_ADMIN), tried once on a scratch folder.
    static let canMount: Bool = {
        let scratch = TemporaryDist()
        let mountPoint = scratch.path + "/probe"
        guard (try? FileSystem.makeDirectory(mountPoint)) != nil,
            run("/bin/mount", ["-t", "tmpfs", "-o", "size=64k", "tmpfs", mountPoint])
        else { return false }
        _ = run("/bin/umount", [mountPoint])
        return true
    }()

    /// A real full disk and a real read-only file system need a mount (tests run as root, so
    /// `chmod 0555` would not stop writes).
    @Test(.enabled(if: canMount, "mounting a tmpfs needs root with CAP_SYS_ADMIN"))
    func realFullAndReadOnlyFileSystemsGiveCleanErrors() throws {
        let dist = TemporaryDist()
        let mountPoint = dist.path + "/mnt"
        try FileSystem.makeDirectory(mountPoint)
        try #require(Self.run("/bin/mount", ["-t", "tmpfs", "-o", "size=256k", "tmpfs", mountPoint]), "mount a 256 KiB tmpfs")
        defer { _ = Self.run("/bin/umount", [mountPoint]) }
        let store = try SiteStore(dist: mountPoint, site: "trex")
        _ = try store.publish(request(baseFiles))

        let big = OutputFile(path: "en/big.json", content: .bytes([UInt8](repeating: 0x20, count: 512 * 1024)), inputDigest: "d")
        let full = #expect(throws: StoreError.self) { try store.publish(request(baseFiles + [big])) }
        #expect(full?.errorNumber == ENOSPC)
        #expect(try store.reader.currentVersion() == VersionID(1))
        #expect(try FileSystem.list(store.root + "/staging").isEmpty)

        try #require(Self.run("/bin/mount", ["-o", "remount,ro", mountPoint]), "remount the tmpfs read-only")
        let readOnly = #expect(throws: StoreError.self) { try store.publish(request(baseFiles + [page("en/x.json", "{}")])) }
        #expect(readOnly?.errorNumber == EROFS)
        #expect(readOnly?.description.contains("read-only file system") == true)
        #expect(try SiteStore(dist: mountPoint, site: "trex").reader.currentVersion() == VersionID(1))
        #expect(try store.operations.verify() == [])
    }

    private static func run(_ tool: String, _ arguments: [String]) -> Bool {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = arguments
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return false }
        process.waitUntilExit()
        return process.terminationStatus == 0
    }
}
