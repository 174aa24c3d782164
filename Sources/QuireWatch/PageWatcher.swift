public import Dispatch
import Foundation
import Synchronization

/// Watches a pages tree and hands settled `ChangeSet`s to `onChange`.
///
/// ```
/// inotify reader thread ──events──> settle queue ──ChangeSet──> build queue: onChange
///   (or snapshot poller)              (Settler + timer,          (one call at a time;
///                                      git index.lock hold)       events meanwhile pile up)
/// ```
///
/// The watcher only decides what changed; it builds nothing. `onChange` runs on `deliveryQueue`
/// (the caller's build queue, so a change set reaches the builder in one hop; by default a serial
/// queue of the watcher's), never two at a time; while it runs, new events accumulate into one
/// change set.
/// Only one inotify-backed watcher can run per process (libinotifytools is process-wide).
public final class PageWatcher: Sendable {
    /// How often the tree is rescanned when inotify runs out of watches.
    static let fallbackPollInterval = 2.0

    /// The watched folder: absolute, without a trailing slash.
    public let root: String
    public let options: WatchOptions

    private let log: @Sendable (String) -> Void
    private let settleQueue: SettleQueue
    private let sources = Mutex<Sources>(Sources())
    private let watchBudget: Int?

    private struct Sources {
        var reader: InotifyReader?
        var poller: SnapshotPoller?
        var isStopped = false
    }

    /// - Parameters:
    ///   - root: the pages folder; relative paths are taken from the current directory.
    ///   - log: messages for the user (watch limit reached, git holding changes, ...).
    ///   - deliveryQueue: the queue `onChange` runs on; it must be serial.
    ///   - onChange: called with each settled change set, on `deliveryQueue`.
    public convenience init(
        root: String, options: WatchOptions = WatchOptions(),
        log: @escaping @Sendable (String) -> Void = { _ in },
        deliveryQueue: DispatchQueue = DispatchQueue(label: "quire.watch.build"),
        onChange: @escaping @Sendable (ChangeSet) -> Void
    ) throws {
        try self.init(root: root, options: options, log: log, watchBudget: nil, deliveryQueue: deliveryQueue, onChange: onChange)
    }

    /// `watchBudget` pretends the inotify watch limit is that many watches (tests).
    init(
        root: String, options: WatchOptions, log: @escaping @Sendable (String) -> Void, watchBudget: Int?,
        deliveryQueue: DispatchQueue = DispatchQueue(label: "quire.watch.build"),
        onChange: @escaping @Sendable (ChangeSet) -> Void
    ) throws {
        let absolute = Self.absolutePath(root)
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: absolute, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw WatchError.notADirectory(path: root)
        }
        self.root = absolute
        self.options = options
        self.log = log
        self.watchBudget = watchBudget
        self.settleQueue = SettleQueue(
            options: options, gitLock: GitIndexLock(root: absolute), log: log, consumerQueue: deliveryQueue, onChange: onChange)
    }

    deinit {
        stop()
    }

    /// Starts watching. Changes made before this returns are not reported.
    public func start() throws {
        try sources.withLock { sources in
            guard sources.reader == nil, sources.poller == nil, !sources.isStopped else { return }
            if let interval = options.pollInterval {
                sources.poller = startPoller(interval: interval)
                return
            }
            let reader = InotifyReader(
                root: root, log: log,
                deliver: { [settleQueue] events in settleQueue.record(events) },
                onWatchLimit: { [weak self] in self?.fallBackToPolling() },
                watchBudget: watchBudget)
            if try reader.start() {
                sources.reader = reader
            } else {
                settleQueue.record([.rescan])
                sources.poller = startPoller(interval: Self.fallbackPollInterval)
            }
        }
    }

    /// Stops watching and waits for the reader thread (about a second). No `onChange` call
    /// starts after this returns; one already running finishes.
    public func stop() {
        let (reader, poller) = sources.withLock { sources in
            sources.isStopped = true
            defer {
                sources.reader = nil
                sources.poller = nil
            }
            return (sources.reader, sources.poller)
        }
        reader?.stop()
        poller?.stop()
        settleQueue.stop()
    }

    private func fallBackToPolling() {
        sources.withLock { sources in
            sources.reader = nil
            guard !sources.isStopped, sources.poller == nil else { return }
            sources.poller = startPoller(interval: Self.fallbackPollInterval)
        }
    }

    private func startPoller(interval: Double) -> SnapshotPoller {
        let poller = SnapshotPoller(root: root, interval: interval) { [settleQueue] events in
            settleQueue.record(events)
        }
        poller.start()
        return poller
    }

    private static func absolutePath(_ path: String) -> String {
        let joined = path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
        let standardized = (joined as NSString).standardizingPath
        return standardized.count > 1 && standardized.hasSuffix("/") ? String(standardized.dropLast()) : standardized
    }
}
