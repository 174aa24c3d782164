import Glibc

/// Writes the planned trees that are not stored yet into a staging folder: one folder per tree
/// (files written or hard-linked, subfolders as `../<id>` links) plus its manifest beside it.
struct TreeWriter {
    let trees: TreeReader
    /// `staging/<pid>-<random>/trees`.
    let stagingTrees: String

    /// The ids written, in an order where a tree comes after its subtrees.
    private(set) var written: [String] = []
    private var seen: Set<String> = []

    init(trees: TreeReader, stagingTrees: String) {
        self.trees = trees
        self.stagingTrees = stagingTrees
    }

    mutating func write(_ tree: PlannedTree) throws(StoreError) {
        // A stored tree is complete with all its subtrees: equal id, equal contents, nothing to do.
        guard !seen.contains(tree.id), !trees.isStored(tree.id) else { return }
        seen.insert(tree.id)
        for subtree in tree.subtrees.values { try write(subtree) }

        let folder = stagingTrees + "/" + tree.id
        CrashPoint.staging.reach()
        try FileSystem.makeDirectory(folder)
        for (name, source) in tree.files {
            switch source {
            case .bytes(let bytes): try FileSystem.createFile(folder + "/" + name, bytes)
            case .staged(let blob): try FileSystem.rename(blob, to: folder + "/" + name)
            case .storedFile(let stored):
                do {
                    try FileSystem.hardLink(stored, at: folder + "/" + name)
                } catch where error.errorNumber == EMLINK {
                    // The file system's link limit for one inode: store another copy instead.
                    try FileSystem.createFile(folder + "/" + name, FileSystem.readFile(stored))
                }
            }
        }
        for (name, subtree) in tree.subtrees {
            try FileSystem.symbolicLink(SiteLayout.subtreeTarget(subtree.id), at: folder + "/" + name)
        }
        try FileSystem.createFile(folder + ".json", tree.manifest.bytes)
        written.append(tree.id)
    }

    /// Moves the staged trees into `trees/`: the folder first, the manifest last, each only when
    /// missing (an equal tree stored meanwhile, or left by a crash after the folder, is kept).
    func moveIntoPlace() throws(StoreError) {
        for id in written {
            let staged = stagingTrees + "/" + id
            CrashPoint.move.reach()
            if !FileSystem.exists(trees.layout.tree(id)) { try FileSystem.rename(staged, to: trees.layout.tree(id)) }
            if !FileSystem.exists(trees.layout.treeManifest(id)) { try FileSystem.rename(staged + ".json", to: trees.layout.treeManifest(id)) }
        }
    }
}
