import Synchronization

/// Reads a site's versions and keeps what a publisher reads again on every save: the newest
/// version's file index, its number and the last manifest. Versions are numbered in publish
/// order and never change, so what is cached is checked with a `stat`, not read again.
public final class VersionReader: Sendable {
    let layout: SiteLayout
    private let site: String
    /// The subfolder trees of each tree seen so far (for gc and pushes).
    let treeChildren: TreeChildren

    private struct Cache {
        var newest: (version: VersionID, index: FileIndex)?
        /// The newest version last seen, and the last manifest written or read.
        var newestSeen: VersionID?
        var lastManifest: VersionManifest?
    }

    private let cache = Mutex(Cache())

    init(layout: SiteLayout, site: String, treeChildren: TreeChildren) {
        self.layout = layout
        self.site = site
        self.treeChildren = treeChildren
    }

    /// The highest version number in `versions/` (not `current`, which a pin may hold back).
    /// The one seen last is still the newest while it exists and the next number does not (a
    /// publisher always adds the next number; gc and retirement never leave a gap above a
    /// version they keep): two `stat`s instead of listing every version on each save.
    public func newestVersion() throws(StoreError) -> VersionID? {
        if let seen = cache.withLock({ $0.newestSeen }), FileSystem.exists(layout.version(seen)),
            !FileSystem.exists(layout.version(VersionID(seen.number + 1)))
        {
            return seen
        }
        let newest = try allVersions().last
        cache.withLock { $0.newestSeen = newest }
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

    /// Where `current` must be: at the pinned version while pinned, else at the newest.
    func intendedCurrent() throws(StoreError) -> VersionID? {
        if let pinned = try PinFile(path: layout.pin).read() { return pinned.version }
        return try newestVersion()
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
        if let last = cache.withLock({ $0.lastManifest }), last.version == version { return last }
        let manifest = try VersionManifest(parsing: FileSystem.readFile(path), path: path)
        cache.withLock { $0.lastManifest = manifest }
        return manifest
    }

    /// The SHA-256 of a version's manifest, which names every tree of it by its manifest's digest.
    func manifestDigest(of version: VersionID) throws(StoreError) -> Digest {
        SHA256.digest(try FileSystem.readFile(layout.versionManifest(version)))
    }

    /// Every file of a version, by path (cached in memory for the newest version).
    public func files(of version: VersionID) throws(StoreError) -> [String: PublishedFile] {
        try index(of: version).files
    }

    /// The named files of a version (those it has), without listing the rest.
    public func files(_ paths: some Sequence<String>, of version: VersionID) throws(StoreError) -> [String: PublishedFile] {
        let index = try index(of: version)
        var files: [String: PublishedFile] = [:]
        for path in paths { if let location = index.location(of: path) { files[path] = location.file } }
        return files
    }

    /// The bytes of a file of a version (`en/index.json`).
    func bytes(of path: String, in version: VersionID) throws(StoreError) -> [UInt8] {
        try FileSystem.readFile(layout.version(version) + "/" + path)
    }

    func index(of version: VersionID, trees: TreeReader? = nil) throws(StoreError) -> FileIndex {
        if let cached = cache.withLock({ $0.newest }), cached.version == version { return cached.index }
        let index = try FileIndex(manifest: manifest(of: version), trees: trees ?? TreeReader(layout: layout))
        if try version == newestVersion() { cache.withLock { $0.newest = (version, index) } }
        return index
    }

    /// The index of `version` when it is the newest and in memory (nothing is read).
    func cachedIndex(of version: VersionID) -> FileIndex? {
        cache.withLock { $0.newest?.version == version ? $0.newest?.index : nil }
    }

    /// The folders of the newest version's index in memory (for spare folders), without holding
    /// the index itself: holding it would make the next publish copy it.
    func newestFolders() -> [(key: String, value: (id: String, manifest: TreeManifest))] {
        cache.withLock { $0.newest.map { Array($0.index.folders) } ?? [] }
    }

    // MARK: - What publishers tell the cache

    /// Takes the newest version's cached index out of the cache, so that the caller holds its
    /// only copy and can update it in place (a delta publish) without copying every entry.
    func takeCachedIndex(of version: VersionID) -> FileIndex? {
        cache.withLock { cache in
            guard let cached = cache.newest, cached.version == version else { return nil }
            cache.newest = nil
            return cached.index
        }
    }

    func restoreCachedIndex(_ index: FileIndex, of version: VersionID) {
        cache.withLock { cache in if cache.newest == nil { cache.newest = (version, index) } }
    }

    /// A version just published is the newest: its index, number and manifest are kept.
    func remember(_ version: VersionID, index: FileIndex, manifest: VersionManifest) {
        cache.withLock { cache in
            cache.newest = (version, index)
            cache.newestSeen = version
            cache.lastManifest = manifest
        }
    }

    /// The newest version was taken back out: what was kept of it goes.
    func forgetNewest() {
        cache.withLock { cache in
            cache.newest = nil
            cache.newestSeen = nil
            cache.lastManifest = nil
        }
    }

    // MARK: - Trees for gc

    /// Notes the subfolders and parts of the newest version's trees from the index in memory,
    /// for the next gc (`TreeChildren`): only trees it has not seen are looked at.
    public func learnNewestTrees() {
        guard let index = cache.withLock({ $0.newest?.index }) else { return }
        treeChildren.learn(index.folders.values.lazy.map { (id: $0.id, manifest: $0.manifest) })
    }

    /// Reads which subfolders and parts the trees of the newest `count` versions have, for
    /// retention (`keep: count`): a watcher that starts on a store with history reads them in the
    /// background, not in its first save's gc (a second or so for folders of 10,000 entries).
    /// Without the lock: what another process removes meanwhile is left for that gc to read.
    public func learnTrees(ofNewest count: Int) {
        guard let versions = try? allVersions().suffix(count) else { return }
        _ = try? GarbageCollector(layout: layout, children: treeChildren, faults: .none).reachable(from: Array(versions))
    }
}
