import QuireModel

/// `versions/<v>/manifest.json`: the site fields of the build plus where each top-level folder's
/// tree is. Files are listed through the tree manifests.
struct VersionManifest: Sendable {
    struct Folder: Sendable, Equatable {
        var tree: String
        var files: Int
        var bytes: Int
    }

    /// 2: a markdown field is published as its string, with `<field>_html` and `<field>_blocks`
    /// beside it (1: an object `{markdown, html, blocks}`). The manifest's own shape is the same in
    /// both, so versions published before stay readable (rollback, verify, export).
    static let format = 2
    static let readableFormats = 1...format
    /// Keys the store writes itself; a site field of the same name is dropped.
    static let reservedKeys: Set<String> = ["format", "site", "version", "parent", "built_at", "folders", "files"]

    /// The format the version was published in: `format` for a new one.
    var format = Self.format
    var site: String
    var version: VersionID
    var parent: VersionID?
    var builtAt: String
    var siteFields: JSONObject
    /// By folder name, sorted.
    var folders: [(name: String, folder: Folder)]

    var json: JSONValue {
        var object = header
        object["folders"] = .object(
            JSONObject(
                folders.map { entry in
                    (
                        entry.name,
                        JSONValue.object(
                            JSONObject([
                                ("tree", .string(entry.folder.tree)), ("files", .integer(entry.folder.files)),
                                ("bytes", .integer(entry.folder.bytes)),
                            ]))
                    )
                }))
        return .object(object)
    }

    /// Everything but the folders: what an exported copy keeps before listing its files.
    var header: JSONObject {
        var object = JSONObject([
            ("format", .integer(format)), ("site", .string(site)), ("version", .string(version.description)),
            ("parent", parent.map { .string($0.description) } ?? .null), ("built_at", .string(builtAt)),
        ])
        for member in siteFields where !Self.reservedKeys.contains(member.key) { object[member.key] = member.value }
        return object
    }

    var bytes: [UInt8] { JSONWriter(pretty: true).bytes(json) }

    /// Site fields that describe the build rather than what is served: a change in them alone
    /// (translation coverage dropping while a page is broken and keeps its last good output)
    /// publishes nothing.
    static let descriptiveKeys: Set<String> = ["coverage"]

    /// True when `other` would publish the same thing: same format, same trees, same site fields.
    func hasSameContent(as other: VersionManifest) -> Bool {
        func served(_ fields: JSONObject) -> [UInt8] {
            JSONWriter().bytes(.object(JSONObject(fields.members.filter { !Self.descriptiveKeys.contains($0.key) })))
        }
        return format == other.format && folders.map(\.name) == other.folders.map(\.name)
            && zip(folders, other.folders).allSatisfy { $0.folder.tree == $1.folder.tree }
            && served(siteFields) == served(other.siteFields)
    }

    init(
        site: String, version: VersionID, parent: VersionID?, builtAt: String, siteFields: JSONObject,
        folders: [(name: String, folder: Folder)]
    ) {
        self.site = site
        self.version = version
        self.parent = parent
        self.builtAt = builtAt
        var fields = JSONObject()
        for member in siteFields where !Self.reservedKeys.contains(member.key) { fields[member.key] = member.value }
        self.siteFields = fields
        self.folders = folders.sorted { $0.name.utf8Precedes($1.name) }
    }

    init(parsing bytes: [UInt8], path: String) throws(StoreError) {
        guard let value = StoredJSONReader.parse(bytes), let object = value.objectValue,
            let format = value["format"]?.intValue, Self.readableFormats.contains(format),
            let site = value["site"]?.stringValue, let version = value["version"]?.stringValue.flatMap(VersionID.init),
            let builtAt = value["built_at"]?.stringValue, let folderObject = value["folders"]?.objectValue
        else {
            throw StoreError(
                "the version manifest '\(path)' is damaged: not a version manifest of format \(Self.readableFormats.map(String.init).joined(separator: " or "))"
            )
        }
        var folders: [(name: String, folder: Folder)] = []
        for member in folderObject {
            guard let tree = member.value["tree"]?.stringValue, let files = member.value["files"]?.intValue,
                let bytes = member.value["bytes"]?.intValue
            else { throw StoreError("the version manifest '\(path)' is damaged: folder '\(member.key)' lacks tree, files or bytes") }
            folders.append((member.key, Folder(tree: tree, files: files, bytes: bytes)))
        }
        self.init(
            site: site, version: version, parent: value["parent"]?.stringValue.flatMap(VersionID.init), builtAt: builtAt,
            siteFields: object, folders: folders)
        self.format = format
    }
}
