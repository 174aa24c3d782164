import Glibc
import Synchronization

/// What a crashed or stopped process can leave under `dist/<site>/`, put right by the next lock
/// holder before its own work (ARCHITECTURE.md, "Crash safety"):
///
/// - staging folders and temporary files of dead writers (`removeLeftovers`);
/// - after a system crash, versions newer than the last history line that are not whole on
///   disk, and trees no version reaches (`checkAfterRestart`, once per boot);
/// - a publish, rollback or unpin stopped before its `current` swap (`completeInterruptedSwap`);
/// - a newest version without its history line (`recordUnrecordedPublish`).
///
/// One per store; each check that needs doing once per store remembers it has been done.
final class StoreRecovery: Sendable {
    private let layout: SiteLayout
    private let reader: VersionReader
    private let publisher: VersionPublisher
    private let swap: CurrentSwap
    private let faults: FaultPlan

    private struct Progress {
        /// Whether this store has removed what crashed processes left, before a first body.
        var leftoversRemoved = false
        /// Whether this store has looked for what a system crash can leave (`checkAfterRestart`).
        var restartChecked = false
        /// Whether this store has looked for a publish whose history line a system crash lost.
        var historyChecked = false
    }

    private let progress = Mutex(Progress())

    init(publisher: VersionPublisher, swap: CurrentSwap, faults: FaultPlan) {
        self.layout = publisher.layout
        self.reader = publisher.reader
        self.publisher = publisher
        self.swap = swap
        self.faults = faults
    }

    /// Runs as the lock is taken, before the holder's body. Returns whether leftovers are to be
    /// removed behind the body: leftovers never stand in a publish's way (each temporary name
    /// holds its writer's pid, and a writer removes its own stale one), so after the first lock
    /// they are removed behind the body, off a save's critical path (four folder listings).
    func recover(holding lock: borrowing HeldPublishLock) throws(StoreError) -> Bool {
        faults.reach(.recover)
        let leftoversRemoved = progress.withLock { $0.leftoversRemoved }
        if !leftoversRemoved {
            try removeLeftovers(holding: lock)
            progress.withLock { $0.leftoversRemoved = true }
        }
        try checkAfterRestart(holding: lock)
        try completeInterruptedSwap(holding: lock)
        try recordUnrecordedPublish(holding: lock)
        return leftoversRemoved
    }

    /// Staging folders and temporary files a crashed process left behind.
    func removeLeftovers(holding lock: borrowing HeldPublishLock) throws(StoreError) {
        // A live build's staged blobs are written before it takes the lock: they stay.
        for name in try FileSystem.list(layout.staging) where !StagingLease.isInUse(name, staging: layout.staging) {
            try FileSystem.removeTree(layout.staging + "/" + name)
        }
        for name in try FileSystem.list(layout.root) where name.hasPrefix("current.tmp-") {
            try FileSystem.remove(layout.root + "/" + name)
        }
        // `pin.tmp-<pid>`: only lock holders write in state/.
        for name in try FileSystem.list(layout.state) where name.contains(".tmp-") { try FileSystem.remove(layout.state + "/" + name) }
        // Status files are written without the lock (by a watcher, in the background): only a
        // dead process's temporary files go.
        for name in (try? FileSystem.list(layout.status)) ?? [] {
            guard let range = name.range(of: ".tmp-", options: .backwards), let pid = pid_t(name[range.upperBound...]),
                kill(pid, 0) == -1, errno == ESRCH
            else { continue }
            try FileSystem.remove(layout.status + "/" + name)
        }
    }

