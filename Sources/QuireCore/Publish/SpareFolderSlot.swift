import Synchronization

/// The spare folders (`SpareFolders`) a long-running publisher (`quire watch`) keeps for a store:
/// made here between saves from the newest version's folders, taken by the store's publishes
/// (`VersionWriter`) and fed by its retention (`RecycledFolders`). Empty unless kept.
public final class SpareFolderSlot: Sendable {
    private let reader: VersionReader
    private let spares = Mutex<SpareFolders?>(nil)
    /// The older versions whose big trees `rememberTrees` noted.
    private let notedVersions = Mutex<Set<VersionID>>([])

    init(reader: VersionReader) { self.reader = reader }

    /// The spares publishes take from, while kept.
    var current: SpareFolders? { spares.withLock { $0 } }

    /// Keeps spare copies of the newest version's folders from now on: `prepare` makes them.
    public func keep() throws(StoreError) {
        guard current == nil else { return }
        let made = try SpareFolders(staging: reader.layout.staging)
        spares.withLock { if $0 == nil { $0 = made } }
    }

    /// Makes the missing spares of the newest version's folders, outer folders first (every
    /// save edits those), `workers` folders at a time; returns how many. Runs beside publishes,
    /// without the lock, and stops as soon as `shouldStop` (asked by every worker) says so.
    /// `savesEdit` names the folders saves are expected to change before any has (`reserve`).
    @discardableResult
    public func prepare(workers: Int = 1, savesEdit: (String) -> Bool = { _ in false }, shouldStop: () -> Bool) -> Int {
        guard let spares = current else { return 0 }
        let trees = newestTrees()
        guard !trees.isEmpty else { return 0 }
        return spares.prepare(trees, from: reader.layout, workers: workers, savesEdit: savesEdit, shouldStop: shouldStop)
    }

    /// After `prepare`: a reserve copy of each big folder whose tree changed since a round saw
    /// it, or, after the first round, that saves edit (`SpareFolders.reserve`), when the next
    /// save's retention will remove no version to recycle (the store holds fewer than `keep`, or
    /// keeps every version: nil). Returns how many it made.
    @discardableResult
    public func reserve(workers: Int = 1, keep: Int?, shouldStop: () -> Bool) -> Int {
        guard let spares = current else { return 0 }
        if let keep, (try? reader.versionCount()).map({ $0 >= keep }) ?? true { return 0 }
        return spares.reserve(newestTrees(), from: reader.layout, workers: workers, shouldStop: shouldStop)
    }

    /// The newest version's trees, each once, outer folders first.
    private func newestTrees() -> [(id: String, path: String, manifest: TreeManifest)] {
        // Each folder's depth counted once, not in every comparison of the sort.
        var seen = Set<String>()
        return reader.newestFolders()
            .map { (depth: UTF8Scan.slashes(in: $0.key), folder: $0) }
            .sorted { ($0.depth, $0.folder.key) < ($1.depth, $1.folder.key) }
            .compactMap { entry -> (id: String, path: String, manifest: TreeManifest)? in
                let tree = entry.folder.value
                return seen.insert(tree.id).inserted ? (id: tree.id, path: entry.folder.key, manifest: tree.manifest) : nil
            }
    }

    /// Notes the big trees of the newest `count` versions, as `prepare` notes the trees it makes
    /// spares for: retention, which removes them over the next saves, then recycles them
    /// (`RecycledFolders`). A watcher started on a store with history thus has its big folders'
    /// spares brought up to date in a millisecond from its first saves on, not linked anew (a
    /// second for 100,000 entries). The newest version's trees are in memory; of the others, reads
    /// only the folders whose tree differs from the newest's, and of each, the parts the newest's
    /// does not share, once a version (a restart notes them before its first publish, and again
    /// after its first build, as every watcher does).
    public func rememberTrees(ofNewest count: Int) {
        guard let spares = current, let versions = try? reader.allVersions().suffix(count).dropLast() else { return }
        let newest = Dictionary(reader.newestFolders(), uniquingKeysWith: { first, _ in first })
        guard !newest.isEmpty else { return }
        // Noted here too: a restart notes them before its first publish replaces them.
        for (path, tree) in newest where tree.manifest.entryCount >= RecycledFolders.fewestEntries {
            spares.recycled.remember(tree.id, path: path, manifest: tree.manifest)
        }
        var seen = Set(newest.values.map(\.id))
        func remember(_ id: String, at path: String) {
            guard seen.insert(id).inserted,
                let manifest = try? TreeManifest.read(id, layout: reader.layout, sharingPartsWith: newest[path]?.manifest)
            else { return }
            if manifest.entryCount >= RecycledFolders.fewestEntries { spares.recycled.remember(id, path: path, manifest: manifest) }
            manifest.forEachEntry { entry in
                if case .tree(let child) = entry.kind { remember(child, at: path + "/" + entry.name) }
            }
        }
        // Oldest first: retention removes them in that order.
        for version in versions where notedVersions.withLock({ $0.insert(version).inserted }) {
            guard let manifest = try? reader.manifest(of: version) else { continue }
            for folder in manifest.folders { remember(folder.folder.tree, at: folder.name) }
        }
    }

    /// Removes the spares (or hands the whole ones to the next watcher: `SpareFolders`) and
    /// keeps none from now on.
    public func close(handingOver: Bool = false) {
        // Removed outside the lock: tens of thousands of links on a large site.
        let kept = spares.withLock { spares in
            defer { spares = nil }
            return spares
        }
        kept?.close(handingOver: handingOver)
    }

    /// Spares made from folders retention removed (`RecycledFolders`) so far.
    public var recycled: Int { current?.recycledSpares.load(ordering: .relaxed) ?? 0 }

    /// Folders retention removed that were unlinked after its lock (`SpareFolders.removeLater`),
    /// once each has gone.
    public var removedLater: Int { current?.removedLater.load(ordering: .relaxed) ?? 0 }

    /// Spares taken by delta publishes so far.
    public var taken: Int { current?.taken.load(ordering: .relaxed) ?? 0 }
}
