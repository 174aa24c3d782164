import Dispatch
import Synchronization

/// Starts writing staged files to disk while the build is still rendering, so the publish's one
/// `syncfs` before the swap finds little left to write.
///
/// The kernel starts writeback on its own only past `dirty_background_ratio` of memory (gigabytes)
/// or after 30 s, so without this a cold build renders for seconds with the disk idle, then waits
/// on it.
/// Every `threshold` bytes staged, one `syncfs` runs on a background queue, never two at once.
/// It is only a head start: durability still comes from the publish's own sync, and a failure
/// here is left for that sync to report.
final class WriteBehind: Sendable {
    static let defaultThreshold = 32 << 20

    private let sync: @Sendable () -> Void
    private let threshold: Int
    private let unsynced = Atomic<Int>(0)
    /// Syncs started so far (for tests and figures).
    let syncsStarted = Atomic<Int>(0)
    private let isSyncing = Atomic<Bool>(false)
    private let queue = DispatchQueue(label: "quire.staging.write-behind", qos: .utility)

    /// `descriptor`: any open file on the staging area's file system; the caller keeps it open
    /// until `wait()` has returned.
    convenience init(descriptor: Int32, threshold: Int = WriteBehind.defaultThreshold) {
        self.init(threshold: threshold) { _ = SyncFS.call(descriptor) }
    }

    init(threshold: Int, sync: @escaping @Sendable () -> Void) {
        self.threshold = threshold
        self.sync = sync
    }

    /// Counts `bytes` just written; past the threshold, starts a sync unless one is running.
    func wrote(_ bytes: Int) {
        guard unsynced.add(bytes, ordering: .relaxed).newValue >= threshold,
            !isSyncing.exchange(true, ordering: .acquiring)
        else { return }
        unsynced.store(0, ordering: .relaxed)
        syncsStarted.add(1, ordering: .relaxed)
        queue.async { [self] in
            sync()
            isSyncing.store(false, ordering: .releasing)
        }
    }

    /// Returns once no sync is running (before the descriptor is closed).
    func wait() {
        queue.sync {}
    }
}
