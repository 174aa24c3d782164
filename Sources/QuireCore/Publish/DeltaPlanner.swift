/// Plans a version as the newest one plus a few changed and removed files. Only the folders on
/// the way to a change get a new tree; every other folder keeps its tree id, untouched. So a
/// one-page edit costs the size of the folders it touches, not the size of the site.
struct DeltaPlanner {
    /// A folder whose tree changed, deepest first; `tree` is nil when the folder is now empty.
    struct FolderChange {
        var path: String
        var tree: PlannedTree?
    }

    struct Plan {
        var topLevel: [(name: String, tree: PlannedTree)]
        var changes: [FolderChange]
        var removedFiles: [String]
    }

    let previous: FileIndex
    let layout: SiteLayout
    private static let emptyManifest = TreeManifest(entries: [])
    /// Fewer folders at one depth are planned on the calling thread.
    private static let foldersWorthAWorker = 8

    private struct FolderEdit {
        var files: [String: OutputFile] = [:]
        var removed: Set<String> = []
    }

    func plan(_ delta: PublishDelta, previousFolders: [(name: String, folder: VersionManifest.Folder)]) throws(StoreError) -> Plan {
        var edits: [String: FolderEdit] = [:]
        for file in delta.files {
            let components = try TreePlanner.components(of: file.path)
            edits[components.dropLast().joined(separator: "/"), default: FolderEdit()].files[components[components.count - 1]] = file
        }
        var removedFiles: [String] = []
        for path in delta.removed where previous.location(of: path) != nil {
            let components = try TreePlanner.components(of: path)
            edits[components.dropLast().joined(separator: "/"), default: FolderEdit()].removed.insert(components[components.count - 1])
            removedFiles.append(path)
        }
        // Every folder above an edited one changes too (its entry for the child gets a new id).
        var dirty = Set(edits.keys)
        for path in edits.keys {
            var parts = path.split(separator: "/")
            while parts.count > 1 {
                parts.removeLast()
                dirty.insert(parts.joined(separator: "/"))
            }
        }
        var planned: [String: PlannedTree?] = [:]
        // Deepest first, so a folder's changed subfolders are planned before it; the folders of
        // one depth on both cores (a burst over a whole site changes 600 folders at once), unless
        // they are a few: waking a worker costs more than planning them here (a one-page save
        // plans 3 to 6 a level).
        var changedChildren: [String: [(name: String, tree: PlannedTree?)]] = [:]
        var changes: [FolderChange] = []
        for (_, level) in Dictionary(grouping: dirty, by: depth).sorted(by: { $0.key > $1.key }) {
            let paths = level.sorted()
            let trees = ResultSlots<PlannedTree?>(count: paths.count)
            let (children, edits) = (changedChildren, edits)
            try FirstFailure.concurrentPerform(iterations: paths.count, inlineBelow: Self.foldersWorthAWorker) {
                [self] index throws(StoreError) in
                let path = paths[index]
                trees.set(index, try plan(folder: path, edit: edits[path] ?? FolderEdit(), changedChildren: children[path] ?? []))
            }
            // Every slot is set: a failure has thrown above.
            for (path, tree) in zip(paths, trees.values.map { $0 ?? nil }) {
                planned[path] = .some(tree)
                changes.append(FolderChange(path: path, tree: tree))
                if let slash = path.utf8.lastIndex(of: UInt8(ascii: "/")) {
                    changedChildren[String(path[..<slash]), default: []].append((String(path[path.index(after: slash)...]), tree))
                }
            }
        }

        var topLevel: [String: PlannedTree] = [:]
        for entry in previousFolders {
            topLevel[entry.name] = stub(entry.folder.tree, files: entry.folder.files, bytes: entry.folder.bytes)
        }
        for (path, tree) in planned where depth(path) == 0 { topLevel[path] = tree }
        let sorted = topLevel.map { (name: $0.key, tree: $0.value) }.sorted { $0.name.utf8Precedes($1.name) }
        return Plan(topLevel: sorted, changes: changes, removedFiles: removedFiles)
    }

    private func depth(_ path: String) -> Int { UTF8Scan.slashes(in: path) }

