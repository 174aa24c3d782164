import Synchronization

/// Everything Quire writes under `dist/<site>/`, and the only code that does: the handle that
/// puts together the parts a site's store is made of.
///
/// Layout (ARCHITECTURE.md, "The published layout"): `current -> versions/<v>`; each version
/// folder holds `manifest.json`, `build.json` and one link per top-level folder into `trees/<id>`,
/// immutable content-addressed folders shared between versions; `status/` is mutable
/// (`StatusFolder`); `state/` holds lock, pin and history.
///
/// - `VersionReader` reads versions and caches the newest one's index;
/// - `VersionPublisher` publishes a version, whole or as a delta, under a lock the caller holds;
/// - `StoreOperations` runs the ops commands (rollback, pin, unpin, gc, verify, export, ...);
/// - `CurrentSwap` is the one step that writes a history line and swaps `current`;
/// - `StoreLock` takes the publish lock, and `StoreRecovery` puts right, at each lock, what a
///   crashed process left;
/// - `SpareFolderSlot` holds the spare folders a long-running publisher keeps.
///
/// `faults` (tests only) says where to crash or log steps and which file-system calls fail
/// (`FaultPlan`); every part gets it here, and the lock puts it in effect.
public final class SiteStore: Sendable {
    public let site: String
    /// `dist/<site>`.
    public let root: String
    let layout: SiteLayout

    public let reader: VersionReader
    let publisher: VersionPublisher
    public let operations: StoreOperations
    public let spareFolders: SpareFolderSlot
    let lock: StoreLock

    public init(dist: String, site: String, faults: FaultPlan = .none) throws(StoreError) {
        guard !site.isEmpty, site != ".", site != "..", !site.contains("/"), !site.utf8.contains(0) else {
            throw StoreError("'\(site)' is not a site name: use a folder name without '/'")
        }
        self.site = site
        self.root = dist + "/" + site
        let layout = SiteLayout(root: root)
        self.layout = layout
        let reader = VersionReader(layout: layout, site: site, treeChildren: TreeChildren())
        let swap = CurrentSwap(layout: layout, faults: faults)
        let spares = SpareFolderSlot(reader: reader)
        let publisher = VersionPublisher(site: site, reader: reader, swap: swap, spares: spares, faults: faults)
        let recovery = StoreRecovery(publisher: publisher, swap: swap, faults: faults)
        let lock = StoreLock(layout: layout, site: site, recovery: recovery, faults: faults)
        self.reader = reader
        self.publisher = publisher
        self.spareFolders = spares
        self.lock = lock
        self.operations = StoreOperations(
            site: site, reader: reader, lock: lock, swap: swap, recovery: recovery, spares: spares, faults: faults)
        try FileSystem.makeDirectories(root)
        for folder in layout.folders.dropFirst() { try FileSystem.makeDirectory(folder, ignoringExisting: true) }
    }

    var treeChildren: TreeChildren { reader.treeChildren }

    // MARK: - The lock

    /// Runs `body` holding the site's publish lock, which it lends to `body` (to pass on to
    /// `publish(_:holding:)`); `waiting` is told once when another process holds it; throws after
    /// `timeout` seconds. First, what a crashed or stopped process left is put right (`StoreRecovery`).
    public func withPublishLock<T>(
        timeout: Double, waiting: (String) -> Void,
        _ body: (borrowing HeldPublishLock) throws -> T
    ) throws -> T {
        try lock.withPublishLock(timeout: timeout, waiting: waiting, body)
    }

    /// How long the ops (rollback, unpin, gc, ...) and `publish` without a held lock wait for the
    /// lock, and whom they tell they are waiting.
    public var operationLockTimeout: Double {
        get { lock.operationTimeout }
        set { lock.operationTimeout = newValue }
    }

    public var operationWaiting: @Sendable (String) -> Void {
        get { lock.operationWaiting }
        set { lock.operationWaiting = newValue }
    }

    // MARK: - Publishing

    /// Stages, moves into `versions/`, syncs once and swaps `current` (unless pinned), under the
    /// lock the caller holds (`VersionPublisher`).
    public func publish(_ request: PublishRequest, holding lock: borrowing HeldPublishLock) throws(StoreError) -> PublishOutcome {
        try publisher.publish(request, holding: lock)
    }

    /// Publishes `delta.base` with the changes applied, under the lock the caller holds; throws when
    /// `delta.base` is no longer the newest version (build in full then).
    public func publish(_ delta: PublishDelta, holding lock: borrowing HeldPublishLock) throws(StoreError) -> PublishOutcome {
        try publisher.publish(delta, holding: lock)
    }

    /// Takes the lock with `operationLockTimeout`, then publishes `request`.
    public func publish(_ request: PublishRequest) throws(StoreError) -> PublishOutcome {
        try lock.withOperationLock { (held) throws(StoreError) -> PublishOutcome in try publisher.publish(request, holding: held) }
    }

    /// Takes the lock with `operationLockTimeout`, then publishes `delta`.
    public func publish(_ delta: PublishDelta) throws(StoreError) -> PublishOutcome {
        try lock.withOperationLock { (held) throws(StoreError) -> PublishOutcome in try publisher.publish(delta, holding: held) }
    }
}
