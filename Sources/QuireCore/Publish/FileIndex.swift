/// Every file of one version by path, with where its bytes live (`trees/<id>/<name>`), built by
/// walking the version's tree manifests.
///
/// Files are found through their folder's manifest, not kept one by one: a delta publish that
/// gives 600 folders a new tree then records 600 folders, not the 60,000 files they hold (a
/// burst spread over a 10,000-page site re-recorded every file of every folder it touched).
struct FileIndex: Sendable {
    struct Location: Sendable {
        var file: PublishedFile
        /// Absolute path of the stored file, for hard links and re-hashing.
        var storedPath: String
    }

    /// The tree of each folder path (`en`, `en/guides`): lets a publish keep an unchanged folder's
    /// tree without hashing its manifest again, and finds the files it holds.
    var folders: [String: (id: String, manifest: TreeManifest)] = [:]
    /// Files and bytes in each folder and below (a delta publish keeps these for unchanged folders).
    var totals: [String: (files: Int, bytes: Int)] = [:]
    /// A path that held these bytes when it was recorded, as its folder and its name there: a new
    /// file with the same bytes is hard-linked, not written. Checked on lookup, as the path may
    /// hold other bytes since. Keyed by 64 bits of the SHA-256 (`leadingBits`), not all 256 in
    /// their 40-byte `Digest`: the table has a slot for each of the version's 300,000 files at
    /// 100,000 pages, and two files whose first bits agree only cost one of them a link.
    private var pathsBySHA256: [UInt64: (folder: String, name: String)] = [:]
    /// `trees/` of the layout the folders were recorded with.
    private var treesRoot = ""

    init() {}

    /// The file at `path` and where it is stored.
    func location(of path: String) -> Location? {
        guard let slash = path.utf8.lastIndex(of: UInt8(ascii: "/")), let folder = folders[String(path[..<slash])] else { return nil }
        return location(named: String(path[path.index(after: slash)...]), in: folder)
    }

    /// The file `name` of a folder whose tree the caller already holds (one of `folders`).
    func location(named name: String, in folder: (id: String, manifest: TreeManifest)) -> Location? {
        guard case .file(let file)? = folder.manifest.entry(named: name)?.kind else { return nil }
        return Location(file: file, storedPath: storedFolder(folder.id) + "/" + name)
    }

    /// Where the tree `id` of one of `folders` is stored (`trees/<id>`).
    func storedFolder(_ id: String) -> String { treesRoot + "/" + id }

    /// A stored file of this version with these bytes, to link instead of writing them again.
    func storedFile(sha256: Digest) -> String? {
        guard let path = pathsBySHA256[sha256.leadingBits], let folder = folders[path.folder],
            let location = location(named: path.name, in: folder), location.file.sha256 == sha256
        else { return nil }
        return location.storedPath
    }

    /// Every file of the version, by path.
    var files: [String: PublishedFile] {
        var files: [String: PublishedFile] = [:]
        forEachFile { path, _, _, file in files[path] = file }
        return files
    }

    /// Every file of the version with where it is stored, in no particular order.
    var locations: [(path: String, location: Location)] {
        var locations: [(path: String, location: Location)] = []
        forEachFile { path, folderID, name, file in
            locations.append((path, Location(file: file, storedPath: treesRoot + "/" + folderID + "/" + name)))
        }
        return locations
    }

    /// Each file of the version: its path, its folder's tree id, its name there. (`files` of a
    /// full build's 60,000 makes no stored paths it does not need.)
    private func forEachFile(_ body: (_ path: String, _ folderID: String, _ name: String, _ file: PublishedFile) -> Void) {
        for (prefix, folder) in folders {
            folder.manifest.forEachEntry { entry in
                if case .file(let file) = entry.kind { body(prefix + "/" + entry.name, folder.id, entry.name, file) }
            }
        }
    }

    init(manifest: VersionManifest, trees: TreeReader) throws(StoreError) {
        for entry in manifest.folders {
            try add(tree: entry.folder.tree, prefix: entry.name, trees: trees, depth: 0)
        }
    }