    /// A process killed after publishing a version (or writing a pin) but before swapping `current`
    /// left `current` behind; its work is complete and recorded, so the swap is finished here.
    private func completeInterruptedSwap(holding lock: borrowing HeldPublishLock) throws(StoreError) {
        let current = try reader.currentVersion()
        guard let target = try reader.intendedCurrent(), target != current, FileSystem.exists(layout.versionManifest(target)) else {
            return
        }
        let manifest = try reader.manifest(of: target)
        let trees = TreeReader(layout: layout)
        guard manifest.folders.allSatisfy({ trees.isStored($0.folder.tree) }) else { return }
        let pinned = try reader.pinnedVersion() != nil
        try makeDurable(target)
        try swap.recordAndSwap(
            HistoryEntry(
                action: pinned ? .rollback : .publish, from: current, to: target,
                reason:
                    "completing the swap of a process that was stopped before it (current follows the \(pinned ? "pin" : "newest version"))"
            ), holding: lock)
    }

    /// Every publish appends a line to the history naming its version, and versions are
    /// numbered upwards, so the newest version has a line unless its publisher was stopped
    /// before writing it (while pinned: unpinned, the swap is completed with a line of its own),
    /// or a system crash lost it after the swap (the line is synced after it). Every process
    /// starts after such a crash: each store looks once, at its first lock.
    private func recordUnrecordedPublish(holding lock: borrowing HeldPublishLock) throws(StoreError) {
        guard !progress.withLock({ $0.historyChecked }) else { return }
        if let newest = try reader.newestVersion(), try newestRecordedVersion().map({ $0 < newest }) ?? true {
            try makeDurable(newest)
            try History(path: layout.history).append(
                HistoryEntry(
                    action: .publish, from: nil, to: newest,
                    reason:
                        "recorded late: the history had no line for this version (its publisher was stopped, or a system crash lost the line)"
                ))
        }
        progress.withLock { $0.historyChecked = true }
    }

    /// A system crash between a publish's renames and its `syncfs` can leave its version and new
    /// trees incomplete on disk (`VersionWriter`). So the first lock holder of each boot checks
    /// the store once: every version newer than the newest with a publish line is verified and
    /// taken out when it fails, and the trees no version reaches are removed (a later publish
    /// that writes an equal tree keeps the copy it finds).
    private func checkAfterRestart(holding lock: borrowing HeldPublishLock) throws(StoreError) {
        guard !progress.withLock({ $0.restartChecked }) else { return }
        let boot = BootRecord(path: layout.boot)
        if !boot.isThisBoot {
            let recorded = try newestRecordedVersion()
            let current = try reader.currentVersion()
            for version in try reader.allVersions().reversed() where version != current && recorded.map({ version > $0 }) ?? true {
                var verifier = Verifier(layout: layout)
                let problem: String
                do {
                    try verifier.verify(version)
                    guard let first = verifier.problems.first else { continue }
                    problem = first.description
                } catch {
                    problem = error.description
                }
                publisher.retire(version)
                try History(path: layout.history).append(
                    HistoryEntry(
                        action: .gc, from: version, to: version,
                        reason: "taken out after a restart: it was not whole on disk (\(problem))"))
            }
            let all = try reader.allVersions()
            _ = try GarbageCollector(layout: layout, children: reader.treeChildren, faults: faults).collect(
                versions: all, keeping: Set(all))
            try boot.record()
        }
        progress.withLock { $0.restartChecked = true }
    }

    // MARK: - What is on disk

    /// The newest version with a publish line in the history. A publish writes its line after
    /// the `syncfs` that follows its renames (`VersionWriter`), so this version and every older
    /// one are on disk; a newer one was moved in by a publisher stopped before its line.
    func newestRecordedVersion() throws(StoreError) -> VersionID? {
        try History(path: layout.history).lastEntry { $0.action == .publish }?.to
    }

    /// Syncs the file system before `version` goes live or gets a line, unless a publish line
    /// says it is on disk already: a stopped publisher's version is complete for every process,
    /// but a system crash could still take part of it.
    func makeDurable(_ version: VersionID) throws(StoreError) {
        guard try newestRecordedVersion().map({ $0 < version }) ?? true else { return }
        faults.reach(.sync)
        try FileSystem.syncFileSystem(containing: layout.root)
    }
}
