import Dispatch

/// A folder of the new version, hashed but not yet written.
struct PlannedTree: Sendable {
    enum FileSource: Sendable {
        case bytes([UInt8])
        /// Hard-link this stored file: the same bytes are already in an immutable tree.
        case storedFile(String)
        /// Move this blob, written while rendering, out of the staging area.
        case staged(StagedBlob)
    }

    let manifest: TreeManifest
    let id: String
    /// The files to write; with `linkedFrom`, only those that changed.
    let files: PlannedFiles
    /// The subfolders to link; with `linkedFrom`, only those that changed.
    let subtrees: [String: PlannedTree]
    /// Files and bytes in this folder and below.
    let fileCount: Int
    let byteCount: Int
    /// Subfolder links that an earlier tree already holds (name -> that stored link): hard-linked
    /// instead of created anew, as a link inode is costlier to make than a name for one.
    var storedSubtreeLinks: [String: String] = [:]
    /// A stored tree folder (`trees/<id>`) this one is an edit of: every entry not named in
    /// `files` or `subtrees` is a hard link of the same name there (a delta publish).
    var linkedFrom: String? = nil
    /// With `linkedFrom`: that tree's manifest (a spare of it holds its entries in this order),
    /// and the names of the entries this one drops.
    var linkedManifest: TreeManifest? = nil
    var droppedNames: [String] = []
    /// A tree of the newest version (reused whole, or a stub for an unchanged folder): stored with
    /// all its subtrees, which that version keeps from retention. Nothing to write, nothing to look up.
    var isStored = false

    var linkedEntryCount: Int { linkedManifest?.entryCount ?? 0 }
}

/// A planned tree's files to write, sorted by name (UTF-8 byte order) and looked up by halving.
/// A list, not a dictionary: a cold build plans 600,000 files, and a dictionary's table for a
/// folder's files took two to three times their room while the whole version was held.
struct PlannedFiles: Sendable, Sequence {
    typealias Element = (name: String, source: PlannedTree.FileSource)

    private let sorted: [Element]

    /// `sorted`: in name order, each name once.
    init(sorted: [Element]) {
        assert(zip(sorted, sorted.dropFirst()).allSatisfy { $0.name.utf8Precedes($1.name) }, "planned files out of order")
        self.sorted = sorted
    }

    init(_ files: [String: PlannedTree.FileSource]) {
        sorted = files.map { (name: $0.key, source: $0.value) }.sorted { $0.name.utf8Precedes($1.name) }
    }

    static let none = PlannedFiles(sorted: [])

    var names: [String] { sorted.map(\.name) }

    func makeIterator() -> IndexingIterator<[Element]> { sorted.makeIterator() }

    subscript(name: String) -> PlannedTree.FileSource? {
        var (low, high) = (0, sorted.count)
        while low < high {
            let middle = (low + high) / 2
            if sorted[middle].name.utf8Precedes(name) { low = middle + 1 } else { high = middle }
        }
        return low < sorted.count && sorted[low].name == name ? sorted[low].source : nil
    }
}

/// Turns the flat file list of a `PublishRequest` into content-addressed trees, bottom-up,
/// reusing what the newest version already stores.
struct TreePlanner {
    static let reservedTopLevelNames: Set<String> = ["manifest.json", "build.json"]

    /// A folder being assembled from paths. Its files are gathered in a list, sorted by name
    /// once complete (`sort`): a dictionary of a folder's 10,000 files grew and rehashed a
    /// dozen times, and the manifest sorted them anyway.
    private struct Folder {
        var files: [(name: String, file: OutputFile)] = []
        var folders: [String: Folder] = [:]

        /// `start`: the offset in bytes of the part of the file's path below this folder
        /// (`guides/a.json`).
        mutating func insert(_ file: OutputFile, from start: Int) {
            // By bytes: '/' is ASCII, so every piece stays valid UTF-8, and no array of
            // components is made for each of a cold build's 60,000 paths.
            let path = file.path
            guard let slash = path.utf8Offset(of: UInt8(ascii: "/"), from: start) else {
                files.append((path.utf8Slice(start..<path.utf8.count), file))
                return
            }
            folders[path.utf8Slice(start..<slash), default: Folder()].insert(file, from: slash + 1)
        }

