import Synchronization

/// The spare folders (`SpareFolders`) a long-running publisher (`quire watch`) keeps for a store:
/// made here between saves from the newest version's folders, taken by the store's publishes
/// (`VersionWriter`) and fed by its retention (`RecycledFolders`). Empty unless kept.
public final class SpareFolderSlot: Sendable {
    private let reader: VersionReader
    private let spares = Mutex<SpareFolders?>(nil)

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
    @discardableResult
    public func prepare(workers: Int = 1, shouldStop: () -> Bool) -> Int {
        guard let spares = current else { return 0 }
        let folders = reader.newestFolders()
        guard !folders.isEmpty else { return 0 }
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
        return spares.prepare(trees, from: reader.layout, workers: workers, shouldStop: shouldStop)
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
