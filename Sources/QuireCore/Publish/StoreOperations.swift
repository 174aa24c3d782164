import Synchronization

/// What ops do to a site (issue 5): list versions, roll back and pin, unpin, verify, collect
/// garbage, export. The mutating ones take the publish lock themselves (`withOperationLock`).
public final class StoreOperations: Sendable {
    let site: String
    let layout: SiteLayout
    let reader: VersionReader
    let lock: StoreLock
    let swap: CurrentSwap
    let recovery: StoreRecovery
    /// Retention offers the trees it removes to the spare folders lent to the store.
    let spares: SpareFolderSlot
    /// Whether a gc of this process swept all of `trees/` (see `gc(keep:retaining:holding:)`).
    private let sweptAll = Atomic<Bool>(false)
    let faults: FaultPlan

    init(
        site: String, reader: VersionReader, lock: StoreLock, swap: CurrentSwap, recovery: StoreRecovery, spares: SpareFolderSlot,
        faults: FaultPlan
    ) {
        self.site = site
        self.layout = reader.layout
        self.reader = reader
        self.lock = lock
        self.swap = swap
        self.recovery = recovery
        self.spares = spares
        self.faults = faults
    }

    /// Every version, oldest first, with what changed since its parent.
    public func versions() throws(StoreError) -> [VersionInfo] {
        let all = try reader.allVersions()
        let current = try reader.currentVersion()
        let pinned = try reader.pinnedVersion()
        let trees = TreeReader(layout: layout)
        var indexes: [VersionID: [String: PublishedFile]] = [:]
        var infos: [VersionInfo] = []
        for version in all {
            let manifest = try reader.manifest(of: version)
            let files = try reader.index(of: version, trees: trees).files
            indexes[version] = files
            let locales = manifest.localeFolders
            let pages = files.keys.filter { path in
                guard let slash = path.firstIndex(of: "/") else { return false }
                return locales.contains(String(path[..<slash])) && path.hasSuffix(".json")
            }.count
            let changes =
                manifest.parent.flatMap { indexes[$0] }.map { VersionChanges(from: $0, to: files) }
                ?? (manifest.parent == nil ? VersionChanges(from: [:], to: files) : nil)
            infos.append(
                VersionInfo(
                    id: version, builtAt: manifest.builtAt, parent: manifest.parent, pages: pages, locales: locales,
                    bytes: manifest.folders.reduce(0) { $0 + $1.folder.bytes }, changes: changes,
                    isCurrent: version == current, isPinned: version == pinned))
        }
        return infos
    }

    /// Points `current` at `version` (default: the version before current) and pins it there, so
    /// new publishes add versions without moving `current` until `unpin`. `user`: who asked,
    /// when not this process's user (a dashboard user); it goes into the history.
    @discardableResult
    public func rollback(to version: VersionID? = nil, reason: String, user: String? = nil) throws(StoreError) -> VersionID {
        try lock.withOperationLock { (lock) throws(StoreError) -> VersionID in
            let current = try reader.currentVersion()
            let all = try reader.allVersions()
            let target: VersionID
            if let version {
                guard all.contains(version) else {
                    throw StoreError("site '\(site)' has no version '\(version)': list them with 'quire versions'")
                }
                target = version
            } else {
                guard let current, let before = all.last(where: { $0 < current }) else {
                    throw StoreError("site '\(site)' has no version before \(current?.description ?? "current") to roll back to")
                }
                target = before
            }
            try movePinned(to: target, action: .rollback, from: current, reason: reason, user: user, holding: lock)
            return target
        }
    }

    /// Pins `current` where it is now (or at `version`), without rolling back.
    @discardableResult
    public func pin(_ version: VersionID? = nil, reason: String) throws(StoreError) -> VersionID {
        try lock.withOperationLock { (lock) throws(StoreError) -> VersionID in
            let current = try reader.currentVersion()
            guard let target = version ?? current else { throw StoreError("site '\(site)' has no version to pin yet") }
            guard try reader.allVersions().contains(target) else {
                throw StoreError("site '\(site)' has no version '\(target)': list them with 'quire versions'")
            }
            try movePinned(to: target, action: .pin, from: current, reason: reason, holding: lock)
            return target
        }
    }

    private func movePinned(
        to target: VersionID, action: HistoryEntry.Action, from current: VersionID?, reason: String, user: String? = nil,
        holding lock: borrowing HeldPublishLock
    ) throws(StoreError) {
        // Only a complete version is served: its manifest and every folder's tree must be there.
        let manifest = try reader.manifest(of: target)
        let trees = TreeReader(layout: layout)
        for entry in manifest.folders where !trees.isStored(entry.folder.tree) {
            throw StoreError(
                "version \(target) is incomplete (the tree of '\(entry.name)' is gone); run 'quire verify --version \(target)'")
        }
        try recovery.makeDurable(target)
        // Pin, then history and swap: a process stopped after the pin is finished by the next lock
        // holder (`current` follows the pin).
        let pinFile = PinFile(path: layout.pin)
        let previousPin = try pinFile.bytes()
        faults.reach(.pin)
        try pinFile.write(target, reason: reason)
        do throws(StoreError) {
            try swap.recordAndSwap(HistoryEntry(action: action, from: current, to: target, reason: reason, user: user), holding: lock)
        } catch {
            try? pinFile.restore(previousPin)
            throw error
        }
    }