    /// The new tree of one folder: its previous tree with the edit and the changed subfolders
    /// applied; nil when nothing is left in it. Only the changes are looked at: the entries it
    /// keeps are written as hard links into the previous tree (`PlannedTree.linkedFrom`), and
    /// its totals are the previous ones, corrected.
    private func plan(folder path: String, edit: FolderEdit, changedChildren: [(name: String, tree: PlannedTree?)]) throws(StoreError)
        -> PlannedTree?
    {
        let old = previous.folders[path]
        var changes: [String: TreeManifest.Kind?] = [:]
        var sources: [String: PlannedTree.FileSource] = [:]
        var subtrees: [String: PlannedTree] = [:]
        var totals = previous.totals[path] ?? (0, 0)
        func oldKind(_ name: String) -> TreeManifest.Kind? { old?.manifest.entry(named: name)?.kind }
        /// Takes an entry's files and bytes out of the totals (or puts them in, `sign` 1).
        func count(_ kind: TreeManifest.Kind?, named name: String, sign: Int) {
            switch kind {
            case .file(let file)?: totals = (totals.files + sign, totals.bytes + sign * file.size)
            case .tree?:
                let below = previous.totals[path + "/" + name] ?? (0, 0)
                totals = (totals.files + sign * below.files, totals.bytes + sign * below.bytes)
            case nil: break
            }
        }

        for name in edit.removed {
            let before = oldKind(name)
            guard case .file = before else { continue }
            count(before, named: name, sign: -1)
            changes[name] = .some(nil)
        }
        for (name, file) in edit.files {
            let before = oldKind(name)
            if case .tree = before { throw StoreError("the output lists '\(file.path)' as a file where the newest version has a folder") }
            let (published, source) = try stored(file)
            count(before, named: name, sign: -1)
            totals = (totals.files + 1, totals.bytes + published.size)
            changes[name] = .file(published)
            sources[name] = source
        }
        for (name, changed) in changedChildren {
            let before = oldKind(name)
            if case .file = before, changed != nil {
                throw StoreError("the output lists '\(path)/\(name)' as a folder where the newest version has a file")
            }
            if case .file = before { continue }
            count(before, named: name, sign: -1)
            guard let changed else {
                changes[name] = .some(nil)
                continue
            }
            changes[name] = .tree(changed.id)
            subtrees[name] = changed
            totals = (totals.files + changed.fileCount, totals.bytes + changed.byteCount)
        }
        let manifest =
            old?.manifest.updating(changes)
            ?? TreeManifest(entries: changes.compactMap { name, kind in kind.map { TreeManifest.Entry(name: name, kind: $0) } })
        guard manifest.entryCount > 0 else { return nil }
        return PlannedTree(
            manifest: manifest, id: manifest.id, files: PlannedFiles(sources), subtrees: subtrees, fileCount: totals.files,
            byteCount: totals.bytes, linkedFrom: old.map { layout.tree($0.id) },
            linkedManifest: old?.manifest,
            droppedNames: changes.compactMap { name, kind in kind == nil && oldKind(name) != nil ? name : nil })
    }

    /// A file's manifest entry, and where its bytes come from: the newest version's copy when it
    /// already stores these bytes (and the copy is still there), else the new bytes.
    private func stored(_ file: OutputFile) throws(StoreError) -> (PublishedFile, PlannedTree.FileSource) {
        switch file.content {
        case .carried:
            guard let old = previous.location(of: file.path) else {
                throw StoreError("cannot carry '\(file.path)' over: the newest version has no such file")
            }
            return (
                PublishedFile(sha256: old.file.sha256, size: old.file.size, inputDigest: file.inputDigest, metadata: file.metadata),
                .storedFile(old.storedPath)
            )
        case .bytes(let bytes):
            let sha256 = SHA256.digest(bytes)
            let published = PublishedFile(sha256: sha256, size: bytes.count, inputDigest: file.inputDigest, metadata: file.metadata)
            if let stored = previous.storedFile(sha256: sha256), FileSystem.exists(stored) { return (published, .storedFile(stored)) }
            return (published, .bytes(bytes))
        case .staged(let blob):
            let published = PublishedFile(sha256: blob.sha256, size: blob.size, inputDigest: file.inputDigest, metadata: file.metadata)
            if let stored = previous.storedFile(sha256: blob.sha256), FileSystem.exists(stored) { return (published, .storedFile(stored)) }
            return (published, .staged(blob))
        }
    }

    /// A folder that stays as it is: only its id (for the link) and totals are needed.
    private func stub(_ id: String, files: Int, bytes: Int) -> PlannedTree {
        PlannedTree(manifest: Self.emptyManifest, id: id, files: .none, subtrees: [:], fileCount: files, byteCount: bytes, isStored: true)
    }
}

extension FileIndex {
    /// The index of the version a delta plan produced, from the index of its base: only the
    /// changed folders are touched, and of their files only those the plan writes or links anew.
    mutating func apply(_ plan: DeltaPlanner.Plan, layout: SiteLayout) {
        for change in plan.changes {
            guard let tree = change.tree else {
                folders[change.path] = nil
                totals[change.path] = nil
                continue
            }
            record(folder: change.path, tree: tree.id, manifest: tree.manifest, layout: layout, named: tree.files.names)
            totals[change.path] = (tree.fileCount, tree.byteCount)
        }
    }
}
