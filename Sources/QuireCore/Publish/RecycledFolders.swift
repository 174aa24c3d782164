import Synchronization

/// Tree folders that retention (`keep:`) removed, and reserve copies (`SpareFolders.reserve`),
/// kept to become spares (`SpareFolders`) of their folder's newer trees.
///
/// A new tree of a folder of 10,000 entries needs 10,000 links, and removing an old one as many
/// unlinks. A tree of the same folder a few versions older differs from the newest one only by
/// the entries those versions changed: brought up to the newest tree (`update`), it becomes a
/// whole spare for the cost of those few entries. So saves back to back into one big folder find
/// their spares ready, and retention unlinks nothing of such a folder.
///
/// A removed tree is matched by the folder path it had when its spare was wanted (`remember`):
/// only a tree of that path is a near copy. What it holds is known from its manifest, kept in
/// memory from then on (its parts are shared with the newer manifests': little memory), so the
/// difference is found by comparing the ids of the two manifests' parts, then the entries of the
/// few parts that differ (`TreeManifest+Parts`).
///
/// Until retention removes a version (a store with fewer than `keep:`, or without it) nothing is
/// recycled: then the spares' rounds link a reserve copy of the newest tree of each big folder
/// saves change into the pool, which the next round brings up to date as it would a removed
/// tree. A reserve a save stopped holds its tree's entries up to a count, in manifest order,
/// and is finished from that tree (while a version still has it) before it is brought up to date.
final class RecycledFolders: Sendable {
    /// Smaller folders are linked anew about as fast as they are compared: none is kept.
    static let fewestEntries = TreeManifest.partedFrom
    static let prefix = "recycled-"

    /// The spares' folder, a staging lease: what the pool holds goes with the lease.
    private let folder: String

    private struct State {
        /// The folder path and manifest of each tree of `fewestEntries` or more that a spare was wanted for.
        var trees: [String: (path: String, manifest: TreeManifest)] = [:]
        /// Per folder path, the one copy kept for it.
        var pool: [String: Copy] = [:]
        var named = 0
    }

    /// A folder in the pool: a copy of tree `tree` (whose entries are `manifest`'s), whole, or
    /// (a reserve a save stopped) of its first `linked` entries in manifest order.
    struct Copy {
        let folder: String
        let tree: String
        let manifest: TreeManifest
        var linked: Int?
    }

    private let state = Mutex(State())

    init(in folder: String) { self.folder = folder }

    /// Notes the folder path and the manifest of tree `id`, whose spare is wanted.
    func remember(_ id: String, path: String, manifest: TreeManifest) {
        state.withLock { state in
            // Without `keep:` no tree is ever offered: the oldest notes go rather than pile up.
            if state.trees.count >= 4096 { state.trees.removeAll(keepingCapacity: true) }
            state.trees[id] = (path, manifest.stored)
        }
    }

    /// Takes the folder of tree `id`, which retention removed from `trees/` and put at
    /// `location`, into the pool: when the tree is known and the pool holds none for its path
    /// yet. Returns whether it was taken (moved away from `location`).
    func offer(_ id: String, at location: String) -> Bool {
        let slot = state.withLock { state -> (path: String, copy: Copy)? in
            guard let tree = state.trees.removeValue(forKey: id), state.pool[tree.path] == nil else { return nil }
            let copy = Copy(folder: Self.newFolder(in: folder, &state), tree: id, manifest: tree.manifest)
            state.pool[tree.path] = copy
            return (tree.path, copy)
        }
        guard let slot else { return false }
        if (try? FileSystem.rename(location, to: slot.copy.folder)) != nil { return true }
        state.withLock { _ = $0.pool.removeValue(forKey: slot.path) }
        return false
    }

    /// The copy kept for the folder at `path`, out of the pool; nil when there is none.
    func take(for path: String) -> Copy? {
        state.withLock { $0.pool.removeValue(forKey: path) }
    }

    /// Whether the pool holds a copy for the folder at `path`.
    func holdsCopy(for path: String) -> Bool {
        state.withLock { $0.pool[path] != nil }
    }

    /// A path in the pool's folder for a new copy (nothing made there yet).
    func newFolder() -> String {
        state.withLock { Self.newFolder(in: folder, &$0) }
    }

    private static func newFolder(in folder: String, _ state: inout State) -> String {
        state.named += 1
        return folder + "/" + prefix + String(state.named)
    }

    /// Puts `copy` (made at a `newFolder()` path) into the pool as the copy for the folder at
    /// `path`; false, leaving it to the caller to remove, when the pool holds one for it already.
    func keep(_ copy: Copy, for path: String) -> Bool {
        state.withLock { state in
            guard state.pool[path] == nil else { return false }
            state.pool[path] = copy
            return true
        }
    }

    /// Whether `name`, in the spares' folder, is a recycled folder.
    static func holds(_ name: String) -> Bool { name.hasPrefix(prefix) }

    /// Makes `target`, which holds the entries of `old`, hold those of `new` instead: an entry
    /// that differs is hard-linked from `source` (the folder of `new`'s tree), one `new` lacks is
    /// removed. Returns how many entries it changed.
    @discardableResult
    static func update(_ target: DirectoryHandle, from old: TreeManifest, to new: TreeManifest, source: DirectoryHandle) throws(StoreError)
        -> Int
    {
        let (removed, linked) = differences(from: old, to: new)
        for name in removed { try target.remove(name) }
        for name in linked {
            try target.remove(name, ifPresent: true)
            try target.hardLink(from: source, name, as: name)
        }
        return removed.count + linked.count
    }

    /// The names `old` has and `new` lacks, and those `new` has with other contents or `old`
    /// lacks. Parts with equal ids hold equal entries: only the entries of the others are compared.
    static func differences(from old: TreeManifest, to new: TreeManifest) -> (removed: [String], linked: [String]) {
        let (oldParts, newParts) = (old.runs, new.runs)
        let oldIDs = Set(oldParts.compactMap(\.id))
        let newIDs = Set(newParts.compactMap(\.id))
        // A name in a part both have is in no other part of either (names are unique).
        var before: [String: TreeManifest.Kind] = [:]
        for part in oldParts where part.id.map(newIDs.contains) != true {
            for entry in part.entries { before[entry.name] = entry.kind }
        }
        var linked: [String] = []
        for part in newParts where part.id.map(oldIDs.contains) != true {
            for entry in part.entries where before.removeValue(forKey: entry.name) != entry.kind { linked.append(entry.name) }
        }
        return (Array(before.keys), linked)
    }
}

extension TreeManifest {
    /// Its entries in runs: its parts with their ids, or all its entries as one run without one.
    fileprivate var runs: [(id: String?, entries: [Entry])] {
        parts.isEmpty ? [(nil, listed)] : parts.map { ($0.id, $0.listed) }
    }
}
