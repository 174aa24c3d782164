import QuireModel

/// The manifest of one content-addressed folder, stored as `trees/<id>.json`; the folder's id is
/// the SHA-256 of these bytes, so equal contents give the same id and are stored once.
///
/// A class, immutable: an edit of a folder in parts carries its hundreds of unchanged parts into
/// the new manifest, the new version's file index and the spare folders, and a copy of a
/// reference is one retain where a copy of the value was one for each of its six arrays and strings.
final class TreeManifest: Sendable, Equatable {
    enum Kind: Sendable, Equatable {
        /// Boxed: an edit copies every entry of the folder into the new manifest, and a boxed
        /// file is one reference to retain instead of three strings and an object.
        indirect case file(PublishedFile)
        /// A subfolder, stored as the relative link `../<id>` inside the tree's folder.
        case tree(String)
    }

    struct Entry: Sendable, Equatable {
        var name: String
        var kind: Kind
    }

    /// A run of files listed alike (a folder's previews: the same shell bytes, key and no
    /// metadata) shares one boxed entry, planned or read back: 300,000 previews at 100,000
    /// pages were as many boxes.
    struct FileKinds {
        private var last: Kind?

        /// The kind of `file`: the last one's box when it is the same file.
        mutating func kind(of file: PublishedFile) -> Kind {
            if let last, case .file(let previous) = last, previous == file { return last }
            let kind = Kind.file(file)
            last = kind
            return kind
        }
    }

    static let format = 1

    /// The same folder: ids are the hash of the canonical bytes (a stored manifest has none).
    static func == (left: TreeManifest, right: TreeManifest) -> Bool { left.id == right.id }

    /// Listed whole: the entries, sorted by the names' UTF-8 bytes, so the canonical bytes do not
    /// depend on input order. In parts: empty, the parts hold them (an edit copies the list of
    /// parts, not 10,000 entries).
    let listed: [Entry]
    let entryCount: Int
    /// The canonical bytes, and their SHA-256: the tree's id. Computed once: a publish needs both.
    let bytes: [UInt8]
    let id: String
    /// A folder of many entries is listed in parts (`TreeManifest+Parts`): runs of its entries,
    /// each stored as a manifest of its own that `bytes` names by id. Empty for a folder listed whole.
    let parts: [TreeManifest]
    /// The parts this manifest made (not taken from a stored manifest): a publish writes them.
    let newParts: [TreeManifest]
    /// Where each entry's object lies in `bytes` (nil when read back from disk): a manifest made
    /// from this one by `updating` copies the entries it keeps instead of encoding them again, so
    /// an edit in a folder of 10,000 files encodes one entry, not 10,000.
    private let entryRanges: [Range<Int>]?

    convenience init(entries: [Entry]) {
        self.init(canonical: entries.sorted { $0.name.utf8Precedes($1.name) })
    }

    /// Listed whole, or in parts when there are many entries.
    convenience init(canonical sorted: [Entry]) {
        if sorted.count > Self.partedFrom {
            let parts = Self.cut(sorted)
            self.init(parts: parts, new: parts)
        } else {
            self.init(sorted: sorted, keeping: nil, of: nil)
        }
    }

    /// `TreeManifest(canonical:).unencoded`, without every part's bytes at once: a cold build
    /// plans its largest folders side by side, and a folder of 100,000 entries has about 800 parts.
    static func unencoded(canonical sorted: [Entry]) -> TreeManifest {
        guard sorted.count > partedFrom else { return TreeManifest(sorted: sorted, keeping: nil, of: nil).unencoded }
        let parts = cut(sorted, keepingBytes: false)
        return TreeManifest(parts: parts, new: parts).unencoded
    }

    /// `kept[i]`: the index in `previous` of an entry that is unchanged from it.
    init(sorted entries: [Entry], keeping kept: [Int?]?, of previous: TreeManifest?) {
        listed = entries
        entryCount = entries.count
        (bytes, entryRanges) = Self.encode(entries, keeping: kept, of: previous)
        id = SHA256.hash(bytes)
        parts = []
        newParts = []
    }

