import QuireModel

/// The manifest of one content-addressed folder, stored as `trees/<id>.json`; the folder's id is
/// the SHA-256 of these bytes, so equal contents give the same id and are stored once.
struct TreeManifest: Sendable, Equatable {
    enum Kind: Sendable, Equatable {
        case file(PublishedFile)
        /// A subfolder, stored as the relative link `../<id>` inside the tree's folder.
        case tree(String)
    }

    struct Entry: Sendable, Equatable {
        var name: String
        var kind: Kind
    }

    static let format = 1

    /// Sorted by the names' UTF-8 bytes, so the canonical bytes do not depend on input order.
    let entries: [Entry]
    /// The canonical bytes, and their SHA-256: the tree's id. Computed once: a publish needs both.
    let bytes: [UInt8]
    let id: String

    init(entries: [Entry]) {
        self.entries = entries.sorted { $0.name.utf8.lexicographicallyPrecedes($1.name.utf8) }
        bytes = JSONWriter(pretty: true).bytes(Self.json(self.entries))
        id = SHA256.hash(bytes)
    }

    /// Read back from disk: the stored bytes are kept as they are (and hashed, so a changed file
    /// no longer matches its id).
    private init(entries: [Entry], stored: [UInt8]) {
        self.entries = entries
        bytes = stored
        id = SHA256.hash(stored)
    }

    var json: JSONValue { Self.json(entries) }

    private static func json(_ entries: [Entry]) -> JSONValue {
        let listed: [JSONValue] = entries.map { entry in
            var object = JSONObject([("name", .string(entry.name))])
            switch entry.kind {
            case .file(let file):
                object["kind"] = "file"
                for member in file.manifestFields { object[member.key] = member.value }
            case .tree(let id):
                object["kind"] = "tree"
                object["tree"] = .string(id)
            }
            return .object(object)
        }
        return .object(JSONObject([("format", .integer(Self.format)), ("entries", .array(listed))]))
    }

    init(parsing bytes: [UInt8], path: String) throws(StoreError) {
        guard let value = StoredJSONReader.parse(bytes), value["format"]?.intValue == Self.format,
            let listed = value["entries"]?.arrayValue
        else { throw StoreError("the tree manifest '\(path)' is damaged: not a format \(Self.format) tree manifest") }
        var entries: [Entry] = []
        for item in listed {
            guard let name = item["name"]?.stringValue else { throw StoreError("the tree manifest '\(path)' is damaged: an entry has no name") }
            switch item["kind"]?.stringValue {
            case "file":
                guard let file = PublishedFile(manifestFields: item) else {
                    throw StoreError("the tree manifest '\(path)' is damaged: file '\(name)' lacks sha256, size or input_digest")
                }
                entries.append(Entry(name: name, kind: .file(file)))
            case "tree":
                guard let id = item["tree"]?.stringValue else { throw StoreError("the tree manifest '\(path)' is damaged: folder '\(name)' has no tree id") }
                entries.append(Entry(name: name, kind: .tree(id)))
            default:
                throw StoreError("the tree manifest '\(path)' is damaged: entry '\(name)' is neither a file nor a tree")
            }
        }
        self.init(entries: entries, stored: bytes)
    }
}

extension PublishedFile {
    /// How manifests list a file: `sha256`, `size`, `input_digest`, then `metadata` when present.
    var manifestFields: JSONObject {
        var object = JSONObject([("sha256", .string(sha256)), ("size", .integer(size)), ("input_digest", .string(inputDigest))])
        if let metadata { object["metadata"] = metadata }
        return object
    }

    init?(manifestFields value: JSONValue) {
        guard let sha256 = value["sha256"]?.stringValue, let size = value["size"]?.intValue,
            let inputDigest = value["input_digest"]?.stringValue
        else { return nil }
        self.init(sha256: sha256, size: size, inputDigest: inputDigest, metadata: value["metadata"])
    }
}
