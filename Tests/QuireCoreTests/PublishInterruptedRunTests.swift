import Glibc
import QuireModel
import Testing

@testable import QuireCore

/// What the next lock holder does after a process was stopped half-way (issue 5, crash safety).
/// The e2e crash torture (`tests/e2e/crash-torture.sh`) kills real processes at each step; these
/// tests set up the same states directly.
@Suite struct PublishInterruptedRunTests {
    @Test func aVersionPublishedButNotSwappedGoesLiveWithTheNextLockHolder() throws {
        let dist = TemporaryDist()
        let store = try dist.store()
        _ = try store.publish(request(baseFiles))
        _ = try store.publish(request(baseFiles + [page("en/new.json", "{}")]))
        // The state a kill between moving v2 in and swapping leaves: current still at v1.
        try CurrentLink(layout: store.layout).point(at: VersionID(1))

        // An unchanged build publishes nothing, yet v2 must not stay hidden behind current.
        let outcome = try dist.store().publish(request(baseFiles + [page("en/new.json", "{}")]))
        #expect(outcome == .unchanged(VersionID(2)))
        #expect(try store.reader.currentVersion() == VersionID(2))
        let last = try #require(try store.operations.history().last)
        #expect(last.action == .publish && last.from == VersionID(1) && last.to == VersionID(2))
        #expect(last.reason.contains("completing the swap"))
    }

    @Test func aPinWrittenButNotSwappedIsFinished() throws {
        let dist = TemporaryDist()
        let store = try dist.store()
        _ = try store.publish(request(baseFiles))
        _ = try store.publish(request(baseFiles + [page("en/new.json", "{}")]))
        try PinFile(path: store.layout.pin).write(VersionID(1), reason: "bad content")

        try dist.store().withPublishLock(timeout: 1, waiting: { _ in }) { _ in }
        #expect(try store.reader.currentVersion() == VersionID(1))
        #expect(try store.reader.pinnedVersion() == VersionID(1))
        #expect(try store.operations.verify() == [])
    }

    @Test func aPublishLineThatASystemCrashLostIsWrittenAgainByTheNextProcess() throws {
        let dist = TemporaryDist()
        let store = try dist.store()
        _ = try store.publish(request(baseFiles))
        _ = try store.publish(request(baseFiles + [page("en/new.json", "{}")]))
        let history = store.layout.history
        let intact = try #require(readText(history))

        // An intact history gains nothing from a new process's first lock.
        try dist.store().withPublishLock(timeout: 1, waiting: { _ in }) { _ in }
        #expect(readText(history) == intact)

        // The publish's line is synced after the swap: a system crash can lose it while v2 stays live.
        let lines = intact.split(separator: "\n")
        try FileSystem.remove(history)
        try FileSystem.createFile(history, Array((lines.dropLast().joined(separator: "\n") + "\n").utf8))
        try dist.store().withPublishLock(timeout: 1, waiting: { _ in }) { _ in }
        let last = try #require(try store.operations.history().last)
        #expect(last.action == .publish && last.to == VersionID(2))
        #expect(last.reason.contains("recorded late"))
        #expect(try store.operations.history().count == lines.count)

        // Written once: the next process finds it.
        try dist.store().withPublishLock(timeout: 1, waiting: { _ in }) { _ in }
        #expect(try store.operations.history().count == lines.count)
    }

    @Test func aFailedHistorySyncAfterTheSwapLeavesTheVersionLive() throws {
        let dist = TemporaryDist()
        let faults = FaultPlan()
        let store = try dist.store(faults: faults)
        _ = try store.publish(request(baseFiles))
        let history = store.layout.history
        faults.fail(.init(operation: "sync", pathPrefix: history, errorNumber: EIO))
        defer { faults.stopFailing() }
        let error = #expect(throws: StoreError.self) { try store.publish(request(baseFiles + [page("en/new.json", "{}")])) }
        #expect(error?.errorNumber == EIO)
        #expect(error?.path == history)
        // Readers had it before the sync: it stays, with its line, and is not taken back.
        #expect(try store.reader.currentVersion() == VersionID(2))
        #expect(try store.reader.newestVersion() == VersionID(2))
        #expect(try store.operations.history().last?.to == VersionID(2))
    }

    @Test func aFailedHistoryAppendTakesTheNewVersionBackOut() throws {
        let dist = TemporaryDist()
        let faults = FaultPlan()
        let store = try dist.store(faults: faults)
        _ = try store.publish(request(baseFiles))
        let history = store.root + "/state/history.jsonl"
        faults.fail(.init(operation: "write", pathPrefix: history, errorNumber: ENOSPC))
        defer { faults.stopFailing() }
        let error = #expect(throws: StoreError.self) { try store.publish(request(baseFiles + [page("en/new.json", "{}")])) }
        #expect(error?.errorNumber == ENOSPC)
        #expect(try store.reader.currentVersion() == VersionID(1))
        #expect(try store.reader.newestVersion() == VersionID(1))
        #expect(try FileSystem.list(store.root + "/staging").isEmpty)
    }

