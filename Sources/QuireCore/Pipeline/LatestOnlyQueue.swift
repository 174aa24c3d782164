import Foundation

/// Runs submitted work on its own thread, newest only: work submitted while earlier work waits
/// replaces it, and a run starts `minimumInterval` or `durationFactor` times the last run's
/// duration after the last one started, whichever is longer. `quire watch` writes the status
/// files this way (factor 4), so listing every page of a large site happens beside the next
/// builds and takes at most about a fifth of a core, instead of delaying each build.
final class LatestOnlyQueue: @unchecked Sendable {
    private let queue: DispatchQueue
    private let minimumInterval: UInt64
    private let durationFactor: UInt64
    // NSLock rather than Mutex: ThreadSanitizer sees its ordering (see StageClock).
    private let lock = NSLock()
    private var pending: (@Sendable () -> Void)?
    private var lastStarted: UInt64?
    private var lastDuration: UInt64 = 0

    init(label: String, minimumInterval seconds: Double = 0, durationFactor: UInt64 = 4) {
        queue = DispatchQueue(label: label)
        minimumInterval = UInt64(seconds * 1e9)
        self.durationFactor = durationFactor
    }

    func submit(_ work: @escaping @Sendable () -> Void) {
        let (wasIdle, earliest) = lock.withLock {
            defer { pending = work }
            return (pending == nil, lastStarted.map { $0 + max(minimumInterval, durationFactor * lastDuration) } ?? 0)
        }
        guard wasIdle else { return }
        queue.asyncAfter(deadline: DispatchTime(uptimeNanoseconds: max(earliest, DispatchTime.now().uptimeNanoseconds))) { self.runPending() }
    }

    /// Runs submitted work now, and waits for it.
    func flush() { queue.sync { runPending() } }

    private func runPending() {
        let started = DispatchTime.now().uptimeNanoseconds
        let work = lock.withLock {
            defer { pending = nil }
            if pending != nil { lastStarted = started }
            return pending
        }
        guard let work else { return }
        work()
        lock.withLock { lastDuration = DispatchTime.now().uptimeNanoseconds - started }
    }
}
