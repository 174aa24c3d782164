import Dispatch
import Synchronization

/// Drives a `Settler` with Dispatch: the consumer on its own serial queue, so that a slow build
/// never blocks event intake; timers on a serial settle queue.
///
/// The settler is behind a lock and is asked what to do on whichever thread has news: the
/// reader that delivers events, the timer, or the consumer when it finishes. A lone save thus
/// reaches the consumer in one thread hand-off, not two (each costs tens of microseconds).
///
/// `@unchecked Sendable`: the timer (a Dispatch source, safe to schedule from any thread) is
/// the one member the compiler cannot check; the rest is constant or behind the lock.
final class SettleQueue: @unchecked Sendable {
    private let queue = DispatchQueue(label: "quire.watch.settle")
    private let consumerQueue = DispatchQueue(label: "quire.watch.build")
    private let timer: any DispatchSourceTimer
    private let gitLock: GitIndexLock
    private let log: @Sendable (String) -> Void
    private let onChange: @Sendable (ChangeSet) -> Void
    private let stopped = Atomic<Bool>(false)

    private struct State: ~Copyable {
        var settler: Settler
        var wasHeld = false
    }

    private let state: Mutex<State>

    /// How often the git lock is checked while it holds a due change set.
    static let holdPollInterval = 0.1

    init(
        options: WatchOptions, gitLock: GitIndexLock, log: @escaping @Sendable (String) -> Void,
        onChange: @escaping @Sendable (ChangeSet) -> Void
    ) {
        self.state = Mutex(State(settler: Settler(options: options)))
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
        state.withLock { state in
            let now = Self.now()
            for event in events { state.settler.record(event, at: now) }
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
        let step = state.withLock { state -> Step in
            switch state.settler.decide(at: Self.now(), isHeld: { gitLock.isHeld }) {
            case .emit(let changeSet):
                defer { state.wasHeld = false }
                return .emit(changeSet, gitReleased: state.wasHeld)
            case .wait(let until):
                schedule(after: until - Self.now())
                return .nothing
            case .held:
                schedule(after: Self.holdPollInterval)
                defer { state.wasHeld = true }
                return state.wasHeld ? .nothing : .heldFirstTime
            case .idle:
                return .nothing
            }
        }
        switch step {
        case .emit(let changeSet, let gitReleased):
            if gitReleased { log("git released its index lock: publishing the changes made meanwhile") }
            consumerQueue.async { [self] in
                if !stopped.load(ordering: .sequentiallyConsistent) { onChange(changeSet) }
                state.withLock { $0.settler.consumerFinished() }
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
