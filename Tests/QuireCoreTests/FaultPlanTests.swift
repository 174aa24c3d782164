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

    private func steps(_ log: String) -> [String] {
        (readText(log) ?? "").split(separator: "\n").map(String.init)
    }
}
