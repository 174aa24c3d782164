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
        for byte in name.utf8 { hash = (hash ^ UInt32(byte)) &* 16_777_619 }
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

    /// Sorted entries cut into parts, each listed whole.
    static func cut(_ sorted: [Entry]) -> [TreeManifest] {
        var parts: [TreeManifest] = []
        var start = 0
        while start < sorted.count {
            let end = partEnd(sorted, from: start)
            parts.append(TreeManifest(sorted: Array(sorted[start..<end]), keeping: nil, of: nil))
            start = end
        }
        return parts
    }

    /// `{format: 2, parts: [{part, entries}]}` as `JSONWriter(pretty: true)` writes it.
    static func encodeParts(_ parts: [TreeManifest]) -> [UInt8] {
        let listed: [JSONValue] = parts.map { .object(JSONObject([("part", .string($0.id)), ("entries", .integer($0.entries.count))])) }
        return JSONWriter(pretty: true).bytes(.object(JSONObject([("format", .integer(partedFormat)), ("parts", .array(listed))])))
    }

    /// The parts of `entries` (this manifest's with `changes` applied), taking every part of this
    /// manifest that no change falls in: cutting starts again at its first entry, so it ends
    /// where it did. A run that starts where an edited part did, and ends where it did too, is
    /// that part updated (its kept entries' bytes copied); any other run is encoded.
    func updatingParts(_ changes: [String: Kind?], to entries: [Entry]) -> TreeManifest {
        let firsts = parts.map { $0.entries[0].name }
        /// The part a name falls in: the last whose first name is not after it (else the first).
        func part(of name: String) -> Int {
            var (low, high) = (0, firsts.count)
            while low < high {
                let middle = (low + high) / 2
                if name.utf8Precedes(firsts[middle]) { high = middle } else { low = middle + 1 }
            }
            return max(low - 1, 0)
        }
        var changesByPart: [Int: [String: Kind?]] = [:]
        for (name, kind) in changes { changesByPart[part(of: name), default: [:]][name] = .some(kind) }

        var result: [TreeManifest] = []
        var made: [TreeManifest] = []
        var start = 0
        var old = 0
        while start < entries.count {
            let name = entries[start].name
            while old < parts.count && firsts[old].utf8Precedes(name) { old += 1 }
            let sameStart = old < parts.count && firsts[old] == name
            if sameStart && changesByPart[old] == nil {
                result.append(parts[old])
                start += parts[old].entries.count
                old += 1
                continue
            }
            let end = Self.partEnd(entries, from: start)
            var run: TreeManifest
            if sameStart, let last = parts[old].entries.last, last.name == entries[end - 1].name, let edits = changesByPart[old] {
                // Changes past the run's last entry belong to the next run.
                let inside = edits.filter { !last.name.utf8Precedes($0.key) }
                run = parts[old].updatingWhole(inside)
                if run.entries.count != end - start { run = TreeManifest(sorted: Array(entries[start..<end]), keeping: nil, of: nil) }
            } else {
                run = TreeManifest(sorted: Array(entries[start..<end]), keeping: nil, of: nil)
            }
            result.append(run)
            // Edits that cancel out give a part stored already.
            if !parts.contains(where: { $0.id == run.id }) { made.append(run) }
            start = end
        }
        return TreeManifest(sorted: entries, parts: result, new: made)
    }

    /// A SHA-256 in lowercase hexadecimal: a part's id names a file, so nothing else is read.
    private static func isDigest(_ text: String) -> Bool {
        let digits = UInt8(ascii: "0")...UInt8(ascii: "9")
        let letters = UInt8(ascii: "a")...UInt8(ascii: "f")
        return text.utf8.count == 64 && text.utf8.allSatisfy { digits.contains($0) || letters.contains($0) }
    }

    /// A part as a listed manifest gives it: its bytes, checked against its id, parsed.
    static func parseParts(
        _ value: JSONValue, path: String, part read: (String) throws(StoreError) -> [UInt8]
    ) throws(StoreError) -> [TreeManifest] {
        guard let listed = value["parts"]?.arrayValue, !listed.isEmpty else {
            throw StoreError("the tree manifest '\(path)' is damaged: a format \(partedFormat) tree manifest without parts")
        }
        var parts: [TreeManifest] = []
        for item in listed {
            guard let id = item["part"]?.stringValue, let count = item["entries"]?.intValue, Self.isDigest(id) else {
                throw StoreError("the tree manifest '\(path)' is damaged: a part without an id or a count")
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
            parts.append(TreeManifest(entries: entries, stored: bytes, parts: []))
        }
        return parts
    }
}