    /// A manifest in parts, the runs of its entries in order.
    init(parts: [TreeManifest], new: [TreeManifest]) {
        listed = []
        entryCount = parts.reduce(0) { $0 + $1.entryCount }
        self.parts = parts
        newParts = new
        bytes = Self.encodeParts(parts)
        id = SHA256.hash(bytes)
        entryRanges = nil
    }

    /// This manifest without its bytes, once they are stored: what a file index keeps of every
    /// folder of a version. The entries hold what a later manifest is made from; the bytes (as
    /// large again) are only for writing, and an update of a part re-encodes its entries (a run of
    /// about 128) instead of copying them.
    var stored: TreeManifest { TreeManifest(droppingBytesOf: self, keepsNewParts: false) }

    /// This manifest without its bytes until it is written (`canonicalBytes`): a full publish
    /// plans every folder before it writes one, and holding every manifest's bytes meanwhile
    /// was a sixth of a cold build's memory; encoding them again costs a few percent of its time.
    var unencoded: TreeManifest { TreeManifest(droppingBytesOf: self, keepsNewParts: true) }

    private init(droppingBytesOf manifest: TreeManifest, keepsNewParts: Bool) {
        listed = manifest.listed
        entryCount = manifest.entryCount
        bytes = []
        id = manifest.id
        parts = manifest.parts.map(\.stored)
        newParts = keepsNewParts ? manifest.newParts.map(\.stored) : []
        entryRanges = nil
    }

    /// The bytes to write as `trees/<id>.json`: kept ones, or encoded again.
    func canonicalBytes() -> [UInt8] {
        if !bytes.isEmpty { return bytes }
        return parts.isEmpty ? Self.encode(listed, keeping: nil, of: nil).0 : Self.encodeParts(parts)
    }

    /// This manifest with `changes` applied by name (nil removes the entry). The same as a
    /// manifest of the resulting entries, but costs the changes, not the folder's size.
    func updating(_ changes: [String: Kind?]) -> TreeManifest {
        guard parts.isEmpty else { return updatingParts(changes) }
        let (entries, kept) = applying(changes)
        return entries.count > Self.partedFrom ? TreeManifest(canonical: entries) : TreeManifest(sorted: entries, keeping: kept, of: self)
    }

    /// The entries in order. In parts, a new array of them all: for the paths that visit every
    /// entry anyway (linking a folder whole, verifying, indexing a version read from disk).
    var entries: [Entry] { parts.isEmpty ? listed : parts.flatMap(\.listed) }

    /// Each entry in order, without gathering them first.
    func forEachEntry<Failure: Error>(_ body: (Entry) throws(Failure) -> Void) throws(Failure) {
        if parts.isEmpty {
            for entry in listed { try body(entry) }
        } else {
            for part in parts { for entry in part.listed { try body(entry) } }
        }
    }

    /// A part's update: a part is listed whole whatever its length.
    func updatingWhole(_ changes: [String: Kind?]) -> TreeManifest {
        let (entries, kept) = applying(changes)
        return TreeManifest(sorted: entries, keeping: kept, of: self)
    }

    /// The entries with `changes` applied, and for each the index of the entry of this manifest
    /// it keeps unchanged.
    func applying(_ changes: [String: Kind?]) -> (entries: [Entry], kept: [Int?]) {
        var entries = listed
        var kept: [Int?] = entries.indices.map { $0 }
        for (name, kind) in changes {
            let index = Self.insertionIndex(of: name, in: entries)
            let present = index < entries.count && entries[index].name == name
            switch (kind, present) {
            case (nil, true):
                entries.remove(at: index)
                kept.remove(at: index)
            case (let kind?, true) where entries[index].kind != kind:
                entries[index].kind = kind
                kept[index] = nil
            case (let kind?, false):
                entries.insert(Entry(name: name, kind: kind), at: index)
                kept.insert(nil, at: index)
            default: break
            }
        }
        return (entries, kept)
    }

    /// The entry named `name`, found by bisection (of the parts, then of the part).
    func entry(named name: String) -> Entry? {
        let entries = parts.isEmpty ? listed : parts[part(of: name)].listed
        let index = Self.insertionIndex(of: name, in: entries)
        return index < entries.count && entries[index].name == name ? entries[index] : nil
    }

