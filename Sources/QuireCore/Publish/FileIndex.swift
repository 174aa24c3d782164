/// Every file of one version by path, with where its bytes live (`trees/<id>/<name>`), built by
/// walking the version's tree manifests.
struct FileIndex: Sendable {
    struct Location: Sendable {
        var file: PublishedFile
        /// Absolute path of the stored file, for hard links and re-hashing.
        var storedPath: String
    }

    var locations: [String: Location] = [:]
    /// The tree of each folder path (`en`, `en/guides`): lets a publish keep an unchanged folder's
    /// tree without hashing its manifest again.
    var folders: [String: (id: String, manifest: TreeManifest)] = [:]
    /// Files and bytes in each folder and below (a delta publish keeps these for unchanged folders).
    var totals: [String: (files: Int, bytes: Int)] = [:]
    /// One stored copy per content hash: a new file with these bytes is hard-linked, not written.
    var bySHA256: [String: String] = [:]

    var files: [String: PublishedFile] { locations.mapValues(\.file) }

    init() {}

    init(manifest: VersionManifest, trees: TreeReader) throws(StoreError) {
        for entry in manifest.folders {
            try add(tree: entry.folder.tree, prefix: entry.name, trees: trees, depth: 0)
        }
    }

    @discardableResult
    private mutating func add(tree id: String, prefix: String, trees: TreeReader, depth: Int) throws(StoreError) -> (files: Int, bytes: Int) {
        guard depth < 64 else { throw StoreError("the tree '\(id)' under '\(prefix)' nests deeper than 64 folders; is it a cycle?") }
        let tree = try trees.manifest(id)
        record(folder: prefix, tree: id, manifest: tree, layout: trees.layout)
        var total = (files: 0, bytes: 0)
        for entry in tree.entries {
            switch entry.kind {
            case .file(let file):
                total = (total.files + 1, total.bytes + file.size)
            case .tree(let child):
                let below = try add(tree: child, prefix: prefix + "/" + entry.name, trees: trees, depth: depth + 1)
                total = (total.files + below.files, total.bytes + below.bytes)
            }
        }
        totals[prefix] = total
        return total
    }

    /// Files one folder's tree holds directly, by path, with where they are stored. The newest
    /// copy of some bytes is the one a later publish links: it stays while this version does.
    mutating func record(folder prefix: String, tree id: String, manifest: TreeManifest, layout: SiteLayout) {
        folders[prefix] = (id, manifest)
        for entry in manifest.entries {
            guard case .file(let file) = entry.kind else { continue }
            let stored = layout.tree(id) + "/" + entry.name
            locations[prefix + "/" + entry.name] = Location(file: file, storedPath: stored)
            bySHA256[file.sha256] = stored
        }
    }
}

/// Reads tree manifests, each once per reader: shared trees are reached from many versions.
final class TreeReader {
    let layout: SiteLayout
    private var cache: [String: TreeManifest] = [:]

    init(layout: SiteLayout) { self.layout = layout }

    func manifest(_ id: String) throws(StoreError) -> TreeManifest {
        if let cached = cache[id] { return cached }
        let path = layout.treeManifest(id)
        let manifest = try TreeManifest(parsing: FileSystem.readFile(path), path: path)
        cache[id] = manifest
        return manifest
    }

    /// A tree is stored once its manifest is: the folder is moved in first, the manifest last.
    func isStored(_ id: String) -> Bool {
        FileSystem.exists(layout.treeManifest(id)) && FileSystem.exists(layout.tree(id))
    }
}

extension FileIndex {
    /// The index of a version just written, without reading its manifests back.
    init(planned: [(name: String, tree: PlannedTree)], layout: SiteLayout) {
        self.init()
        for entry in planned { add(planned: entry.tree, prefix: entry.name, layout: layout) }
    }

    private mutating func add(planned tree: PlannedTree, prefix: String, layout: SiteLayout) {
        record(folder: prefix, tree: tree.id, manifest: tree.manifest, layout: layout)
        totals[prefix] = (tree.fileCount, tree.byteCount)
        for (name, subtree) in tree.subtrees { add(planned: subtree, prefix: prefix + "/" + name, layout: layout) }
    }
}
