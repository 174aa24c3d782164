import Foundation
import Glibc
import Synchronization

/// `quire push`: copies what each destination lacks of a site's versions, and only when every
/// reachable one holds the whole of them points each one's `current` where the origin's is. A
/// destination that cannot be reached is reported and left for the next push, which catches it
/// up however far behind it is.
public struct ReplicaPush {
    public struct Report: Sendable {
        public enum State: Sendable, Equatable {
            /// Its `current` now names `version`.
            case current
            /// Left out, with rsync's reason: it keeps what it had.
            case unreachable(String)
            /// Reached but not made whole: no destination's `current` moved.
            case failed(String)
        }

        public var version: VersionID
        public var destinations: [(destination: ReplicaDestination, state: State)]
        /// Problems that did not keep `current` from moving (old versions left for the next push).
        public var warnings: [String] = []
        /// Whether any destination's `current` was sent (a failure after that leaves it moved).
        public var flipped = false
        public var failures: [String] {
            destinations.compactMap { if case .failed(let reason) = $0.state { "\($0.destination): \(reason)" } else { nil } }
        }
    }

    let store: SiteStore
    /// How the status files come to show the outcome: by default `ReplicaRecord` rewrites them
    /// from `status.json`; a watcher has its builder write them again.
    public var statusRewrite: (@Sendable () -> Void)?

    public init(dist: String, site: String) throws(StoreError) {
        store = try SiteStore(dist: dist, site: site)
    }

    /// Pushes serially per origin site (`state/push-lock`): pushes from a watcher and a command
    /// never interleave their steps on one destination. Every rsync holds the lock too, so an
    /// rsync left running by a push killed mid-step finishes before the next push starts.
    public func run(
        to destinations: [ReplicaDestination], lockTimeout: Double = 600,
        waiting: (String) -> Void = { _ in }
    ) throws(StoreError) -> Report {
        let lock = try PublishLock(
            path: store.layout.state + "/push-lock", site: store.site, name: "push lock",
            timeout: lockTimeout, waiting: waiting)
        let report = try push(to: destinations, lock: lock.descriptor)
        _ = consume lock
        return report
    }

    /// `startingFrom`: a snapshot taken earlier (tests: the origin changes after it is taken).
    func push(to destinations: [ReplicaDestination], lock: Int32?, startingFrom first: PushSnapshot? = nil) throws(StoreError) -> Report {
        // Scratch files (rsync's file lists, the link it sends) in `state/push/`, made afresh by
        // each push: pushes hold the push lock, so what a killed one left is removed by the next.
        let work = store.layout.state + "/push"
        if FileSystem.exists(work) { try FileSystem.removeTree(work) }
        try FileSystem.makeDirectory(work)
        defer { try? FileSystem.removeTree(work) }
        var copies = destinations.enumerated().map { index, destination in
            ReplicaCopy(destination: destination, site: store.site, origin: store.root, work: work + "/\(index)", lock: lock)
        }
        for copy in copies { try FileSystem.makeDirectory(copy.work) }

        var snapshot: PushSnapshot
        if let first { snapshot = first } else { snapshot = try PushSnapshot.take(store) }
        var states: [Report.State] = []
        for attempt in 1...Self.attempts {
            states = Self.copy(&copies, snapshot)
            if let failed = states.firstIndex(where: { if case .failed = $0 { true } else { false } }) {
                // The others hold the version but keep their `current`: none of them is current.
                let held = "it holds \(snapshot.current), but its current stays, as \(destinations[failed]) could not be made whole"
                states = states.map { $0 == .current ? .failed(held) : $0 }
                return record(Report(version: snapshot.current, destinations: Array(zip(destinations, states))))
            }
            // The copies skip what a gc on the origin removed meanwhile. A gc removes a version whole
            // (one rename) before the trees only it reaches: the version `current` is to name, still
            // there now, was there whole throughout. If a gc took it (current moved on), copy again.
            if FileSystem.exists(store.layout.versionManifest(snapshot.current)) { break }
            if attempt == Self.attempts {
                let reason = "the origin removed \(snapshot.current) (keep:) during each of \(attempt) tries"
                states = states.map { if case .current = $0 { .failed(reason) } else { $0 } }
                return record(Report(version: snapshot.current, destinations: Array(zip(destinations, states))))
            }
            snapshot = try PushSnapshot.take(store)
        }
        // Every reachable destination holds the whole snapshot: now the pointers, one after another.
        for (index, copy) in copies.enumerated() where states[index] == .current {
            states[index] = Self.state(try copy.flip(to: snapshot.current))
        }
        var report = Report(version: snapshot.current, destinations: Array(zip(destinations, states)))
        report.flipped = true
        for (index, copy) in copies.enumerated() where states[index] == .current {
            switch try copy.trim(to: snapshot) {
            case .whole: break
            // Its `current` moved: what is left over is removed by the next push.
            case .unreachable(let reason), .failed(let reason):
                report.warnings.append("\(copy.destination): removing old versions failed (\(reason)); the next push retries")
            }
        }
        return record(report)
    }

    private static let attempts = 3

    /// Each destination on its own thread: a slow one does not hold up the others' copies.
    private static func copy(_ copies: inout [ReplicaCopy], _ snapshot: PushSnapshot) -> [Report.State] {
        let outcomes = Mutex([ReplicaCopy.Outcome?](repeating: nil, count: copies.count))
        let results = Mutex(copies)
        DispatchQueue.concurrentPerform(iterations: copies.count) { index in
            var copy = results.withLock { $0[index] }
            let outcome: ReplicaCopy.Outcome
            do throws(StoreError) { outcome = try copy.copy(snapshot) } catch { outcome = .failed(error.description) }
            outcomes.withLock { $0[index] = outcome }
            results.withLock { $0[index] = copy }
        }
        copies = results.withLock { $0 }
        return outcomes.withLock { $0 }.map { state($0 ?? .failed("not copied")) }
    }

    private static func state(_ outcome: ReplicaCopy.Outcome) -> Report.State {
        switch outcome {
        case .whole: .current
        case .unreachable(let reason): .unreachable(reason)
        case .failed(let reason): .failed(reason)
        }
    }

    private func record(_ report: Report) -> Report {
        ReplicaRecord(layout: store.layout).update(with: report, store: store, statusRewrite: statusRewrite)
        return report
    }
}