    /// The name of the entry at `index` in order (of the parts, counted).
    func entryName(at index: Int) -> String {
        guard !parts.isEmpty else { return listed[index].name }
        var offset = index
        for part in parts {
            if offset < part.entryCount { return part.listed[offset].name }
            offset -= part.entryCount
        }
        preconditionFailure("entry \(index) of a manifest of \(entryCount)")
    }

    /// The part a name falls in: the last whose first name is not after it (else the first).
    func part(of name: String) -> Int {
        var (low, high) = (0, parts.count)
        while low < high {
            let middle = (low + high) / 2
            if name.utf8Precedes(parts[middle].listed[0].name) { high = middle } else { low = middle + 1 }
        }
        return max(low - 1, 0)
    }

    static func insertionIndex(of name: String, in entries: [Entry]) -> Int {
        var (low, high) = (0, entries.count)
        while low < high {
            let middle = (low + high) / 2
            if entries[middle].name.utf8Precedes(name) { low = middle + 1 } else { high = middle }
        }
        return low
    }

    /// The manifest as `JSONWriter(pretty: true)` writes it (`{format, entries: [{name, kind,
    /// sha256, size, input_digest, metadata} or {name, kind, tree}]}`), entry by entry: each entry
    /// is an object two levels deep, so its bytes do not depend on its neighbours, and a run of
    /// entries kept from `previous` is one copy of its bytes (separators included).
    private static func encode(_ entries: [Entry], keeping kept: [Int?]?, of previous: TreeManifest?) -> ([UInt8], [Range<Int>]) {
        var out = ByteSink(capacity: max(previous?.bytes.count ?? 0, entries.count * 256) + 64)
        out.append("{\n  \"format\": ")
        JSONWriter.writeInteger(format, into: &out)
        out.append(",\n  \"entries\": [")
        var ranges: [Range<Int>] = []
        ranges.reserveCapacity(entries.count)
        let writer = JSONWriter(pretty: true)
        var index = 0
        while index < entries.count {
            out.append(index == 0 ? "\n    " : ",\n    ")
            guard let first = kept?[index], let previous, let old = previous.entryRanges else {
                let start = out.count
                write(entries[index], with: writer, into: &out)
                ranges.append(start..<out.count)
                index += 1
                continue
            }
            var last = first
            while index + last - first + 1 < entries.count, kept?[index + last - first + 1] == last + 1 { last += 1 }
            let shift = out.count - old[first].lowerBound
            previous.bytes.withUnsafeBufferPointer { out.append($0[old[first].lowerBound..<old[last].upperBound]) }
            for range in old[first...last] { ranges.append(range.lowerBound + shift..<range.upperBound + shift) }
            index += last - first + 1
        }
        out.append(entries.isEmpty ? "]\n}\n" : "\n  ]\n}\n")
        return (out.array(), ranges)
    }

    /// One entry as `writer` writes an object two levels deep, its keys and punctuation copied as
    /// they are: a full publish writes 60,000 entries, and encoding each member as a `JSONValue`
    /// was a fifth of planning its trees.
    private static func write(_ entry: Entry, with writer: JSONWriter, into out: inout ByteSink) {
        out.append("{\n      \"name\": ")
        JSONWriter.writeString(entry.name, into: &out)
        switch entry.kind {
        case .file(let file):
            out.append(",\n      \"kind\": \"file\",\n      \"sha256\": ")
            file.sha256.writeJSON(into: &out)
            out.append(",\n      \"size\": ")
            JSONWriter.writeInteger(file.size, into: &out)
            out.append(",\n      \"input_digest\": ")
            file.inputDigest.writeJSON(into: &out)
            if let metadata = file.metadata {
                out.append(",\n      \"metadata\": ")
                writer.append(metadata, depth: 3, to: &out)
            }
        case .tree(let id):
            out.append(",\n      \"kind\": \"tree\",\n      \"tree\": ")
            JSONWriter.writeString(id, into: &out)
        }
        out.append("\n    }")
    }

