import QuireModel
import Testing

@testable import QuireCore

/// A tree manifest written entry by entry, and one made from an earlier manifest by copying its
/// unchanged entries, must be byte for byte what the JSON writer gives for the whole document:
/// the bytes are the tree's id.
@Suite("Tree manifest encoding")
struct TreeManifestEncodingTests {
    private func file(_ name: String, _ seed: Int, metadata: JSONValue? = nil) -> TreeManifest.Entry {
        let digest = SHA256.digest(Array("\(name)-\(seed)".utf8))
        return .init(
            name: name,
            kind: .file(PublishedFile(sha256: digest, size: seed * 37, inputDigest: Digest(digest.text + "+x"), metadata: metadata)))
    }

    private func folder(_ name: String, _ seed: Int) -> TreeManifest.Entry {
        .init(name: name, kind: .tree(SHA256.hash(Array("tree-\(name)-\(seed)".utf8))))
    }

    private var entries: [TreeManifest.Entry] {
        [
            file("page-b.json", 1, metadata: ["page_id": "b", "locale": "en", "ttl": 300, "tags": ["a \"quoted\" tag", "é/ü"]]),
            file("page-a.json", 2),
            folder("guides", 3),
            file("Zebra.html", 4, metadata: ["page_id": .null, "draft": false]),
            file("page-ç.json", 5, metadata: ["line\nbreak": "tab\there"]),
            file("say \"hi\"\\.json", 6),
        ]
    }

    /// The manifest built as a value and written whole: what the entry-by-entry bytes must equal.
    private func written(_ manifest: TreeManifest) -> [UInt8] {
        let entries: [JSONValue] = manifest.entries.map { entry in
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
        return JSONWriter(pretty: true).bytes(
            .object(JSONObject([("format", .integer(TreeManifest.format)), ("entries", .array(entries))])))
    }

    @Test("entry by entry gives the writer's bytes, for none, one and several entries")
    func encodesLikeTheWriter() throws {
        for count in [0, 1, entries.count] {
            let manifest = TreeManifest(entries: Array(entries.prefix(count)))
            #expect(manifest.bytes == written(manifest))
            #expect(manifest.id == SHA256.hash(written(manifest)))
            #expect(try TreeManifest(parsing: manifest.bytes, path: "t.json") { _ throws(StoreError) in [] }.entries == manifest.entries)
        }
    }

    @Test("an update (entries kept, changed, added, removed) equals a manifest of the resulting entries")
    func updatingGivesTheSameBytes() throws {
        let before = TreeManifest(entries: entries)
        let changes: [String: TreeManifest.Kind?] = [
            "page-b.json": file("page-b.json", 99, metadata: ["page_id": "b", "locale": "en", "ttl": 60]).kind,
            "page-a.json": TreeManifest.Kind?.none,
            "page-0.json": file("page-0.json", 7).kind,
            "aaa": folder("aaa", 8).kind,
            "not-there.json": TreeManifest.Kind?.none,
            "guides": folder("guides", 3).kind,  // unchanged
        ]
        var expected = entries.filter { $0.name != "page-a.json" && $0.name != "page-b.json" }
        expected += [
            file("page-b.json", 99, metadata: ["page_id": "b", "locale": "en", "ttl": 60]), file("page-0.json", 7), folder("aaa", 8),
        ]
        let updated = before.updating(changes)
        let fresh = TreeManifest(entries: expected)
        #expect(updated.entries == fresh.entries)
        #expect(updated.bytes == fresh.bytes)
        #expect(updated.id == fresh.id)
        #expect(updated.id != before.id)
        // And again from the updated one, which knows its own entries' places.
        let again = updated.updating(["aaa": TreeManifest.Kind?.none, "page-c.json": file("page-c.json", 1).kind])
        #expect(again.bytes == TreeManifest(entries: expected.filter { $0.name != "aaa" } + [file("page-c.json", 1)]).bytes)
        // Everything removed; nothing changed.
        var removeAll: [String: TreeManifest.Kind?] = [:]
        for entry in entries { removeAll[entry.name] = TreeManifest.Kind?.none }
        #expect(before.updating(removeAll).entries.isEmpty)
        #expect(before.updating([:]).bytes == before.bytes)
        // A manifest read back from disk has no places: it is encoded afresh, with equal bytes.
        let parsed = try TreeManifest(parsing: before.bytes, path: "t.json") { _ throws(StoreError) in [] }
        #expect(parsed.updating(changes).bytes == fresh.bytes)
        // So does the one a file index keeps once the bytes are stored, which holds none.
        #expect(before.stored.bytes.isEmpty && before.stored.id == before.id)
        #expect(before.stored.updating(changes).bytes == fresh.bytes)
        #expect(before.entry(named: "guides") == folder("guides", 3))
        #expect(before.entry(named: "guide") == nil)
    }

    @Test("the list of a folder's parts gives the writer's bytes, for none, one and many parts")
    func listsPartsLikeTheWriter() {
        let many = (0..<2_000).map { file("page-\(100_000 + $0).json", $0) }
        let parts = TreeManifest.cut(many)
        #expect(parts.count > 2)
        for count in [0, 1, parts.count] {
            let listed: [JSONValue] = parts.prefix(count).map { part in
                .object(JSONObject([("part", .string(part.id)), ("entries", .integer(part.entryCount))]))
            }
            let expected = JSONWriter(pretty: true).bytes(
                .object(JSONObject([("format", .integer(TreeManifest.partedFormat)), ("parts", .array(listed))])))
            #expect(TreeManifest.encodeParts(Array(parts.prefix(count))) == expected)
        }
        #expect(TreeManifest(entries: many).bytes == TreeManifest.encodeParts(parts))
    }
}
