import QuireModel

/// Re-hashes every file a version reaches and compares it with the manifests: a version that
/// verifies is complete and unchanged since it was published. Works on the shared layout
/// (`versions/<v>` -> `trees/<id>`) and on exported plain folders.
struct Verifier {
    let layout: SiteLayout
    private(set) var problems: [VerificationProblem] = []

    init(layout: SiteLayout) { self.layout = layout }

    private mutating func report(_ kind: VerificationProblem.Kind, _ path: String, _ detail: String) {
        problems.append(VerificationProblem(kind: kind, path: path, detail: detail))
    }

    // MARK: - A stored version

    mutating func verify(_ version: VersionID) throws(StoreError) {
        let folder = layout.version(version)
        guard FileSystem.exists(folder) else { throw StoreError("site has no version '\(version)': list them with 'quire versions'") }
        let manifestPath = layout.versionManifest(version)
        guard FileSystem.exists(manifestPath) else { return report(.missing, "manifest.json", "the version manifest is gone") }
        let manifest: VersionManifest
        do { manifest = try VersionManifest(parsing: FileSystem.readFile(manifestPath), path: manifestPath) } catch {
            return report(.changed, "manifest.json", error.description)
        }
        if !FileSystem.exists(layout.buildRecord(version)) { report(.missing, "build.json", "the build record is gone") }

        let listed = Set(manifest.folders.map(\.name) + ["manifest.json", "build.json"])
        for name in try FileSystem.list(folder) where !listed.contains(name) { report(.extra, name, "not listed in manifest.json") }
        for entry in manifest.folders {
            let expected = SiteLayout.folderTarget(entry.folder.tree)
            guard checkLink(folder + "/" + entry.name, path: entry.name, expected: expected) else { continue }
            try verifyTree(entry.folder.tree, path: entry.name, depth: 0)
        }
    }

    /// True when `path` is a link to `expected`; reports why not otherwise.
    private mutating func checkLink(_ absolute: String, path: String, expected: String) -> Bool {
        guard let info = try? FileSystem.status(absolute) else {
            report(.missing, path, "the folder is gone")
            return false
        }
        guard FileSystem.isSymbolicLink(info), let target = try? FileSystem.readLink(absolute) else {
            report(.changed, path, "should be a link to '\(expected)'")
            return false
        }
        guard target == expected else {
            report(.changed, path, "links to '\(target)' instead of '\(expected)'")
            return false
        }
        return true
    }

    private mutating func verifyTree(_ id: String, path: String, depth: Int) throws(StoreError) {
        guard depth < 64 else { return report(.changed, path, "folders nest deeper than 64: a cycle?") }
        let manifestPath = layout.treeManifest(id)
        guard FileSystem.exists(manifestPath) else { return report(.missing, path, "the tree manifest '\(manifestPath)' is gone") }
        let bytes = try FileSystem.readFile(manifestPath)
        guard SHA256.hash(bytes) == id else {
            return report(.changed, path, "the tree manifest '\(manifestPath)' no longer matches its id")
        }
        let tree: TreeManifest
        do {
            tree = try TreeManifest(parsing: bytes, path: manifestPath) { [layout] part throws(StoreError) in
                guard FileSystem.exists(layout.treeManifest(part)) else {
                    throw StoreError("the tree manifest '\(manifestPath)': its part '\(layout.treeManifest(part))' is gone")
                }
                return try FileSystem.readFile(layout.treeManifest(part))
            }
        } catch { return report(.changed, path, error.description) }
        let folder = layout.tree(id)
        guard FileSystem.exists(folder) else { return report(.missing, path, "the tree folder '\(folder)' is gone") }

        let listed = Set(tree.entries.map(\.name))
        for name in try FileSystem.list(folder) where !listed.contains(name) {
            report(.extra, path + "/" + name, "not listed in the manifest")
        }
        for entry in tree.entries {
            let entryPath = path + "/" + entry.name
            switch entry.kind {
            case .file(let file): try verifyFile(folder + "/" + entry.name, path: entryPath, expected: file)
            case .tree(let child):
                if checkLink(folder + "/" + entry.name, path: entryPath, expected: SiteLayout.subtreeTarget(child)) {
                    try verifyTree(child, path: entryPath, depth: depth + 1)
                }
            }
        }
    }

    private mutating func verifyFile(_ absolute: String, path: String, expected: PublishedFile) throws(StoreError) {
        guard let info = try FileSystem.status(absolute) else { return report(.missing, path, "listed but not on disk") }
        guard FileSystem.isRegularFile(info) else { return report(.changed, path, "is not a regular file") }
        let bytes = try FileSystem.readFile(absolute)
        if bytes.count != expected.size {
            report(.changed, path, "has \(bytes.count) bytes, the manifest says \(expected.size)")
        } else if SHA256.digest(bytes) != expected.sha256 {
            report(.changed, path, "its content no longer matches its sha256")
        }
    }

    // MARK: - An exported folder

    /// Checks a folder written by `export`: every file its manifest lists, and nothing else.
    mutating func verify(exportedFolder folder: String) throws(StoreError) {
        let manifestPath = folder + "/manifest.json"
        guard FileSystem.exists(manifestPath) else { return report(.missing, "manifest.json", "the manifest is gone") }
        guard let value = StoredJSONReader.parse(try FileSystem.readFile(manifestPath)), let listed = value["files"]?.objectValue else {
            return report(.changed, "manifest.json", "not an exported manifest with a 'files' mapping")
        }
        var expected: [String: PublishedFile] = [:]
        for member in listed {
            guard let file = PublishedFile(manifestFields: member.value) else {
                report(.changed, "manifest.json", "the entry '\(member.key)' lacks sha256, size or input_digest")
                continue
            }
            expected[member.key] = file
        }
        var found: Set<String> = []
        try walk(folder, relative: "", found: &found, depth: 0)
        for path in found.sorted() where expected[path] == nil && path != "manifest.json" && path != "build.json" {
            report(.extra, path, "not listed in manifest.json")
        }
        for (path, file) in expected.sorted(by: { $0.key < $1.key }) {
            try verifyFile(folder + "/" + path, path: path, expected: file)
        }
    }

    private mutating func walk(_ folder: String, relative: String, found: inout Set<String>, depth: Int) throws(StoreError) {
        guard depth < 64 else { return report(.changed, relative, "folders nest deeper than 64") }
        for name in try FileSystem.list(folder) {
            let path = relative.isEmpty ? name : relative + "/" + name
            guard let info = try FileSystem.status(folder + "/" + name) else { continue }
            if FileSystem.isDirectory(info) {
                try walk(folder + "/" + name, relative: path, found: &found, depth: depth + 1)
            } else if FileSystem.isSymbolicLink(info) {
                report(.extra, path, "an exported folder holds no symbolic links")
            } else {
                found.insert(path)
            }
        }
    }
}
