import Dispatch
import Synchronization

/// Drives a `Settler` with Dispatch: events and timers on one serial settle queue, the consumer
/// on its own serial queue (the builder's, when the caller names it: one hop from settling to
/// building) so that a slow build never blocks event intake.
///
/// All mutable state is touched only on `queue` (hence `@unchecked Sendable`).
final class SettleQueue: @unchecked Sendable {
    private let queue = DispatchQueue(label: "quire.watch.settle")
    private let consumerQueue: DispatchQueue
    private let timer: any DispatchSourceTimer
    private let gitLock: GitIndexLock
    private let log: @Sendable (String) -> Void
    private let onChange: @Sendable (ChangeSet) -> Void
    private let stopped = Atomic<Bool>(false)

    private var settler: Settler
    private var wasHeld = false

    /// How often the git lock is checked while it holds a due change set.
    static let holdPollInterval = 0.1

    init(
        options: WatchOptions, gitLock: GitIndexLock, log: @escaping @Sendable (String) -> Void,
        consumerQueue: DispatchQueue, onChange: @escaping @Sendable (ChangeSet) -> Void
    ) {
        self.consumerQueue = consumerQueue
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
        queue.async { [self] in
            let now = Self.now()
            for event in events { settler.record(event, at: now) }
            pump()
        }
    }

    /// No consumer call starts after this returns; one already running finishes.
    func stop() {
        stopped.store(true, ordering: .sequentiallyConsistent)
        queue.sync { timer.cancel() }
    }

    private func pump() {
        guard !stopped.load(ordering: .sequentiallyConsistent) else { return }
        let decision = settler.decide(at: Self.now(), isHeld: { gitLock.isHeld })
        switch decision {
        case .emit(let changeSet):
            if wasHeld {
                log("git released its index lock: publishing the changes made meanwhile")
                wasHeld = false
            }
            consumerQueue.async { [self] in
                if !stopped.load(ordering: .sequentiallyConsistent) { onChange(changeSet) }
                queue.async { [self] in
                    settler.consumerFinished()
                    pump()
                }
            }
        case .wait(let until):
            schedule(after: until - Self.now())
        case .held:
            if !wasHeld {
                let lock = gitLock.heldBy ?? ".git/index.lock"
                log("holding changes while git works on the tree: '\(lock)' exists")
                wasHeld = true
            }
            schedule(after: Self.holdPollInterval)
        case .idle:
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
