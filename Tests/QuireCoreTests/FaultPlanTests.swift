import Foundation
import Testing

@testable import QuireCore

/// The crash-torture hooks come through the `FaultPlan` a store is opened with: its step log
/// names every step a publish, rollback and gc reach, in order, and a store opened without one
/// (or with another) logs nothing.
@Suite struct FaultPlanTests {
    @Test func aStoreLogsItsStepsToThePlanItWasOpenedWith() throws {
        let dist = TemporaryDist()
        let log = dist.path + "/steps.log"
        let store = try SiteStore(dist: dist.path, site: "trex", faults: FaultPlan(crashAt: nil, stepLog: log))
        _ = try store.publish(request([page("en/a.json", "{}")]))
        // The first lock also looks for what a system crash left: a gc of unreachable trees.
        #expect(steps(log) == ["recover", "mark", "cleanup", "staging", "staging", "move", "move", "sync", "history", "swap", "cleanup"])

        var seen = steps(log).count
        func newSteps() -> [String] {
            defer { seen = steps(log).count }
            return Array(steps(log).dropFirst(seen))
        }
        _ = try store.publish(request([page("en/a.json", #"{"v":2}"#)]))
        #expect(newSteps() == ["recover", "staging", "staging", "move", "move", "sync", "history", "swap", "cleanup"])
        try store.operations.rollback(reason: "test")
        #expect(newSteps() == ["recover", "pin", "history", "swap"])
        try store.operations.unpin(reason: "test")
        #expect(newSteps() == ["recover", "pin", "history", "swap"])
        _ = try store.operations.gc(keep: 1)
        #expect(newSteps() == ["recover", "mark", "sweep", "cleanup", "history"])
    }

    @Test func aStoreWithoutAPlanLogsNothingAndAnUnknownStepNeverCrashes() throws {
        let dist = TemporaryDist()
        let log = dist.path + "/steps.log"
        // A plan given to no store: its log stays empty.
        let unused = FaultPlan(crashAt: nil, stepLog: log)
        let store = try dist.store()
        _ = try store.publish(request([page("en/a.json", "{}")]))
        #expect(try store.reader.currentVersion() == VersionID(1))
        #expect(FileManager.default.fileExists(atPath: log) && steps(log).isEmpty)
        withExtendedLifetime(unused) {}

        let unknown = try SiteStore(dist: dist.path, site: "rex", faults: FaultPlan(crashAt: "no-such-step#1", stepLog: nil))
        _ = try unknown.publish(request([page("en/a.json", "{}")]))
        #expect(try unknown.reader.currentVersion() == VersionID(1))
    }

    /// `QUIRE_PAUSE_AT=staging:<file>`: the publish waits at its first `staging` step, logged,
    /// until the file is gone, and publishes then; later publishes do not wait.
    @Test func aPublishWaitsAtThePausedStepWhileItsFileExists() throws {
        let dist = TemporaryDist()
        let (log, hold) = (dist.path + "/steps.log", dist.path + "/hold")
        try #require(FileManager.default.createFile(atPath: hold, contents: nil))
        defer { unlink(hold) }
        let store = try SiteStore(dist: dist.path, site: "trex", faults: FaultPlan(crashAt: nil, pauseAt: "staging:" + hold, stepLog: log))
        let published = DispatchSemaphore(value: 0)
        Thread {
            _ = try? store.publish(request([page("en/a.json", "{}")]))
            published.signal()
        }.start()
        let deadline = Date().addingTimeInterval(30)
        while !steps(log).contains("staging"), Date() < deadline { usleep(10_000) }
        #expect(steps(log).last == "staging", "held at its first staging step")
        #expect(published.wait(timeout: .now() + 0.3) == .timedOut)
        #expect(try store.reader.currentVersion() == nil)
        unlink(hold)
        #expect(published.wait(timeout: .now() + 30) == .success)
        #expect(try store.reader.currentVersion() == VersionID(1))
        _ = try store.publish(request([page("en/a.json", #"{"v":2}"#)]))
        #expect(try store.reader.currentVersion() == VersionID(2))
    }

    private func steps(_ log: String) -> [String] {
        (readText(log) ?? "").split(separator: "\n").map(String.init)
    }
}