    @Test func aFailedRollbackPutsThePinBack() throws {
        let dist = TemporaryDist()
        let faults = FaultPlan()
        let store = try dist.store(faults: faults)
        _ = try store.publish(request(baseFiles))
        _ = try store.publish(request(baseFiles + [page("en/new.json", "{}")]))
        let history = store.root + "/state/history.jsonl"
        faults.fail(.init(operation: "write", pathPrefix: history, errorNumber: ENOSPC))
        defer { faults.stopFailing() }
        #expect(throws: StoreError.self) { try store.operations.rollback(reason: "bad") }
        #expect(try store.reader.pinnedVersion() == nil)
        #expect(try store.reader.currentVersion() == VersionID(2))
    }

    /// The state a process stopped between its renames and its history line leaves: v2 moved
    /// in, without a line, `current` still at v1.
    private func publishTwoAndLoseTheSecondLine(_ dist: TemporaryDist) throws -> SiteStore {
        let store = try dist.store()
        _ = try store.publish(request(baseFiles))
        _ = try store.publish(request(baseFiles + [page("en/new.json", "{}")]))
        let lines = try #require(readText(store.layout.history)).split(separator: "\n")
        try FileSystem.remove(store.layout.history)
        try FileSystem.createFile(store.layout.history, Array((lines.dropLast().joined(separator: "\n") + "\n").utf8))
        try CurrentLink(layout: store.layout).point(at: VersionID(1))
        return store
    }

    @Test func aStoppedPublishersVersionIsSyncedBeforeItGoesLive() throws {
        let dist = TemporaryDist()
        let store = try publishTwoAndLoseTheSecondLine(dist)
        // Its renames came before its sync: the next lock holder syncs before the swap.
        let faults = FaultPlan()
        faults.fail(.init(operation: "sync the file system of", pathPrefix: store.root, errorNumber: EIO))
        #expect(throws: StoreError.self) { try dist.store(faults: faults).withPublishLock(timeout: 1, waiting: { _ in }) { _ in } }
        #expect(try store.reader.currentVersion() == VersionID(1))

        try dist.store().withPublishLock(timeout: 1, waiting: { _ in }) { _ in }
        #expect(try store.reader.currentVersion() == VersionID(2))
        #expect(try store.operations.history().last?.reason.contains("completing the swap") == true)
        #expect(try store.operations.verify() == [])
    }

    @Test func aVersionASystemCrashLeftIncompleteIsTakenOutAfterTheRestart() throws {
        let dist = TemporaryDist()
        let store = try publishTwoAndLoseTheSecondLine(dist)
        // The crash came before the sync: v2's new page never reached the disk.
        let lost = store.layout.version(VersionID(2)) + "/en/new.json"
        #expect(truncate(lost, 0) == 0)
        let orphans = try FileSystem.list(store.layout.trees).filter { !$0.hasSuffix(".json") }
        try FileSystem.remove(store.layout.boot)
        try FileSystem.createFile(store.layout.boot, Array("an earlier boot\n".utf8))

        try dist.store().withPublishLock(timeout: 1, waiting: { _ in }) { _ in }
        #expect(try store.reader.newestVersion() == VersionID(1))
        #expect(try store.reader.currentVersion() == VersionID(1))
        let last = try #require(try store.operations.history().last)
        #expect(last.action == .gc && last.to == VersionID(2))
        #expect(last.reason.contains("taken out after a restart") && last.reason.contains("new.json"))
        // Its trees went too: the same edit published again writes them afresh.
        let kept = Set(try FileSystem.list(store.layout.trees).filter { !$0.hasSuffix(".json") })
        #expect(kept.count < Set(orphans).count)
        #expect(try readText(store.layout.boot) != "an earlier boot\n")
        #expect(try dist.store().publish(request(baseFiles + [page("en/new.json", "{}")])) == .published(VersionID(2), isCurrent: true))
        #expect(try store.operations.verify() == [])
        #expect(readText(store.layout.version(VersionID(2)) + "/en/new.json") == "{}")
    }

    @Test func aWholeUnrecordedVersionStaysAfterTheRestart() throws {
        let dist = TemporaryDist()
        let store = try publishTwoAndLoseTheSecondLine(dist)
        try FileSystem.remove(store.layout.boot)

        try dist.store().withPublishLock(timeout: 1, waiting: { _ in }) { _ in }
        #expect(try store.reader.newestVersion() == VersionID(2))
        #expect(try store.reader.currentVersion() == VersionID(2))
        #expect(try store.operations.verify() == [])
    }

    @Test func aHistoryLineTornByAKillDoesNotSwallowTheNextOne() throws {
        let dist = TemporaryDist()
        let store = try dist.store()
        _ = try store.publish(request(baseFiles))
        let history = store.root + "/state/history.jsonl"
        let descriptor = open(history, O_WRONLY | O_APPEND)
        _ = Array(#"{"when":"2025-01-01T00:00:00Z","act"#.utf8).withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        close(descriptor)
        _ = try store.publish(request(baseFiles + [page("en/new.json", "{}")]))
        #expect(try store.operations.history().map(\.to) == [VersionID(1), VersionID(2)])
    }
}
