import Foundation
import QuireModel
import QuireTestSupport
import Testing

@testable import QuireCore

/// A folder of many entries is listed in parts (`TreeManifest+Parts`): however the manifest is
/// made (whole, or by edits), equal entries must give equal parts and an equal id, an edit must
/// make only the parts around it, and the store must keep, check, collect and publish the parts.
@Suite("Tree manifests in parts")
struct TreeManifestPartsTests {
    private static func file(_ name: String, _ seed: Int) -> TreeManifest.Entry {
        let digest = SHA256.digest(Array("\(name)-\(seed)".utf8))
        let file = PublishedFile(sha256: digest, size: seed, inputDigest: digest, metadata: ["page_id": .string(name)])
        return .init(name: name, kind: .file(file))
    }

    private static func names(_ count: Int) -> [String] { (0..<count).map { String(format: "page-%05d.json", $0 * 3) } }

    /// The manifest's parts by id, as the store keeps them.
    /// `stored`: the parts' bytes as a store holds them (else the manifest's own parts').
    private static func reread(_ manifest: TreeManifest, stored: [String: [UInt8]]? = nil) throws -> TreeManifest {
        let parts = stored ?? Dictionary(manifest.parts.map { ($0.id, $0.bytes) }, uniquingKeysWith: { first, _ in first })
        return try TreeManifest(parsing: manifest.bytes, path: "t.json") { id throws(StoreError) in
            guard let bytes = parts[id] else { throw StoreError("no part \(id)") }
            return bytes
        }
    }

    @Test("a large folder is listed in parts that read back as its entries")
    func partsReadBack() throws {
        let entries = Self.names(3000).enumerated().map { Self.file($1, $0) }
        let manifest = TreeManifest(entries: entries.shuffled())
        #expect(manifest.entries == entries)
        #expect(manifest.parts.count > 3)
        #expect(manifest.parts.allSatisfy { $0.entries.count <= TreeManifest.longestPart && $0.parts.isEmpty })
        #expect(manifest.parts.flatMap(\.entries) == entries)
        #expect(manifest.parts.allSatisfy { $0.id == SHA256.hash($0.bytes) })
        #expect(manifest.id == SHA256.hash(manifest.bytes))
        #expect(manifest.bytes.count < 40_000, "the list names parts, not entries")
        let parsed = try Self.reread(manifest)
        #expect(parsed.entries == entries)
        #expect(parsed.id == manifest.id)
        // A small folder is listed whole, as before.
        let small = TreeManifest(entries: Array(entries.prefix(TreeManifest.partedFrom)))
        #expect(small.parts.isEmpty)
        // Planned without its bytes, it writes the same ones, and each of its new parts too.
        for planned in [manifest, small] {
            let unencoded = planned.unencoded
            #expect(unencoded.bytes.isEmpty && unencoded.id == planned.id)
            #expect(unencoded.canonicalBytes() == planned.bytes)
            #expect(unencoded.newParts.map { $0.canonicalBytes() } == planned.newParts.map(\.bytes))
        }
        #expect(!manifest.unencoded.newParts.isEmpty && manifest.stored.newParts.isEmpty)
    }

