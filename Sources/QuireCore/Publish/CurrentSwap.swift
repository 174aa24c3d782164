/// The step every move of `current` ends with, and the only code that writes a history line and
/// swaps `current`: publish, rollback, pin, unpin and the completion of a stopped one
/// (`StoreRecovery`) all go through `recordAndSwap`.
struct CurrentSwap: Sendable {
    let layout: SiteLayout
    let faults: FaultPlan

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
        lock.check(for: layout)
        let target = swap && entry.to != entry.from ? entry.to : nil
        faults.reach(.history)
        try History(path: layout.history).append(entry, durable: target == nil || lineSync == .beforeSwap)
        guard let target else { return }
        faults.reach(.swap)
        try CurrentLink(layout: layout).point(at: target, alsoSyncing: lineSync == .withSwap ? [layout.history] : [])
    }
}
