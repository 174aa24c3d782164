// The store of one site: the publish lock and reading versions. Publishing is in
// SiteStore+Publish, ops in SiteStore+Operations, what a crashed process left in StoreRecovery;
// the steps live in small types beside them (TreePlanner, TreeWriter, CurrentLink, PublishLock, ...).
import Glibc
import Synchronization

/// Everything Quire writes under `dist/<site>/`, and the only code that does.
///
/// Layout (ARCHITECTURE.md, "The published layout"): `current -> versions/<v>`; each version
/// folder holds `manifest.json`, `build.json` and one link per top-level folder into `trees/<id>`,
/// immutable content-addressed folders shared between versions; `status/` is mutable; `state/`
/// holds lock, pin and history.
///
/// Whatever writes a version, the pin or `current` needs the site's publish lock: it is taken once
/// (`withPublishLock`) and lent to what writes as a `HeldPublishLock`; the ops methods take it
/// themselves. It is not re-entrant: one taker, one holder.
public final class SiteStore: @unchecked Sendable {
    public let site: String
    /// `dist/<site>`.
    public let root: String

    /// How long the ops methods (rollback, unpin, gc, ...) wait for the lock, and whom they tell
    /// they are waiting.
    public var operationLockTimeout: Double = 30
    public var operationWaiting: @Sendable (String) -> Void = { _ in }

    let layout: SiteLayout
    let treeChildren = TreeChildren()

    /// Puts right what a crashed or stopped process left, at each lock.
    let recovery: StoreRecovery

    private struct State {
        var newest: (version: VersionID, index: FileIndex)?
        /// The newest version last seen, and the last manifest written or read: versions are
        /// numbered in publish order and never change, so both are checked with a `stat`.
        var newestSeen: VersionID?
        var lastManifest: VersionManifest?
        var spares: SpareFolders?
    }

    private let state = Mutex(State())

    public init(dist: String, site: String) throws(StoreError) {
        guard !site.isEmpty, site != ".", site != "..", !site.contains("/"), !site.utf8.contains(0) else {
            throw StoreError("'\(site)' is not a site name: use a folder name without '/'")
        }
        self.site = site
        self.root = dist + "/" + site
        self.layout = SiteLayout(root: root)
        self.recovery = StoreRecovery(layout: layout)
        try FileSystem.makeDirectories(root)
        for folder in layout.folders.dropFirst() { try FileSystem.makeDirectory(folder, ignoringExisting: true) }
    }

    // MARK: - The lock

    /// Runs `body` holding the site's publish lock, which it lends to `body` (to pass on to
    /// `publish(_:holding:)`); `waiting` is told once when another process holds it; throws after
    /// `timeout` seconds. First, what a crashed or stopped process left is put right (`StoreRecovery`).
    public func withPublishLock<T>(
        timeout: Double, waiting: (String) -> Void,
        _ body: (borrowing HeldPublishLock) throws -> T
    ) throws -> T {
        let lock = try PublishLock(path: layout.lock, site: site, timeout: timeout, waiting: waiting)
        let held = HeldPublishLock(root: root)
        let result = Result { () throws -> T in
            let removesLeftoversAfter = try recovery.recover(self, holding: held)
            defer { if removesLeftoversAfter { try? recovery.removeLeftovers(holding: held) } }
            return try body(held)
        }
        _ = consume lock
        return try result.get()
    }

    /// The lock for the ops methods, taken with `operationLockTimeout`.
    func withOperationLock<T>(_ body: (borrowing HeldPublishLock) throws(StoreError) -> T) throws(StoreError) -> T {
        do {
            return try withPublishLock(timeout: operationLockTimeout, waiting: operationWaiting) { held in try body(held) }
        } catch let error as StoreError {
            throw error
        } catch {
            throw StoreError("\(error)")
        }
    }

    // MARK: - Reading versions