    /// Parses stored bytes; a manifest in parts takes each part `known` holds by its id, and reads
    /// the others through `part` (its id -> its bytes), which are checked against the id.
    convenience init(
        parsing bytes: [UInt8], path: String, known: [String: TreeManifest] = [:], part: (String) throws(StoreError) -> [UInt8]
    ) throws(StoreError) {
        guard let value = StoredJSONReader.parse(bytes) else { throw StoreError("the tree manifest '\(path)' is damaged: not JSON") }
        if value["format"]?.intValue == Self.partedFormat {
            let parts = try Self.parseParts(value, path: path, known: known, part: part)
            self.init(entries: [], stored: bytes, parts: parts)
        } else {
            self.init(entries: try Self.parseEntries(value, path: path), stored: bytes, parts: [])
        }
    }

    /// The entries of a manifest listed whole (a folder's, or a part's).
    static func parseEntries(_ value: JSONValue, path: String) throws(StoreError) -> [Entry] {
        guard value["format"]?.intValue == Self.format, let listed = value["entries"]?.arrayValue
        else { throw StoreError("the tree manifest '\(path)' is damaged: not a format \(Self.format) tree manifest") }
        var entries: [Entry] = []
        entries.reserveCapacity(listed.count)
        for item in listed {
            guard let name = item["name"]?.stringValue else {
                throw StoreError("the tree manifest '\(path)' is damaged: an entry has no name")
            }
            switch item["kind"]?.stringValue {
            case "file":
                guard let file = PublishedFile(manifestFields: item) else {
                    throw StoreError("the tree manifest '\(path)' is damaged: file '\(name)' lacks sha256, size or input_digest")
                }
                entries.append(Entry(name: name, kind: .file(file)))
            case "tree":
                guard let id = item["tree"]?.stringValue else {
                    throw StoreError("the tree manifest '\(path)' is damaged: folder '\(name)' has no tree id")
                }
                entries.append(Entry(name: name, kind: .tree(id)))
            default:
                throw StoreError("the tree manifest '\(path)' is damaged: entry '\(name)' is neither a file nor a tree")
            }
        }
        return entries
    }

    /// Stored as `trees/<id>.json` in `layout`, with its parts beside it; those it shares with
    /// `sibling` (another tree of its folder, in memory) are taken from it, not read.
    static func read(_ id: String, layout: SiteLayout, sharingPartsWith sibling: TreeManifest? = nil) throws(StoreError) -> TreeManifest {
        let path = layout.treeManifest(id)
        let known = Dictionary(sibling?.parts.map { ($0.id, $0) } ?? [], uniquingKeysWith: { first, _ in first })
        return try TreeManifest(parsing: FileSystem.readFile(path), path: path, known: known) { part throws(StoreError) in
            try FileSystem.readFile(layout.treeManifest(part))
        }
    }

    /// Read back from disk: the stored bytes are kept as they are (and hashed, so a changed file
    /// no longer matches its id), unless the caller hashed them already (`id`).
    init(entries: [Entry], stored: [UInt8], parts: [TreeManifest], id: String? = nil) {
        listed = parts.isEmpty ? entries : []
        entryCount = parts.isEmpty ? entries.count : parts.reduce(0) { $0 + $1.entryCount }
        bytes = stored
        self.id = id ?? SHA256.hash(stored)
        self.parts = parts
        newParts = []
        entryRanges = nil
    }
}

extension PublishedFile {
    /// How manifests list a file: `sha256`, `size`, `input_digest`, then `metadata` when present.
    var manifestFields: JSONObject {
        var object = JSONObject([("sha256", .string(sha256.text)), ("size", .integer(size)), ("input_digest", .string(inputDigest.text))])
        if let metadata { object["metadata"] = metadata }
        return object
    }

    init?(manifestFields value: JSONValue) {
        guard let sha256 = value["sha256"]?.stringValue, let size = value["size"]?.intValue,
            let inputDigest = value["input_digest"]?.stringValue
        else { return nil }
        self.init(sha256: Digest(sha256), size: size, inputDigest: Digest(inputDigest), metadata: value["metadata"]?.compacted)
    }
}
