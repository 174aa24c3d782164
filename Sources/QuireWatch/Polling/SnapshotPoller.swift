import Dispatch

/// Watches by walking the tree every `interval` seconds and reporting what differs from the
/// previous walk: for `--poll`, and when inotify runs out of watches.
///
/// State is touched only on `queue` (hence `@unchecked Sendable`).
final class SnapshotPoller: @unchecked Sendable {
    private let root: String
    private let interval: Double
    private let deliver: @Sendable ([WatchEvent]) -> Void
    private let queue = DispatchQueue(label: "quire.watch.poll")
    private var timer: (any DispatchSourceTimer)?
    private var snapshot: TreeSnapshot

    init(root: String, interval: Double, deliver: @escaping @Sendable ([WatchEvent]) -> Void) {
        self.root = root
        self.interval = interval
        self.deliver = deliver
        self.snapshot = TreeSnapshot(entries: [:])
    }

    /// Takes the baseline walk now; changes are reported from the first tick on.
    func start() {
        queue.sync {
            snapshot = TreeSnapshot.take(of: root)
            let timer = DispatchSource.makeTimerSource(queue: queue)
            timer.schedule(deadline: .now() + interval, repeating: interval, leeway: .milliseconds(10))
            timer.setEventHandler { [weak self] in self?.tick() }
            timer.activate()
            self.timer = timer
        }
    }

    deinit {
        timer?.cancel()
    }

    func stop() {
        queue.sync {
            timer?.cancel()
            timer = nil
        }
    }

    private func tick() {
        guard timer != nil else { return }
        let newer = TreeSnapshot.take(of: root)
        let changed = snapshot.changedPaths(to: newer)
        snapshot = newer
        if !changed.isEmpty {
            deliver(changed.sorted().map(WatchEvent.finishedWrite))
        }
    }
}
