import Synchronization

/// Tree folders that retention (`keep:`) removed, kept to become spares (`SpareFolders`) of
/// their folder's newer trees.
///
/// A new tree of a folder of 10,000 entries needs 10,000 links, and removing an old one as many
/// unlinks. A tree of the same folder a few versions older differs from the newest one only by
/// the entries those versions changed: made a copy of the newest tree (`mirror`), it becomes a
/// whole spare for the cost of two listings and those few entries. So saves back to back into one
/// big folder find their spares ready, and retention unlinks nothing of such a folder.
///
/// A removed tree is matched by the folder path it had when its spare was wanted (`remember`):
/// only a tree of that path is a near copy. Whatever the recycled folder holds, `mirror` leaves
/// exactly the entries of the tree it copies, as hard links of the same files (by inode number).
final class RecycledFolders: Sendable {
    /// Smaller folders are linked anew about as fast as they are listed: none is kept.
    static let fewestEntries = TreeManifest.partedFrom
    static let prefix = "recycled-"

    /// The spares' folder, a staging lease: what the pool holds goes with the lease.
    private let folder: String

    private struct State {
        /// The folder path of each tree of `fewestEntries` or more that a spare was wanted for.
        var paths: [String: String] = [:]
        /// Per folder path, the name (in `folder`) of the one recycled folder kept for it.
        var pool: [String: String] = [:]
        var named = 0
    }

    private let state = Mutex(State())

    init(in folder: String) { self.folder = folder }

    /// Notes the folder path of tree `id`, whose spare is wanted.
    func remember(_ id: String, path: String) {
        state.withLock { state in
            // Without `keep:` no tree is ever offered: the oldest notes go rather than pile up.
            if state.paths.count >= 4096 { state.paths.removeAll(keepingCapacity: true) }
            state.paths[id] = path
        }
    }

    /// Takes the folder of tree `id`, which retention removed from `trees/` and put at
    /// `location`, into the pool: when its path is known and the pool holds none for it yet.
    /// Returns whether it was taken (moved away from `location`).
    func offer(_ id: String, at location: String) -> Bool {
        let slot = state.withLock { state -> (path: String, name: String)? in
            guard let path = state.paths.removeValue(forKey: id), state.pool[path] == nil else { return nil }
            state.named += 1
            let name = Self.prefix + String(state.named)
            state.pool[path] = name
            return (path, name)
        }
        guard let slot else { return false }
        if (try? FileSystem.rename(location, to: folder + "/" + slot.name)) != nil { return true }
        state.withLock { _ = $0.pool.removeValue(forKey: slot.path) }
        return false
    }

    /// The recycled folder kept for the folder at `path`, out of the pool; nil when there is none.
    func take(for path: String) -> String? {
        state.withLock { $0.pool.removeValue(forKey: path) }.map { folder + "/" + $0 }
    }

    /// Whether `name`, in the spares' folder, is a recycled folder.
    static func holds(_ name: String) -> Bool { name.hasPrefix(prefix) }

    /// Makes `target` hold exactly `source`'s entries, as hard links of the same files (or of the
    /// same subfolder links): an entry whose inode differs is linked again, one `source` lacks is
    /// removed. Returns how many entries it changed.
    @discardableResult
    static func mirror(_ source: DirectoryHandle, into target: DirectoryHandle) throws(StoreError) -> Int {
        var held = try target.inodes()
        var changed = 0
        for (name, inode) in try source.inodes() {
            if let old = held.removeValue(forKey: name) {
                if old == inode { continue }
                try target.remove(name)
            }
            try target.hardLink(from: source, name, as: name)
            changed += 1
        }
        for name in held.keys { try target.remove(name) }
        return changed + held.count
    }
}
