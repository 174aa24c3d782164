import Foundation

/// Runs submitted work on its own thread, newest only: work submitted while earlier work waits
/// replaces it. `quire watch` writes the status files this way, so listing every page of a large
/// site happens beside the next build instead of before it.
final class LatestOnlyQueue: @unchecked Sendable {
    private let queue: DispatchQueue
    // NSLock rather than Mutex: ThreadSanitizer sees its ordering (see StageClock).
    private let lock = NSLock()
    private var pending: (@Sendable () -> Void)?

    init(label: String) { queue = DispatchQueue(label: label) }

    func submit(_ work: @escaping @Sendable () -> Void) {
        let wasIdle = lock.withLock {
            defer { pending = work }
            return pending == nil
        }
        if wasIdle { queue.async { self.runPending() } }
    }

    /// Waits until submitted work has run.
    func flush() { queue.sync {} }

    private func runPending() {
        let work = lock.withLock {
            defer { pending = nil }
            return pending
        }
        work?()
    }
}