        /// Sorts `files` by name (UTF-8 byte order), in place: a sorted copy retained every
        /// name and file, and the list it was made from released them. Throws if a name is listed
        /// twice, or as both a file and one of `subfolders`.
        static func sort(_ files: inout [(name: String, file: OutputFile)], besides subfolders: [String: PlannedTree]) throws(StoreError) {
            // Sorted already but for a few (files come page by page): the stable sort finds the runs.
            files.sort { $0.name.utf8Precedes($1.name) }
            for index in files.indices {
                let name = files[index].name
                if (index > 0 && files[index - 1].name == name) || (!subfolders.isEmpty && subfolders[name] != nil) {
                    throw StoreError("the output lists '\(files[index].file.path)' twice, or as both a file and a folder")
                }
            }
        }
    }

    let previous: FileIndex

    /// The top-level folders, by name. Each is assembled and planned on its own thread: a
    /// cold build plans 60,000 files (a folder per locale, and the previews as many as those).
    func plan(_ files: [OutputFile]) throws(StoreError) -> [(name: String, tree: PlannedTree)] {
        // The largest first, so that the last to start is a short one.
        let groups = Self.groupByTopLevel(files).sorted { $0.members.count > $1.members.count }
        let results = ResultSlots<Result<PlannedTree, StoreError>>(count: groups.count)
        DispatchQueue.concurrentPerform(iterations: groups.count) { index in
            results.set(
                index,
                Result { () throws(StoreError) in
                    var folder = Folder()
                    for position in groups[index].members {
                        let file = files[position]
                        folder.insert(file, from: try Self.check(file.path) + 1)
                    }
                    return try plan(consume folder, path: groups[index].name)
                })
        }
        var planned: [(name: String, tree: PlannedTree)] = []
        for (index, result) in results.values.enumerated() {
            guard let result else { continue }
            planned.append((groups[index].name, try result.get()))
        }
        return planned.sorted { $0.name.utf8Precedes($1.name) }
    }

    /// Throws unless `path` is one a version may hold: inside a top-level folder that is not one
    /// of the version's own files, without empty, `.` or `..` segments. Returns the length in
    /// bytes of the top-level folder's name.
    @discardableResult
    static func check(_ path: String) throws(StoreError) -> Int {
        // A native string lends its bytes as they are; only another kind is copied.
        var bytes = path
        let walked = bytes.withUTF8(walk)
        guard let topLevel = walked.firstSlash else {
            throw StoreError("cannot publish '\(path)': files of a version must be inside a folder (a locale, assets/ or preview/)")
        }
        if !walked.segmentsAllowed {
            throw StoreError("cannot publish '\(path)': empty, '.' and '..' path segments are not allowed")
        }
        if walked.isReserved {
            throw StoreError("cannot publish '\(path)': '\(path.prefix { $0 != "/" })' is the version's own file")
        }
        return topLevel
    }

    /// `check`'s look at a path, in one walk over its bytes (a cold build checks 60,000).
    private static func walk(_ bytes: UnsafeBufferPointer<UInt8>) -> (firstSlash: Int?, segmentsAllowed: Bool, isReserved: Bool) {
        let (slash, dot) = (UInt8(ascii: "/"), UInt8(ascii: "."))
        var firstSlash: Int?
        var segmentsAllowed = true
        var segmentStart = 0
        // The end of the path ends its last segment, as a slash would.
        for index in 0...bytes.count {
            let byte = index < bytes.count ? bytes[index] : slash
            if byte == 0 { segmentsAllowed = false }
            guard byte == slash else { continue }
            let length = index - segmentStart
            if length == 0 || (length <= 2 && bytes[segmentStart] == dot && bytes[index - 1] == dot) { segmentsAllowed = false }
            if firstSlash == nil, index < bytes.count { firstSlash = index }
            segmentStart = index + 1
        }
        let isReserved = firstSlash.map { length in
            reservedTopLevelNames.contains { $0.utf8.count == length && $0.utf8.elementsEqual(bytes[..<length]) }
        }
        return (firstSlash, segmentsAllowed, isReserved ?? false)
    }