    /// Removes the pin and points `current` at the newest version again.
    @discardableResult
    public func unpin(reason: String, user: String? = nil) throws(StoreError) -> VersionID? {
        try lock.withOperationLock { (lock) throws(StoreError) -> VersionID? in
            let current = try reader.currentVersion()
            let pinFile = PinFile(path: layout.pin)
            let previousPin = try pinFile.bytes()
            faults.reach(.pin)
            try pinFile.remove()
            let newest = try reader.newestVersion()
            do throws(StoreError) {
                try swap.recordAndSwap(HistoryEntry(action: .unpin, from: current, to: newest, reason: reason, user: user), holding: lock)
            } catch {
                try? pinFile.restore(previousPin)
                throw error
            }
            return newest
        }
    }

    /// The pin with its reason, for `quire versions`.
    public func pin() throws(StoreError) -> (version: VersionID, reason: String, pinnedAt: String)? {
        try PinFile(path: layout.pin).read().map { ($0.version, $0.reason, $0.pinnedAt) }
    }

    /// Re-hashes every file reachable from `version` (default: current) against the manifests.
    public func verify(version: VersionID? = nil) throws(StoreError) -> [VerificationProblem] {
        let current = try reader.currentVersion()
        guard let target = version ?? current else { throw StoreError("site '\(site)' has no current version to verify") }
        var verifier = Verifier(layout: layout)
        try verifier.verify(target)
        return verifier.problems
    }

    /// Verifies a folder written by `export(version:to:)`.
    public static func verify(exportedFolder folder: String) throws(StoreError) -> [VerificationProblem] {
        var verifier = Verifier(layout: SiteLayout(root: folder))
        try verifier.verify(exportedFolder: folder)
        return verifier.problems
    }

    /// Keeps the newest `keep` versions plus current, the pinned one and all newer than current;
    /// removes the others and every tree no kept version reaches.
    @discardableResult
    public func gc(keep: Int, reason: String = "", user: String? = nil) throws(StoreError) -> CollectionReport {
        try lock.withOperationLock { (lock) throws(StoreError) -> CollectionReport in
            try gc(keep: keep, reason: reason, user: user, holding: lock)
        }
    }

    /// `gc(keep:reason:)` under the lock the caller holds: retention (`keep:`) runs in the
    /// lock its publish took. Retention sweeps all of `trees/` once in a process (what a killed
    /// publisher left goes then), afterwards only the trees the removed versions reached.
    @discardableResult
    public func gc(
        keep: Int, reason: String = "", user: String? = nil, retaining: Bool = false, holding lock: borrowing HeldPublishLock
    ) throws(StoreError) -> CollectionReport {
        lock.check(for: layout)
        let all = try reader.allVersions()
        let current = try reader.currentVersion()
        let kept = GarbageCollector.kept(all, keep: keep, current: current, pinned: try reader.pinnedVersion())
        // The trees it removes may become spare folders of their folders' newer trees, and a
        // watcher unlinks the rest after the lock (its spare folders' background).
        let spareFolders = spares.current
        let sweepingAll = !retaining || !sweptAll.exchange(true, ordering: .acquiringAndReleasing)
        let report = try GarbageCollector(layout: layout, children: reader.treeChildren, faults: faults).collect(
            versions: all, keeping: kept, sweepingAll: sweepingAll, recycle: { spareFolders?.recycled.offer($0, at: $1) ?? false },
            removing: { folder throws(StoreError) in
                if spareFolders?.removeLater(folder) != true { try FileSystem.removeTree(folder) }
            })
        let detail = "removed \(report.removedVersions.count) versions, \(report.removedTrees) trees"
        faults.reach(.history)
        // A gc that removed nothing is not history worth reading.
        guard !report.removedVersions.isEmpty || report.removedTrees > 0 else { return report }
        try History(path: layout.history).append(
            HistoryEntry(
                action: .gc, from: report.removedVersions.first, to: report.removedVersions.last,
                reason: reason.isEmpty ? detail : reason + " (" + detail + ")", user: user))
        return report
    }

    /// Writes `version` (default: current) as plain files into the new folder `destination`.
    public func export(version: VersionID? = nil, to destination: String) throws(StoreError) {
        let current = try reader.currentVersion()
        guard let target = version ?? current else { throw StoreError("site '\(site)' has no current version to export") }
        try Exporter(layout: layout).export(reader.manifest(of: target), index: reader.index(of: target), to: destination)
    }

    /// `state/history.jsonl`, oldest first.
    public func history() throws(StoreError) -> [HistoryEntry] {
        try History(path: layout.history).entries()
    }

    /// The newest `count` entries of the history, oldest first.
    public func history(last count: Int) throws(StoreError) -> [HistoryEntry] {
        try History(path: layout.history).lastEntries(count)
    }
}

extension VersionManifest {
    /// The locale folders: the site's `locales` field when it lists them, else every folder but
    /// `assets` and `preview`.
    var localeFolders: [String] {
        let names = folders.map(\.name)
        if let listed = siteFields["locales"]?.arrayValue?.compactMap(\.stringValue), !listed.isEmpty {
            return listed.filter(names.contains)
        }
        return names.filter { $0 != "assets" && $0 != "preview" }
    }
}
