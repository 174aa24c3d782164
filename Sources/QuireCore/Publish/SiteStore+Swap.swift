// The step every move of `current` ends with: publish, rollback, pin, unpin and the completion
// of a stopped one (`StoreRecovery`) all go through `recordAndSwap`.
extension SiteStore {
    /// When the history line reaches the disk.
    enum LineSync {
        /// Synced on its own before the swap.
        case beforeSwap
        /// Synced after the swap, with `current`'s folder, so readers do not wait for it: for a
        /// publish, whose line the next lock holder writes again should a system crash lose it
        /// (`StoreRecovery.recordUnrecordedPublish`).
        case withSwap
    }

    /// Appends `entry` to the history, then points `current` at `entry.to` unless it is there
    /// already (`entry.from`) or `swap` is false (a publish while pinned). History first: a
    /// process stopped between the two leaves a line whose swap the next lock holder completes
    /// (`StoreRecovery.completeInterruptedSwap`), so the line comes true either way.
    func recordAndSwap(
        _ entry: HistoryEntry, swap: Bool = true, lineSync: LineSync = .beforeSwap, holding lock: borrowing HeldPublishLock
    ) throws(StoreError) {
        lock.check(for: self)
        let target = swap && entry.to != entry.from ? entry.to : nil
        CrashPoint.history.reach()
        try History(path: layout.history).append(entry, durable: target == nil || lineSync == .beforeSwap)
        guard let target else { return }
        CrashPoint.swap.reach()
        try CurrentLink(layout: layout).point(at: target, alsoSyncing: lineSync == .withSwap ? [layout.history] : [])
    }
}