    static func components(of path: String) throws(StoreError) -> [String] {
        try check(path)
        // Split by bytes ('/' is ASCII, so every piece stays valid UTF-8): splitting the String
        // walks grapheme clusters.
        return path.utf8.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false).map { String(Substring($0)) }
    }

    private func plan(_ folder: consuming Folder, path: String) throws(StoreError) -> PlannedTree {
        var children: [String: PlannedTree] = [:]
        // Taken out, so that each subfolder's list of files is its own to sort.
        while let (name, child) = folder.folders.popFirst() { children[name] = try plan(child, path: path + "/" + name) }
        var files = folder.files
        folder.files = []
        try Folder.sort(&files, besides: children)
        if let unchanged = reuse(files, path: path, subtrees: children) { return unchanged }
        return try plan(files, path: path, subtrees: children)
    }

    /// The newest version's tree for this folder when nothing in it changed: every file carried
    /// with the same inputs and metadata, the same subtrees, nothing added or removed. This keeps
    /// a publish from re-hashing every folder of a large site.
    private func reuse(_ files: [(name: String, file: OutputFile)], path: String, subtrees: [String: PlannedTree]) -> PlannedTree? {
        guard let old = previous.folders[path], old.manifest.entryCount == files.count + subtrees.count else { return nil }
        var sources: [PlannedFiles.Element] = []
        sources.reserveCapacity(files.count)
        var fileCount = 0
        var byteCount = 0
        for (name, file) in files {
            // Found in `old` itself, so the stored file is in this very tree.
            guard case .carried = file.content, let location = previous.location(named: name, in: old),
                location.file.inputDigest == file.inputDigest, location.file.metadata == file.metadata
            else { return nil }
            sources.append((name, .storedFile(location.storedPath)))
            fileCount += 1
            byteCount += location.file.size
        }
        for (name, subtree) in subtrees {
            guard previous.folders[path + "/" + name]?.id == subtree.id else { return nil }
            fileCount += subtree.fileCount
            byteCount += subtree.byteCount
        }
        return PlannedTree(
            manifest: old.manifest, id: old.id, files: PlannedFiles(sorted: sources), subtrees: subtrees, fileCount: fileCount,
            byteCount: byteCount, isStored: true)
    }

    /// `files`: sorted by name.
    private func plan(
        _ files: [(name: String, file: OutputFile)], path: String, subtrees planned: [String: PlannedTree]
    ) throws(StoreError) -> PlannedTree {
        // A folder of files that the newest version holds too is planned as an edit of its tree,
        // as a delta publish plans one: the entries it keeps are linked from that tree by name or
        // come with a spare copy of it (`SpareFolders`), so a full build that changes a few files
        // of a folder of 100,000 (a restarted watcher's first build) does not link 100,000 anew.
        let base = planned.isEmpty ? previous.folders[path] : nil
        let baseFolder = base.map { previous.storedFolder($0.id) }
        var digests = SharedBufferDigests()
        var entries: [TreeManifest.Entry] = []
        entries.reserveCapacity(files.count + planned.count)
        var sources: [PlannedFiles.Element] = []
        sources.reserveCapacity(files.count)
        var subtrees: [String: PlannedTree] = [:]
        var fileCount = 0
        var byteCount = 0
        // With a base: what differs from it, found in one walk of both sorted lists.
        var changes: [String: TreeManifest.Kind?] = [:]
        var droppedNames: [String] = []
        let baseEntries = base?.manifest.entries ?? []
        var baseIndex = 0
        var kinds = TreeManifest.FileKinds()
        for (name, file) in files {
            let published: PublishedFile
            let source: PlannedTree.FileSource
            switch file.content {
            case .carried:
                guard let old = previous.location(of: file.path) else {
                    throw StoreError("cannot carry '\(file.path)' over: the newest version has no such file")
                }
                published = PublishedFile(
                    sha256: old.file.sha256, size: old.file.size, inputDigest: file.inputDigest, metadata: file.metadata)
                source = .storedFile(old.storedPath)
            case .bytes(let bytes):
                let sha256 = digests.sha256(of: bytes)
                published = PublishedFile(sha256: sha256, size: bytes.count, inputDigest: file.inputDigest, metadata: file.metadata)
                source = previous.storedFile(sha256: sha256).map { .storedFile($0) } ?? .bytes(bytes)
            case .staged(let blob):
                published = PublishedFile(sha256: blob.sha256, size: blob.size, inputDigest: file.inputDigest, metadata: file.metadata)
                source = previous.storedFile(sha256: blob.sha256).map { .storedFile($0) } ?? .staged(blob)
            }
            // What the base folder holds under this name already comes with the rest of it.
            if !Self.isEntry(source, named: name, in: baseFolder) { sources.append((name, source)) }
            let kind = kinds.kind(of: published)
            if base != nil {
                while baseIndex < baseEntries.count, baseEntries[baseIndex].name.utf8Precedes(name) {
                    droppedNames.append(baseEntries[baseIndex].name)
                    baseIndex += 1
                }
                let listed = baseIndex < baseEntries.count && baseEntries[baseIndex].name == name
                if !listed || baseEntries[baseIndex].kind != kind { changes[name] = kind }
                if listed { baseIndex += 1 }
            }
            entries.append(.init(name: name, kind: kind))
            fileCount += 1
            byteCount += published.size
        }
        for (name, subtree) in planned {
            subtrees[name] = subtree
            entries.append(.init(name: name, kind: .tree(subtree.id)))
            fileCount += subtree.fileCount
            byteCount += subtree.byteCount
        }
        // The files come sorted: only subfolders need a place among them, and sorting a copy
        // (`TreeManifest(entries:)`) retained and released every entry.
        if !planned.isEmpty { entries.sort { $0.name.utf8Precedes($1.name) } }
        if base != nil {
            droppedNames += baseEntries[baseIndex...].map(\.name)
            for name in droppedNames { changes[name] = .some(nil) }
        }
        // An edit of a few entries re-encodes the parts holding them (`updating`), not 100,000
        // entries; one of most entries is encoded whole.
        let manifest =
            if let base, changes.count * 2 <= base.manifest.entryCount {
                base.manifest.updating(changes).unencoded
            } else {
                TreeManifest.unencoded(canonical: consume entries)
            }
        // The same bytes under the same names (rendered again, not carried): the stored tree.
        if let stored = previous.folders[path], manifest.id == stored.id {
            return PlannedTree(
                manifest: stored.manifest, id: stored.id, files: PlannedFiles(sorted: sources), subtrees: subtrees, fileCount: fileCount,
                byteCount: byteCount, isStored: true)
        }
        return PlannedTree(
            manifest: manifest, id: manifest.id, files: PlannedFiles(sorted: sources), subtrees: subtrees, fileCount: fileCount,
            byteCount: byteCount, linkedFrom: baseFolder, linkedManifest: base?.manifest, droppedNames: droppedNames)
    }

    /// Whether `source` links the entry `name` of the tree folder `folder`, compared by bytes (a
    /// folder of 100,000 files asks it of each).
    private static func isEntry(_ source: PlannedTree.FileSource, named name: String, in folder: String?) -> Bool {
        guard let folder, case .storedFile(let stored) = source else { return false }
        let folderLength = folder.utf8.count
        return stored.utf8FolderLength(endingWith: name) == folderLength && stored.utf8Matches(folder, count: folderLength, at: 0)
    }
}

/// SHA-256 of byte arrays, hashed once per buffer: a folder's previews share a few buffers
/// (`PreviewShells`, one per render thread), 10,000 files of a folder that would each be hashed
/// again. An array's storage address identifies its bytes while the array lives: the files
/// being planned hold every buffer until the folder is planned, and none is mutated meanwhile.
private struct SharedBufferDigests {
    private struct Buffer: Hashable {
        var address: UnsafeRawPointer
        var count: Int
    }

    private var known: [Buffer: Digest] = [:]
    /// Enough for every thread's shells; buffers of their own (a page's bytes) are not kept.
    private static let limit = 1024

    mutating func sha256(of bytes: [UInt8]) -> Digest {
        guard let address = bytes.withUnsafeBytes({ $0.baseAddress }) else { return SHA256.digest(bytes) }
        let buffer = Buffer(address: address, count: bytes.count)
        if let sha256 = known[buffer] { return sha256 }
        let sha256 = SHA256.digest(bytes)
        if known.count < Self.limit { known[buffer] = sha256 }
        return sha256
    }
}
