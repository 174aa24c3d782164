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
        folders[prefix] = (id, tree)
        var total = (files: 0, bytes: 0)
        for entry in tree.entries {
            let path = prefix + "/" + entry.name
            switch entry.kind {
            case .file(let file):
                let stored = trees.layout.tree(id) + "/" + entry.name
                locations[path] = Location(file: file, storedPath: stored)
                if bySHA256[file.sha256] == nil { bySHA256[file.sha256] = stored }
                total = (total.files + 1, total.bytes + file.size)
            case .tree(let child):
                let below = try add(tree: child, prefix: path, trees: trees, depth: depth + 1)
                total = (total.files + below.files, total.bytes + below.bytes)
            }
        }
        totals[prefix] = total
        return total
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
        folders[prefix] = (tree.id, tree.manifest)
        totals[prefix] = (tree.fileCount, tree.byteCount)
        for entry in tree.manifest.entries {
            let path = prefix + "/" + entry.name
            switch entry.kind {
            case .file(let file):
                let stored = layout.tree(tree.id) + "/" + entry.name
                locations[path] = Location(file: file, storedPath: stored)
                if bySHA256[file.sha256] == nil { bySHA256[file.sha256] = stored }
            case .tree:
                if let subtree = tree.subtrees[entry.name] { add(planned: subtree, prefix: path, layout: layout) }
            }
        }
    }
}
