import QuireModel

// A folder of many entries (a catalog of 10,000 pages in one folder) is listed in parts: runs of
// its entries, each stored as a manifest of its own (`trees/<part id>.json`, format 1), and the
// folder's manifest (format 2) lists the parts by id. An edit then encodes, hashes and writes
// the run it touches and the short list, not every entry of the folder.
//
// Where a run ends depends only on the names (a run ends after a name whose hash says so, or at
// `longestPart` entries), so equal entries give equal parts and an equal id however the manifest
// was made, and an edit moves at most the ends of the runs around it.
extension TreeManifest {
    static let partedFormat = 2
    /// Folders of more entries than this are listed in parts.
    static let partedFrom = 512
    /// About one name in `partLength` ends a run.
    static let partLength: UInt32 = 128
    static let longestPart = 1024

    /// Whether a run ends after the entry named `name`: FNV-1a of its UTF-8 bytes, mixed.
    static func endsPart(_ name: String) -> Bool {
        var hash: UInt32 = 2_166_136_261
        // Through the bytes in place: the UTF-8 view took a few hundred cycles a name.
        let hashed: Void? = name.utf8.withContiguousStorageIfAvailable { bytes in
            for byte in bytes { hash = (hash ^ UInt32(byte)) &* 16_777_619 }
        }
        if hashed == nil { for byte in name.utf8 { hash = (hash ^ UInt32(byte)) &* 16_777_619 } }
        hash ^= hash >> 16
        hash = hash &* 0x85eb_ca6b
        hash ^= hash >> 13
        return hash % partLength == 0
    }

    /// Where the run that starts at `start` ends (exclusive).
    static func partEnd(_ entries: [Entry], from start: Int) -> Int {
        var index = start
        while index < entries.count {
            index += 1
            if index - start == longestPart || endsPart(entries[index - 1].name) { break }
        }
        return index
    }

    /// Sorted entries cut into parts, each listed whole; `keepingBytes: false`, each part
    /// without its bytes once hashed (`stored`).
    static func cut(_ sorted: [Entry], keepingBytes: Bool = true) -> [TreeManifest] {
        var parts: [TreeManifest] = []
        var start = 0
        while start < sorted.count {
            let end = partEnd(sorted, from: start)
            let part = TreeManifest(sorted: Array(sorted[start..<end]), keeping: nil, of: nil)
            parts.append(keepingBytes ? part : part.stored)
            start = end
        }
        return parts
    }

    /// `{format: 2, parts: [{part, entries}]}` as `JSONWriter(pretty: true)` writes it, its keys
    /// and punctuation copied as they are: every save in a folder of 100,000 entries lists its
    /// 800 parts again, and building them as `JSONValue`s first took most of that.
    static func encodeParts(_ parts: [TreeManifest]) -> [UInt8] {
        var out = ByteSink(capacity: parts.count * 120 + 64)
        out.append("{\n  \"format\": ")
        JSONWriter.writeInteger(partedFormat, into: &out)
        out.append(",\n  \"parts\": [")
        for (index, part) in parts.enumerated() {
            out.append(index == 0 ? "\n    {\n      \"part\": " : ",\n    {\n      \"part\": ")
            JSONWriter.writeString(part.id, into: &out)
            out.append(",\n      \"entries\": ")
            JSONWriter.writeInteger(part.entryCount, into: &out)
            out.append("\n    }")
        }
        out.append(parts.isEmpty ? "]\n}\n" : "\n  ]\n}\n")
        return out.array()
    }

