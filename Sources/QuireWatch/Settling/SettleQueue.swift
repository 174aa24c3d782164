import Dispatch
import Foundation
import Synchronization

/// Drives a `Settler` with Dispatch: the consumer on its own serial queue, so that a slow build
/// never blocks event intake; timers on a serial settle queue.
///
/// The settler is behind a lock and is asked what to do on whichever thread has news: the
/// reader that delivers events, the timer, or the consumer when it finishes. A lone save thus
/// reaches the consumer in one thread hand-off, not two (each costs tens of microseconds).
///
/// `@unchecked Sendable`: the settler is touched only under `lock`, and the timer (a Dispatch
/// source) may be scheduled from any thread. The lock is an `NSLock` (a pthread mutex), which
/// ThreadSanitizer sees, unlike `Synchronization.Mutex` on Linux (see `StageClock`).
final class SettleQueue: @unchecked Sendable {
    private let queue = DispatchQueue(label: "quire.watch.settle")
    private let consumerQueue = DispatchQueue(label: "quire.watch.build")
    private let timer: any DispatchSourceTimer
    private let gitLock: GitIndexLock
    private let log: @Sendable (String) -> Void
    private let onChange: @Sendable (ChangeSet) -> Void
    private let stopped = Atomic<Bool>(false)

    private let lock = NSLock()
    private var settler: Settler
    private var wasHeld = false

    /// How often the git lock is checked while it holds a due change set.
    static let holdPollInterval = 0.1

    init(
        options: WatchOptions, gitLock: GitIndexLock, log: @escaping @Sendable (String) -> Void,
        onChange: @escaping @Sendable (ChangeSet) -> Void
    ) {
        self.settler = Settler(options: options)
        self.gitLock = gitLock
        self.log = log
        self.onChange = onChange
        self.timer = DispatchSource.makeTimerSource(queue: queue)
        timer.setEventHandler { [unowned self] in self.pump() }
        timer.activate()
    }

    deinit {
        timer.cancel()
    }

    func record(_ events: [WatchEvent]) {
        guard !events.isEmpty else { return }
        lock.withLock {
            let now = Self.now()
            for event in events { settler.record(event, at: now) }
        }
        pump()
    }

    /// No consumer call starts after this returns; one already running finishes.
    func stop() {
        stopped.store(true, ordering: .sequentiallyConsistent)
        queue.sync { timer.cancel() }
    }

    /// Does what the settler says now. The timer is set under the lock, so two threads asking at
    /// once cannot leave it at the later of their deadlines; the rest is done outside it.
    private func pump() {
        guard !stopped.load(ordering: .sequentiallyConsistent) else { return }
        enum Step {
            case emit(ChangeSet, gitReleased: Bool)
            case heldFirstTime
            case nothing
        }
        let step = lock.withLock { () -> Step in
            switch settler.decide(at: Self.now(), isHeld: { gitLock.isHeld }) {
            case .emit(let changeSet):
                defer { wasHeld = false }
                return .emit(changeSet, gitReleased: wasHeld)
            case .wait(let until):
                schedule(after: until - Self.now())
                return .nothing
            case .held:
                schedule(after: Self.holdPollInterval)
                defer { wasHeld = true }
                return wasHeld ? .nothing : .heldFirstTime
            case .idle:
                return .nothing
            }
        }
        switch step {
        case .emit(let changeSet, let gitReleased):
            if gitReleased { log("git released its index lock: publishing the changes made meanwhile") }
            consumerQueue.async { [self] in
                if !stopped.load(ordering: .sequentiallyConsistent) { onChange(changeSet) }
                lock.withLock { settler.consumerFinished() }
                pump()
            }
        case .heldFirstTime:
            log("holding changes while git works on the tree: '\(gitLock.heldBy ?? ".git/index.lock")' exists")
        case .nothing:
            break
        }
    }

    private func schedule(after seconds: Double) {
        timer.schedule(deadline: .now() + max(seconds, 0))
    }

    /// Monotonic seconds.
    private static func now() -> Double {
        Double(DispatchTime.now().uptimeNanoseconds) / 1_000_000_000
    }
}
