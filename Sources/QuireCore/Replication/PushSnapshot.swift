/// What a push makes every replica hold: the origin's versions, the trees they reach, and the
/// version `current` names, read once at the start. Versions and trees never change, so the
/// snapshot stays true while it is copied; a publish or gc on the origin meanwhile is caught
/// up by the next push.
struct PushSnapshot {
    let current: VersionID
    let versions: [VersionID]
    let trees: Set<String>
    /// The parts of the trees listed in parts (`trees/<part>.json`, no folder).
    let parts: Set<String>

    /// Read without the publish lock (a push must not delay saves): a gc that removes a version
    /// while it is read makes the read start over.
    static func take(_ store: SiteStore) throws(StoreError) -> PushSnapshot {
        var attempt = 0
        while true {
            attempt += 1
            do {
                return try read(store)
            } catch {
                if attempt == 3 { throw error }
            }
        }
    }

    private static func read(_ store: SiteStore) throws(StoreError) -> PushSnapshot {
        guard let current = try store.reader.currentVersion() else {
            throw StoreError("site '\(store.site)' has no current version to push: run quire build first")
        }
        let versions = try store.reader.allVersions()
        guard versions.contains(current) else { throw StoreError("'\(store.layout.current)' names \(current), which is not in versions/") }
        var trees: Set<String> = []
        var parts: Set<String> = []
        for version in versions {
            for entry in try store.reader.manifest(of: version).folders {
                try mark(entry.folder.tree, in: store, reachable: &trees, parts: &parts)
            }
        }
        return PushSnapshot(current: current, versions: versions, trees: trees, parts: parts)
    }

    private static func mark(_ id: String, in store: SiteStore, reachable: inout Set<String>, parts: inout Set<String>) throws(StoreError) {
        guard reachable.insert(id).inserted else { return }
        let tree = try store.treeChildren.of(id, layout: store.layout)
        parts.formUnion(tree.parts)
        for child in tree.subtrees { try mark(child, in: store, reachable: &reachable, parts: &parts) }
    }
}
