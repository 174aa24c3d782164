import Foundation
import Synchronization

@testable import QuireWatch

/// A real temporary tree with a real watcher on it, recording what the watcher reports.
final class WatchFixture: Sendable {
    let root: String
    /// A folder next to the root, outside the watched tree.
    let outside: String
    let watcher: PageWatcher
    private let recorded = Recorded()

    private final class Recorded: Sendable {
        let state = Mutex<(changeSets: [ChangeSet], log: [String], onDeliveryQueue: [Bool])>(([], [], []))
    }

    /// The queue change sets are delivered on, marked so a delivery can tell it runs there.
    private static let deliveryKey = DispatchSpecificKey<Bool>()
    private let deliveryQueue = DispatchQueue(label: "quire.watch.test-delivery")

    init(options: WatchOptions = WatchOptions(), watchBudget: Int? = nil, prepare: (String) throws -> Void = { _ in }) throws {
        var template = Array("/tmp/quire-watch-XXXXXX".utf8CString)
        guard let base = mkdtemp(&template) else { throw CocoaError(.fileWriteUnknown) }
        let folder = String(cString: base)
        root = folder + "/pages"
        outside = folder + "/outside"
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: outside, withIntermediateDirectories: true)
        try prepare(root)
        let recorded = self.recorded
        deliveryQueue.setSpecific(key: Self.deliveryKey, value: true)
        watcher = try PageWatcher(
            root: root, options: options,
            log: { message in recorded.state.withLock { $0.log.append(message) } },
            watchBudget: watchBudget, deliveryQueue: deliveryQueue,
            onChange: { changeSet in
                let onQueue = DispatchQueue.getSpecific(key: Self.deliveryKey) == true
                recorded.state.withLock {
                    $0.changeSets.append(changeSet)
                    $0.onDeliveryQueue.append(onQueue)
                }
            })
        try watcher.start()
    }

    func tearDown() {
        watcher.stop()
        try? FileManager.default.removeItem(atPath: (root as NSString).deletingLastPathComponent)
    }

    var changeSets: [ChangeSet] { recorded.state.withLock { $0.changeSets } }
    var log: [String] { recorded.state.withLock { $0.log } }
    /// For each change set, whether it was delivered on the queue the fixture gave the watcher.
    var deliveredOnQueue: [Bool] { recorded.state.withLock { $0.onDeliveryQueue } }
    var reportedPaths: Set<String> { changeSets.reduce(into: []) { $0.formUnion($1.paths) } }

    func path(_ relative: String) -> String { root + "/" + relative }

    /// Runs a shell script in the root folder, as a user at a terminal would.
    func shell(_ script: String) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-e", "-c", script]
        process.currentDirectoryURL = URL(fileURLWithPath: root)
        process.environment = ["OUTSIDE": outside, "PATH": "/usr/bin:/bin"]
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw CocoaError(.executableLoad, userInfo: [NSLocalizedDescriptionKey: "script failed: \(script)"])
        }
    }

    /// Waits until the reported paths include `relative` (or the condition holds); false after
    /// a generous timeout, so a missing event fails the test instead of hanging it.
    func waitFor(_ relatives: String..., timeout: Double = 10) async -> Bool {
        await waitUntil(timeout: timeout) { fixture in
            relatives.allSatisfy { fixture.reportedPaths.contains(fixture.path($0)) }
        }
    }

    func waitUntil(timeout: Double = 10, _ condition: (WatchFixture) -> Bool) async -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if condition(self) { return true }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return condition(self)
    }
}