    /// The highest version number in `versions/` (not `current`, which a pin may hold back).
    /// The one seen last is still the newest while it exists and the next number does not (a
    /// publisher always adds the next number; gc and retirement never leave a gap above a
    /// version they keep): two `stat`s instead of listing every version on each save.
    public func newestVersion() throws(StoreError) -> VersionID? {
        if let seen = state.withLock({ $0.newestSeen }), FileSystem.exists(layout.version(seen)),
            !FileSystem.exists(layout.version(VersionID(seen.number + 1)))
        {
            return seen
        }
        let newest = try allVersions().last
        state.withLock { $0.newestSeen = newest }
        return newest
    }

    /// How many versions `versions/` holds.
    public func versionCount() throws(StoreError) -> Int { try allVersions().count }

    public func currentVersion() throws(StoreError) -> VersionID? {
        try CurrentLink(layout: layout).read()
    }

    public func pinnedVersion() throws(StoreError) -> VersionID? {
        try PinFile(path: layout.pin).read()?.version
    }

    /// Every version in `versions/`, oldest first.
    func allVersions() throws(StoreError) -> [VersionID] {
        try FileSystem.list(layout.versions).compactMap(VersionID.init).sorted()
    }

    func manifest(of version: VersionID) throws(StoreError) -> VersionManifest {
        let path = layout.versionManifest(version)
        guard FileSystem.exists(layout.version(version)) else {
            throw StoreError("site '\(site)' has no version '\(version)': list them with 'quire versions'")
        }
        if let last = state.withLock({ $0.lastManifest }), last.version == version { return last }
        let manifest = try VersionManifest(parsing: FileSystem.readFile(path), path: path)
        state.withLock { $0.lastManifest = manifest }
        return manifest
    }

    /// Every file of a version, by path (cached in memory for the newest version).
    public func files(of version: VersionID) throws(StoreError) -> [String: PublishedFile] {
        try index(of: version).files
    }

    /// The bytes of a file of a version (`en/index.json`).
    func bytes(of path: String, in version: VersionID) throws(StoreError) -> [UInt8] {
        try FileSystem.readFile(layout.version(version) + "/" + path)
    }

    /// Takes the newest version's cached index out of the cache, so that the caller holds its
    /// only copy and can update it in place (a delta publish) without copying every entry.
    func takeCachedIndex(of version: VersionID) -> FileIndex? {
        state.withLock { state in
            guard let cached = state.newest, cached.version == version else { return nil }
            state.newest = nil
            return cached.index
        }
    }

    func restoreCachedIndex(_ index: FileIndex, of version: VersionID) {
        state.withLock { state in if state.newest == nil { state.newest = (version, index) } }
    }

    /// A version just published is the newest: its index, number and manifest are kept.
    func remember(_ version: VersionID, index: FileIndex, manifest: VersionManifest) {
        state.withLock { state in
            state.newest = (version, index)
            state.newestSeen = version
            state.lastManifest = manifest
        }
    }

    /// Notes the subfolders and parts of the newest version's trees from the index in memory,
    /// for the next gc (`TreeChildren`): only trees it has not seen are looked at.
    func learnNewestTrees() {
        guard let index = state.withLock({ $0.newest?.index }) else { return }
        treeChildren.learn(index.folders.values.lazy.map { (id: $0.id, manifest: $0.manifest) })
    }

    /// Reads which subfolders and parts the trees of the newest `count` versions have, for
    /// retention (`keep: count`): a watcher that starts on a store with history reads them in the
    /// background, not in its first save's gc (a second or so for folders of 10,000 entries).
    /// Without the lock: what another process removes meanwhile is left for that gc to read.
    public func learnTrees(ofNewest count: Int) {
        guard let versions = try? allVersions().suffix(count) else { return }
        _ = try? GarbageCollector(layout: layout, children: treeChildren).reachable(from: Array(versions))
    }

    /// The newest version was taken back out: what was kept of it goes.
    func forgetNewest() {
        state.withLock { state in
            state.newest = nil
            state.newestSeen = nil
            state.lastManifest = nil
        }
    }