    @discardableResult
    private mutating func add(tree id: String, prefix: String, trees: TreeReader, depth: Int) throws(StoreError) -> (files: Int, bytes: Int)
    {
        guard depth < 64 else { throw StoreError("the tree '\(id)' under '\(prefix)' nests deeper than 64 folders; is it a cycle?") }
        let tree = try trees.manifest(id)
        // Read whole, its entries are new to the index: room for them at once, not by doubling.
        pathsBySHA256.reserveCapacity(pathsBySHA256.count + tree.entryCount)
        record(folder: prefix, tree: id, manifest: tree, layout: trees.layout)
        var total = (files: 0, bytes: 0)
        try tree.forEachEntry { (entry) throws(StoreError) in
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

    /// One folder's tree, and the bytes of the files `named` (all when nil) for linking later.
    /// The newest path of some bytes is the one a later publish links: it stays while this
    /// version does.
    mutating func record(folder prefix: String, tree id: String, manifest: TreeManifest, layout: SiteLayout, named: [String]? = nil) {
        folders[prefix] = (id, manifest.stored)
        treesRoot = layout.trees
        if let named {
            for name in named { if case .file(let file)? = manifest.entry(named: name)?.kind { remember(file, named: name, in: prefix) } }
            return
        }
        rememberLinkable(in: manifest, folder: prefix)
    }

    /// Each linkable file of a folder's manifest, by its bytes (`forEachLinkable`).
    private mutating func rememberLinkable(in manifest: TreeManifest, folder prefix: String) {
        Self.forEachLinkable(in: manifest) { name, file in remember(file, named: name, in: prefix) }
    }

    private mutating func remember(_ file: PublishedFile, named name: String, in folder: String) {
        pathsBySHA256[file.sha256.leadingBits] = (folder, name)
    }

    /// The files of a folder worth finding by their bytes: of a run of files with the same bytes
    /// (a folder's previews), only the last, as the others need not be looked up at all.
    private static func forEachLinkable(in manifest: TreeManifest, _ body: (_ name: String, _ file: PublishedFile) -> Void) {
        var pending: (name: String, file: PublishedFile)?
        manifest.forEachEntry { entry in
            guard case .file(let file) = entry.kind else { return }
            if let previous = pending, previous.file.sha256 != file.sha256 { body(previous.name, previous.file) }
            pending = (entry.name, file)
        }
        if let pending { body(pending.name, pending.file) }
    }
}

// MARK: The restart file

extension FileIndex {
    /// Each folder's tree as the index holds it, and the totals; the table of files by their
    /// bytes is made again from the trees.
    func write(to writer: inout BinaryWriter) {
        writer.array(folders) { writer, folder in
            writer.string(folder.key)
            writer.string(folder.value.id)
            folder.value.manifest.write(to: &writer)
        }
        writer.array(totals) { writer, total in
            writer.string(total.key)
            writer.int(total.value.files)
            writer.int(total.value.bytes)
        }
    }

    /// The index `write(to:)` wrote, its trees stored in `layout`.
    init(reading reader: inout BinaryReader, layout: SiteLayout) throws(BinaryReader.Malformed) {
        treesRoot = layout.trees
        let count = try reader.count()
        folders.reserveCapacity(count)
        for _ in 0..<count {
            let (prefix, id, manifest) = (try reader.string(), try reader.string(), try TreeManifest(reading: &reader))
            folders[prefix] = (id, manifest)
        }
        pathsBySHA256.reserveCapacity(folders.values.reduce(0) { $0 + $1.manifest.entryCount })
        for (prefix, folder) in folders {
            rememberLinkable(in: folder.manifest, folder: prefix)
        }
        for _ in 0..<(try reader.count()) { totals[try reader.string()] = (try reader.int(), try reader.int()) }
        guard reader.isAtEnd else { throw BinaryReader.Malformed() }
    }
}

/// Reads tree manifests, each once per reader: shared trees are reached from many versions.
final class TreeReader {
    let layout: SiteLayout
    private var cache: [String: TreeManifest] = [:]

    init(layout: SiteLayout) { self.layout = layout }

    func manifest(_ id: String) throws(StoreError) -> TreeManifest {
        if let cached = cache[id] { return cached }
        let manifest = try TreeManifest.read(id, layout: layout)
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
        // Sized once (grown step by step, it rehashed them a dozen times), for the files it will
        // hold: room for every file doubled it where a folder's previews share their bytes.
        var linkable = 0
        func count(_ tree: PlannedTree) {
            Self.forEachLinkable(in: tree.manifest) { _, _ in linkable += 1 }
            for subtree in tree.subtrees.values { count(subtree) }
        }
        for entry in planned { count(entry.tree) }
        pathsBySHA256.reserveCapacity(linkable)
        for entry in planned { add(planned: entry.tree, prefix: entry.name, layout: layout) }
    }

    private mutating func add(planned tree: PlannedTree, prefix: String, layout: SiteLayout) {
        record(folder: prefix, tree: tree.id, manifest: tree.manifest, layout: layout)
        totals[prefix] = (tree.fileCount, tree.byteCount)
        for (name, subtree) in tree.subtrees { add(planned: subtree, prefix: prefix + "/" + name, layout: layout) }
    }
}

/// A SHA-256 in hexadecimal as a dictionary key, hashed by its first 16 digits (64 bits of the
/// digest) and its length: digests are spread evenly already, and hashing all 64 digits was most
/// of recording a file. Equal keys still compare whole.
