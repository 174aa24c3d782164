import Foundation

/// Runs submitted work on a thread of its own, newest only: work submitted while earlier work
/// waits replaces it, and a run starts `minimumInterval` or `durationFactor` times the last run's
/// duration after the last one started, whichever is longer. `quire watch` writes the status
/// files this way (factor 4), so listing every page of a large site happens beside the next
/// builds and takes at most about a fifth of a core, instead of delaying each build.
///
/// With `idlePriority` the thread runs under `SCHED_IDLE`: it takes a core only when no other
/// thread wants it, so a save that comes while the status files are written is not slowed
/// (bench/RESULTS.md, "What this machine does"). The thread is its own because a thread cannot
/// leave `SCHED_IDLE` again without privileges, so it must not go back to Dispatch's pool.
final class LatestOnlyQueue: @unchecked Sendable {
    /// `SCHED_IDLE` from <linux/sched.h>, which Glibc declares only under `_GNU_SOURCE`.
    static let schedIdle: Int32 = 5
    private let label: String
    private let minimumInterval: UInt64
    private let durationFactor: UInt64
    private let idlePriority: Bool
    // NSCondition (a pthread mutex and condition) rather than Mutex: ThreadSanitizer sees its ordering.
    private let condition = NSCondition()
    private var pending: (@Sendable () -> Void)?
    private var running = false
    private var threadStarted = false
    private var stopping = false
    private var lastStarted: UInt64?
    private var lastDuration: UInt64 = 0

    init(label: String, minimumInterval seconds: Double = 0, durationFactor: UInt64 = 4, idlePriority: Bool = false) {
        minimumInterval = UInt64(seconds * 1e9)
        self.durationFactor = durationFactor
        self.idlePriority = idlePriority
        self.label = label
    }

    func submit(_ work: @escaping @Sendable () -> Void) {
        let hasThread = condition.withLock {
            pending = work
            if !threadStarted { threadStarted = startThread() }
            condition.broadcast()
            return threadStarted
        }
        // The system refused a thread: the work runs here, as a flush would.
        if !hasThread { flush() }
    }

    /// Runs submitted work now, on the calling thread, and waits for it (and for a run in progress).
    func flush() {
        guard let work = take(waitingForTurn: false) else { return }
        run(work)
    }

    /// Runs what waits, then ends the thread (which holds the queue until then). Work submitted
    /// afterwards runs only when flushed.
    func stop() {
        flush()
        condition.withLock {
            stopping = true
            condition.broadcast()
        }
    }

    /// The thread holds the queue until `stop`.
    private func startThread() -> Bool {
        guard let thread = PosixThread({ [self] in threadMain() }) else { return false }
        thread.detach()
        return true
    }

    private func threadMain() {
        Thread.current.name = label
        if idlePriority {
            var parameters = sched_param()
            _ = sched_setscheduler(0, Self.schedIdle, &parameters)  // best effort: normal priority if refused
        }
        while let work = take(waitingForTurn: true) { run(work) }
    }

    /// The pending work, marked running, once no other run is in progress and (for the thread)
    /// its interval has passed; nil when there is none (flush) or the queue stops (thread).
    private func take(waitingForTurn: Bool) -> (@Sendable () -> Void)? {
        condition.lock()
        defer { condition.unlock() }
        while true {
            if stopping && waitingForTurn { return nil }
            if running || (waitingForTurn && pending == nil) {
                condition.wait()
                continue
            }
            guard let work = pending else { return nil }
            let now = DispatchTime.now().uptimeNanoseconds
            let earliest = lastStarted.map { $0 + max(minimumInterval, durationFactor * lastDuration) } ?? 0
            if waitingForTurn && now < earliest {
                _ = condition.wait(until: Date(timeIntervalSinceNow: Double(earliest - now) / 1e9))
                continue
            }
            pending = nil
            running = true
            lastStarted = now
            return work
        }
    }

    private func run(_ work: @Sendable () -> Void) {
        let started = DispatchTime.now().uptimeNanoseconds
        work()
        condition.withLock {
            lastDuration = DispatchTime.now().uptimeNanoseconds - started
            running = false
            condition.broadcast()
        }
    }
}