    /// The named files of a version (those it has), without listing the rest.
    public func files(_ paths: some Sequence<String>, of version: VersionID) throws(StoreError) -> [String: PublishedFile] {
        let index = try index(of: version)
        var files: [String: PublishedFile] = [:]
        for path in paths { if let location = index.location(of: path) { files[path] = location.file } }
        return files
    }

    func index(of version: VersionID, trees: TreeReader? = nil) throws(StoreError) -> FileIndex {
        if let cached = state.withLock({ $0.newest }), cached.version == version { return cached.index }
        let index = try FileIndex(manifest: manifest(of: version), trees: trees ?? TreeReader(layout: layout))
        if try version == newestVersion() { state.withLock { $0.newest = (version, index) } }
        return index
    }

    // MARK: - Spare folders

    /// Keeps spare copies of the newest version's folders (`SpareFolders`) from now on, for a
    /// long-running publisher (`quire watch`): `prepareSpareFolders` makes them.
    public func keepSpareFolders() throws(StoreError) {
        guard state.withLock({ $0.spares == nil }) else { return }
        let spares = try SpareFolders(staging: layout.staging)
        state.withLock { if $0.spares == nil { $0.spares = spares } }
    }

    /// Makes the missing spares of the newest version's folders, outer folders first (every
    /// save edits those), `workers` folders at a time; returns how many. Runs beside publishes,
    /// without the lock, and stops as soon as `shouldStop` (asked by every worker) says so.
    @discardableResult
    public func prepareSpareFolders(workers: Int = 1, shouldStop: () -> Bool) -> Int {
        // The folders only, not the index: holding it would make the next publish copy it.
        let (spares, folders) = state.withLock { state in
            (state.spares, state.newest.map { Array($0.index.folders) } ?? [])
        }
        guard let spares, !folders.isEmpty else { return 0 }
        // Each folder's depth counted once, not in every comparison of the sort.
        var seen = Set<String>()
        let trees =
            folders
            .map { (depth: UTF8Scan.slashes(in: $0.key), folder: $0) }
            .sorted { ($0.depth, $0.folder.key) < ($1.depth, $1.folder.key) }
            .compactMap { entry -> (id: String, path: String, manifest: TreeManifest)? in
                let tree = entry.folder.value
                return seen.insert(tree.id).inserted ? (id: tree.id, path: entry.folder.key, manifest: tree.manifest) : nil
            }
        return spares.prepare(trees, from: layout, workers: workers, shouldStop: shouldStop)
    }

    /// Removes the spares (or hands the whole ones to the next watcher: `SpareFolders`) and
    /// keeps none from now on.
    public func closeSpareFolders(handingOver: Bool = false) {
        // Removed outside the lock: tens of thousands of links on a large site.
        let spares = state.withLock { state in
            defer { state.spares = nil }
            return state.spares
        }
        spares?.close(handingOver: handingOver)
    }

    /// The spares publishes take from, while kept.
    var spareFolders: SpareFolders? { state.withLock { $0.spares } }

    /// Spares made from folders retention removed (`RecycledFolders`) so far.
    public var sparesRecycled: Int { state.withLock { $0.spares?.recycledSpares.load(ordering: .relaxed) ?? 0 } }

    /// Spares taken by delta publishes so far.
    public var spareFoldersTaken: Int { state.withLock { $0.spares?.taken.load(ordering: .relaxed) ?? 0 } }

    // MARK: - Status

    /// Replaces `status/status.json` (and any other status files) atomically.
    public func writeStatus(_ files: [String: [UInt8]]) throws(StoreError) {
        for (name, bytes) in files.sorted(by: { $0.key < $1.key }) {
            let components = name.split(separator: "/", omittingEmptySubsequences: false)
            guard !components.contains(where: { $0.isEmpty || $0 == "." || $0 == ".." }) else {
                throw StoreError("cannot write the status file '\(name)': empty, '.' and '..' path segments are not allowed")
            }
            var folder = layout.status
            for component in components.dropLast() {
                folder += "/" + component
                try FileSystem.makeDirectory(folder, ignoringExisting: true)
            }
            try FileSystem.replaceFile(layout.status + "/" + name, bytes)
        }
    }
}