    /// This manifest with `changes` applied, touching only the parts the changes fall in: each
    /// is updated, and from its start the entries are cut again, pulling in the parts that follow
    /// while a run goes on past them, until a cut falls where a part no change falls in starts
    /// (from there on the old cuts are the canonical ones). Every other part is taken as it is:
    /// an edit in a folder of 10,000 entries costs a run of about 128 and the list of parts.
    func updatingParts(_ changes: [String: Kind?]) -> TreeManifest {
        var changesByPart: [Int: [String: Kind?]] = [:]
        for (name, kind) in changes { changesByPart[part(of: name), default: [:]][name] = .some(kind) }
        var edited: [Int: [Entry]] = [:]
        var count = entryCount
        for (index, inside) in changesByPart {
            let entries = parts[index].applying(inside).entries
            count += entries.count - parts[index].entryCount
            edited[index] = entries
        }
        guard count > Self.partedFrom else {
            return TreeManifest(sorted: parts.indices.flatMap { edited[$0] ?? parts[$0].listed }, keeping: nil, of: nil)
        }
        var result: [TreeManifest] = []
        var made: [TreeManifest] = []
        func add(_ run: TreeManifest) {
            result.append(run)
            // Edits that cancel out give a part stored already.
            if !parts.contains(where: { $0.id == run.id }) { made.append(run) }
        }
        var index = 0
        while index < parts.count {
            guard let first = edited[index] else {
                result.append(parts[index])
                index += 1
                continue
            }
            // `pending` holds the entries from the current cut on; `whole` names the part they
            // are, updated, while they are exactly one (its kept entries' bytes are copied).
            var (pending, start, next, whole): ([Entry], Int, Int, Int?) = (first, 0, index + 1, index)
            while true {
                if start == pending.count {
                    // The cut falls where part `next` starts.
                    guard next < parts.count, let more = edited[next] else { break }
                    (pending, start, whole) = (more, 0, next)
                    next += 1
                } else if let end = Self.runEnd(pending, from: start) {
                    if let part = whole, start == 0, end == pending.count {
                        add(parts[part].updatingWhole(changesByPart[part] ?? [:]))
                    } else {
                        add(TreeManifest(sorted: Array(pending[start..<end]), keeping: nil, of: nil))
                    }
                    start = end
                } else if next < parts.count {
                    // The run goes on into the next part.
                    (pending, start, whole) = (Array(pending[start...]) + (edited[next] ?? parts[next].listed), 0, nil)
                    next += 1
                } else {
                    add(TreeManifest(sorted: Array(pending[start...]), keeping: nil, of: nil))
                    start = pending.count
                }
            }
            index = next
        }
        return TreeManifest(parts: result, new: made)
    }

    /// Where the run that starts at `start` ends, when it ends within `entries` (a name that
    /// ends a run, or `longestPart` entries); nil when it may go on past them.
    static func runEnd(_ entries: [Entry], from start: Int) -> Int? {
        var index = start
        while index < entries.count {
            index += 1
            if index - start == longestPart || endsPart(entries[index - 1].name) { return index }
        }
        return nil
    }

    /// A SHA-256 in lowercase hexadecimal: a part's id names a file, so nothing else is read.
    private static func isDigest(_ text: String) -> Bool {
        let digits = UInt8(ascii: "0")...UInt8(ascii: "9")
        let letters = UInt8(ascii: "a")...UInt8(ascii: "f")
        return text.utf8.count == 64 && text.utf8.allSatisfy { digits.contains($0) || letters.contains($0) }
    }

    /// A part as a listed manifest gives it: its bytes, checked against its id, parsed; or one of
    /// `known` with its id (a part's id is the SHA-256 of its bytes: equal ids, equal entries).
    static func parseParts(
        _ value: JSONValue, path: String, known: [String: TreeManifest] = [:], part read: (String) throws(StoreError) -> [UInt8]
    ) throws(StoreError) -> [TreeManifest] {
        guard let listed = value["parts"]?.arrayValue, !listed.isEmpty else {
            throw StoreError("the tree manifest '\(path)' is damaged: a format \(partedFormat) tree manifest without parts")
        }
        var parts: [TreeManifest] = []
        for item in listed {
            guard let id = item["part"]?.stringValue, let count = item["entries"]?.intValue, Self.isDigest(id) else {
                throw StoreError("the tree manifest '\(path)' is damaged: a part without an id or a count")
            }
            if let part = known[id], part.entryCount == count {
                parts.append(part)
                continue
            }
            let bytes = try read(id)
            guard SHA256.hash(bytes) == id else {
                throw StoreError("the tree manifest '\(path)': its part '\(id)' no longer matches its id")
            }
            guard let parsed = StoredJSONReader.parse(bytes) else {
                throw StoreError("the tree manifest '\(path)': its part '\(id)' is not JSON")
            }
            let entries = try parseEntries(parsed, path: path + " (part \(id))")
            guard entries.count == count, !entries.isEmpty else {
                throw StoreError("the tree manifest '\(path)': its part '\(id)' has \(entries.count) entries, not \(count)")
            }
            if let previous = parts.last?.entries.last, !previous.name.utf8Precedes(entries[0].name) {
                throw StoreError("the tree manifest '\(path)' is damaged: its parts are out of order")
            }
            parts.append(TreeManifest(entries: entries, stored: bytes, parts: [], id: id))
        }
        return parts
    }
}