    @Test("parts another manifest holds are taken from it, the others read")
    func knownPartsAreNotRead() throws {
        let entries = Self.names(3000).enumerated().map { Self.file($1, $0) }
        let older = TreeManifest(entries: entries)
        let newer = older.updating([entries[1500].name: Self.file(entries[1500].name, 9).kind])
        let stored = Dictionary((older.parts + newer.parts).map { ($0.id, $0.bytes) }, uniquingKeysWith: { first, _ in first })
        var read: [String] = []
        let known = Dictionary(newer.stored.parts.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        let parsed = try TreeManifest(parsing: older.bytes, path: "t.json", known: known) { id throws(StoreError) in
            read.append(id)
            guard let bytes = stored[id] else { throw StoreError("no part \(id)") }
            return bytes
        }
        #expect(parsed.entries == entries && parsed.id == older.id)
        #expect(read == Set(older.parts.map(\.id)).subtracting(newer.parts.map(\.id)).sorted())
        #expect(read.count == 1, "the part of the edited entry")
    }

    @Test("edits give the manifest of the resulting entries, and make only the parts they touch")
    func editsMatchAFreshManifest() throws {
        var generator = SeededGenerator(seed: 34)
        var entries = Self.names(2000).enumerated().map { Self.file($1, $0) }
        var manifest = TreeManifest(entries: entries)
        var stored = Dictionary(manifest.parts.map { ($0.id, $0.bytes) }, uniquingKeysWith: { first, _ in first })
        for round in 0..<80 {
            var changes: [String: TreeManifest.Kind?] = [:]
            for _ in 0..<Int.random(in: 1...4, using: &generator) {
                switch Int.random(in: 0..<4, using: &generator) {
                case 0: if let entry = entries.randomElement(using: &generator) { changes[entry.name] = .some(nil) }
                case 1:
                    let name = String(format: "page-%05d.json", Int.random(in: 0..<7000, using: &generator))
                    changes[name] = Self.file(name, round * 100).kind
                case 2: if let entry = entries.first { changes[entry.name] = Self.file(entry.name, round * 7).kind }
                default:
                    if let entry = entries.randomElement(using: &generator) { changes[entry.name] = Self.file(entry.name, round * 13).kind }
                }
            }
            // Every other round from what a file index keeps: no bytes, its parts' re-encoded.
            let updated = (round.isMultiple(of: 2) ? manifest : manifest.stored).updating(changes)
            var byName = Dictionary(entries.map { ($0.name, $0) }, uniquingKeysWith: { $1 })
            for (name, kind) in changes { byName[name] = kind.map { TreeManifest.Entry(name: name, kind: $0) } }
            entries = byName.values.sorted { $0.name.utf8Precedes($1.name) }
            let fresh = TreeManifest(entries: entries)
            #expect(updated.entries == fresh.entries)
            #expect(updated.bytes == fresh.bytes, "round \(round)")
            #expect(updated.id == fresh.id)
            #expect(updated.parts.map(\.id) == fresh.parts.map(\.id))
            let freshParts = Dictionary(fresh.parts.map { ($0.id, $0.bytes) }, uniquingKeysWith: { $1 })
            #expect(updated.newParts.allSatisfy { freshParts[$0.id] == $0.bytes })
            // What the edit made is what the earlier manifest lacked, and stays near the changes.
            let before = Set(manifest.parts.map(\.id))
            #expect(Set(updated.newParts.map(\.id)) == Set(updated.parts.map(\.id)).subtracting(before))
            #expect(updated.newParts.count <= 3 * changes.count, "round \(round): \(updated.newParts.count) new parts")
            for part in updated.newParts { stored[part.id] = part.bytes }
            #expect(try Self.reread(updated, stored: stored).entries == entries)
            // Found through the parts without gathering the entries.
            #expect(updated.entryCount == entries.count)
            for entry in entries.shuffled(using: &generator).prefix(20) { #expect(updated.entry(named: entry.name) == entry) }
            #expect(updated.entry(named: "page-99999.json") == nil && updated.entry(named: "a.json") == nil)
            manifest = updated
        }
    }

    /// Retention keeps what a tree's subfolders are: for a manifest in parts, found part by part
    /// (each part looked at once), they must be every subtree of its entries, in order, after edits.
    @Test("the subtrees of a folder in parts are those of its entries, after edits too")
    func subtreesOfPartsAreThoseOfTheEntries() {
        let subtree = { (name: String) in TreeManifest.Entry(name: name, kind: .tree(SHA256.hash(Array(name.utf8)))) }
        let entries = Self.names(3000).enumerated().map { $0 % 97 == 0 ? subtree($1) : Self.file($1, $0) }
        let manifest = TreeManifest(entries: entries)
        let edited = manifest.updating([
            entries[0].name: TreeManifest.Kind?.none, "page-00004.json": subtree("page-00004.json").kind,
            entries[970].name: Self.file(entries[970].name, 1).kind,
        ])
        let children = TreeChildren()
        children.learn([(id: manifest.id, manifest: manifest)])
        children.learn([(id: edited.id, manifest: edited)])
        for tree in [manifest, edited] {
            let expected = tree.entries.compactMap { entry -> String? in
                guard case .tree(let id) = entry.kind else { return nil }
                return id
            }
            #expect(children.known[tree.id]?.subtrees == expected && expected.count > 20)
            #expect(children.known[tree.id]?.parts == tree.parts.map(\.id))
        }
        #expect(children.known[manifest.id]?.subtrees != children.known[edited.id]?.subtrees)
    }

    @Test("a folder that grows past the threshold is listed in parts, and whole again when it shrinks")
    func crossingTheThreshold() {
        let entries = Self.names(TreeManifest.partedFrom + 1).enumerated().map { Self.file($1, $0) }
        let whole = TreeManifest(entries: Array(entries.dropLast()))
        #expect(whole.parts.isEmpty)
        let grown = whole.updating([entries.last!.name: entries.last!.kind])
        #expect(!grown.parts.isEmpty)
        #expect(grown.bytes == TreeManifest(entries: entries).bytes)
        #expect(whole.stored.updating([entries.last!.name: entries.last!.kind]).bytes == grown.bytes)
        #expect(grown.stored.updating([entries.last!.name: TreeManifest.Kind?.none]).bytes == whole.bytes)
        let shrunk = grown.updating([entries.last!.name: TreeManifest.Kind?.none])
        #expect(shrunk.parts.isEmpty)
        #expect(shrunk.bytes == whole.bytes)
    }

    @Test("the store publishes, verifies, collects and delta-publishes a folder in parts")
    func storeKeepsParts() throws {
        let dist = TemporaryDist()
        let store = try dist.store()
        try store.spareFolders.keep()
        let folder = (0..<1500).map { page(String(format: "en/p-%05d.json", $0), #"{"n":\#($0)}"#) }
        _ = try store.publish(request(baseFiles + folder))
        let trees = dist.path + "/trex/trees"
        // Manifests without a folder.
        let partsStored = {
            try FileSystem.list(trees).filter { $0.hasSuffix(".json") && !FileSystem.exists(trees + "/" + String($0.dropLast(5))) }
        }
        let first = try partsStored()
        #expect(first.count > 3, "the parts of en, beside the manifests")
        #expect(try store.operations.verify().isEmpty)

        for round in 0..<3 {
            store.spareFolders.prepare { false }
            let base = try #require(try store.reader.newestVersion())
            let files = [page("en/p-00700.json", #"{"n":"edit \#(round)"}"#), page("en/p-00701x.json", "{}")]
            let delta = PublishDelta(
                base: base, files: files, removed: round == 0 ? ["en/p-00010.json"] : [],
                manifest: JSONObject([("locales", ["en", "fr"])]), buildRecord: JSONObject())
            #expect(try store.publish(delta) == .published(VersionID(base.number + 1), isCurrent: true))
            #expect(try store.operations.verify().isEmpty)
        }
        #expect(store.spareFolders.taken == 3, "each edit of en through its spare")
        #expect(readText(dist.path + "/trex/current/en/p-00700.json") == #"{"n":"edit 2"}"#)
        #expect(!FileSystem.exists(dist.path + "/trex/current/en/p-00010.json"))
        // Only the parts around the edits are new.
        let afterEdits = try partsStored()
        #expect(afterEdits.count < first.count + 10)

        // A fresh index (another process) reads the parts back: a delta over it, and a full build of
        // the same files, give the newest version's tree.
        let other = try dist.store()
        let newest = try #require(try store.reader.newestVersion())
        let reread = try other.reader.files(of: newest)
        #expect(reread == (try store.reader.files(of: newest)))

        // Broken or missing parts are found by verify.
        let layout = SiteLayout(root: dist.path + "/trex")
        let enParts = try TreeManifest.read(try #require(treeOfEn(dist)), layout: layout).parts.map { $0.id + ".json" }
        let part = try #require(enParts.first { !first.contains($0) }, "a part the edits made")
        let bytes = try FileSystem.readFile(trees + "/" + part)
        try FileSystem.remove(trees + "/" + part)
        #expect(try !store.operations.verify().isEmpty)
        try FileSystem.createFile(trees + "/" + part, Array("{}".utf8))
        #expect(try !store.operations.verify().isEmpty)
        try FileSystem.remove(trees + "/" + part)
        try FileSystem.createFile(trees + "/" + part, bytes)
        #expect(try store.operations.verify().isEmpty)

        // gc keeps the newest version's parts and removes the others.
        store.spareFolders.close()
        _ = try store.operations.gc(keep: 1)
        let kept = try partsStored()
        #expect(kept.count < afterEdits.count)
        let manifest = try TreeManifest.read(try #require(treeOfEn(dist)), layout: layout)
        #expect(!manifest.parts.isEmpty)
        #expect(Set(manifest.parts.map { $0.id + ".json" }).isSubset(of: Set(kept)))
        #expect(try store.operations.verify().isEmpty)
    }

    /// The tree id `current/en` links to.
    private func treeOfEn(_ dist: TemporaryDist) -> String? {
        link(dist.path + "/trex/current/en").map { String($0.split(separator: "/").last ?? "") }
    }
}
