/// The stamps of every entry under a root, to find what changed between two walks.
struct TreeSnapshot: Sendable, Equatable {
    var entries: [String: FileStamp]

    static func take(of root: String) -> TreeSnapshot {
        TreeSnapshot(entries: DirectoryWalker.walk(root).entries)
    }

    /// Paths that were added, removed or whose stamp differs in `newer`.
    func changedPaths(to newer: TreeSnapshot) -> Set<String> {
        var changed = Set<String>()
        for (path, stamp) in newer.entries where entries[path] != stamp {
            changed.insert(path)
        }
        for path in entries.keys where newer.entries[path] == nil {
            changed.insert(path)
        }
        return changed
    }
}
