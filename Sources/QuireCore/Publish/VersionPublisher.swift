import Glibc
import QuireModel

/// Publishes a site's versions: plans their trees, writes them, records and swaps them in,
/// under the lock the caller holds. The delta publish is in VersionPublisher+Delta.
final class VersionPublisher: Sendable {
    private let site: String
    let layout: SiteLayout
    let reader: VersionReader
    private let swap: CurrentSwap
    /// The spare folders a long-running publisher lends its store, while it does.
    let spares: SpareFolderSlot
    private let faults: FaultPlan

    init(site: String, reader: VersionReader, swap: CurrentSwap, spares: SpareFolderSlot, faults: FaultPlan) {
        self.site = site
        self.layout = reader.layout
        self.reader = reader
        self.swap = swap
        self.spares = spares
        self.faults = faults
    }

    /// Stages, moves into `versions/`, syncs once and swaps `current` (unless pinned), under the
    /// lock the caller holds.
    func publish(_ request: PublishRequest, holding lock: borrowing HeldPublishLock) throws(StoreError) -> PublishOutcome {
        lock.check(for: layout)
        let newest = try reader.newestVersion()
        if let expected = request.expectedVersion, expected.number != (newest?.number ?? 0) + 1 {
            throw StoreError("another process published meanwhile (this build was made for \(expected)): build again")
        }
        let previousIndex = try newest.map { version throws(StoreError) in try reader.index(of: version) } ?? FileIndex()
        let planned = try TreePlanner(previous: previousIndex).plan(request.files)
        // Indexing a cold build's 60,000 files takes as long as writing and syncing its trees:
        // both at once.
        let newIndex = BackgroundValue { [layout] in FileIndex(planned: planned, layout: layout) }
        return try commit(
            planned, base: newest, siteFields: request.manifest, buildRecord: request.buildRecord, user: request.user, holding: lock
        ) {
            newIndex.value
        }
    }

    /// Writes the planned version (unless it equals `base`), then records and swaps it in.
    /// `makeIndex` gives the new version's file index once it is written.
    func commit(
        _ planned: [(name: String, tree: PlannedTree)], base newest: VersionID?, baseManifest: VersionManifest? = nil,
        siteFields: JSONObject, buildRecord: JSONObject, user: String? = nil, holding lock: borrowing HeldPublishLock,
        makeIndex: () -> FileIndex
    ) throws(StoreError) -> PublishOutcome {
        let version = VersionID((newest?.number ?? 0) + 1)
        let folders: [(name: String, folder: VersionManifest.Folder)] = planned.map { entry in
            (entry.name, VersionManifest.Folder(tree: entry.tree.id, files: entry.tree.fileCount, bytes: entry.tree.byteCount))
        }
        let next = VersionManifest(
            site: site, version: version, parent: newest, builtAt: Timestamp.now(), siteFields: siteFields, folders: folders)
        if let newest {
            let base = if let baseManifest { baseManifest } else { try reader.manifest(of: newest) }
            if next.hasSameContent(as: base) { return .unchanged(newest) }
        }

        let staging = try VersionWriter(layout: layout, spares: spares.current, faults: faults).write(
            next, planned: planned, buildRecord: buildRecord)

        // A process killed before the swap leaves a complete newest version that the next lock
        // holder puts live; a failure (disk full) takes the version back out instead.
        let before = try reader.currentVersion()
        let pin = try PinFile(path: layout.pin).read()
        let reason = pin.map { "current stays at \($0.version): pinned" } ?? ""
        do throws(StoreError) {
            try swap.recordAndSwap(
                HistoryEntry(action: .publish, from: before, to: version, reason: reason, user: user), swap: pin == nil,
                lineSync: .withSwap, holding: lock)
        } catch {
            retire(version)
            try? VersionWriter.removeStaging(staging, faults: faults)
            throw error
        }
        // Live (or recorded while pinned): what is left does not delay readers.
        let index = makeIndex()
        reader.remember(version, index: index, manifest: next)
        try VersionWriter.removeStaging(staging, faults: faults)
        return .published(version, isCurrent: pin == nil)
    }

    /// Takes a version that failed to go live back out of `versions/` (unless `current` reached it
    /// after all), so a failed publish changes nothing that a later run would put live.
    func retire(_ version: VersionID) {
        guard (try? reader.currentVersion()) != version else { return }
        let garbage = layout.staging + "/failed-\(getpid())-\(version)"
        guard (try? FileSystem.rename(layout.version(version), to: garbage)) != nil else { return }
        // Its number is given again by the next publish.
        reader.forgetNewest()
        try? FileSystem.removeTree(garbage)
    }

}
