import Testing

@testable import QuireCore

/// The paths a version may hold: checked byte by byte for every published file.
@Suite struct TreePlannerPathTests {
    @Test(arguments: [
        ("en/a.json", 2), ("preview/en/a.html", 7), ("assets/x/y/z.css", 6), ("é/ü.json", 2), ("en/.hidden", 2),
        ("en/...", 2), ("manifest.json.d/a", 15), ("en/manifest.json", 2),
    ])
    func allowed(path: String, topLevel: Int) throws {
        #expect(try TreePlanner.check(path) == topLevel)
    }

    @Test(arguments: [
        ("a.json", "must be inside a folder"), ("", "must be inside a folder"), ("..", "must be inside a folder"),
        ("en//a.json", "segments are not allowed"), ("/en/a.json", "segments are not allowed"), ("en/", "segments are not allowed"),
        ("en/./a.json", "segments are not allowed"), ("en/../a.json", "segments are not allowed"), ("./a", "segments are not allowed"),
        ("en/a\u{0}.json", "segments are not allowed"), ("manifest.json/a", "'manifest.json' is the version's own file"),
        ("build.json/x/y", "'build.json' is the version's own file"), ("build.json/../y", "segments are not allowed"),
    ])
    func refused(path: String, message: String) {
        #expect {
            try TreePlanner.check(path)
        } throws: { error in
            "\(error)".contains(message)
        }
    }

    private func plan(_ paths: [String]) throws -> [(name: String, tree: PlannedTree)] {
        let bytes = Array("{}".utf8)
        return try TreePlanner(previous: FileIndex()).plan(paths.map { OutputFile(path: $0, content: .bytes(bytes), inputDigest: "d") })
    }

    @Test func refusesANameListedTwiceOrAsFileAndFolder() {
        #expect(throws: StoreError.self) { try plan(["en/a.json", "es/b.json", "en/a.json"]) }
        #expect(throws: StoreError.self) { try plan(["en/guides", "en/guides/a.json"]) }
    }

    /// Many top-level folders (more than are looked through before the dictionary) and more
    /// files than one thread groups: every file lands in its folder, and the folders come sorted.
    @Test func groupsEveryFileUnderItsTopLevelFolder() throws {
        let folders = (0..<12).map { "f\($0)" } + ["preview"]
        var paths: [String] = []
        for page in 0..<1000 {
            for folder in folders { paths.append("\(folder)/page-\(page).json") }
        }
        let planned = try plan(paths)
        #expect(planned.map(\.name) == folders.sorted { $0.utf8Precedes($1) })
        #expect(planned.allSatisfy { $0.tree.fileCount == 1000 })
        #expect(planned.first { $0.name == "preview" }?.tree.manifest.entry(named: "page-999.json") != nil)
    }

    /// A planned tree lists its files in name order, by bytes, and finds each by name (names
    /// that sort apart by bytes and by characters, one before every other, one after).
    @Test func aPlannedTreeFindsEachFileByName() throws {
        let names = ["b.json", "a.json", "É.json", "z.json", "a-b.json", "a.jsonx", "0.json"]
        let tree = try #require(try plan(names.map { "en/\($0)" }).first?.tree)
        #expect(tree.files.names == names.sorted { $0.utf8Precedes($1) })
        for name in names {
            guard case .bytes(let bytes)? = tree.files[name] else {
                Issue.record("\(name) not found")
                continue
            }
            #expect(bytes == Array("{}".utf8))
        }
        for absent in ["", "a", "a.js", "zz.json", "É", "00.json"] { #expect(tree.files[absent] == nil, "\(absent)") }
        let fromDictionary = PlannedFiles(
            Dictionary(uniqueKeysWithValues: names.map { ($0, PlannedTree.FileSource.storedFile("t/\($0)")) }))
        #expect(fromDictionary.names == tree.files.names)
        #expect(names.allSatisfy { name in if case .storedFile("t/\(name)")? = fromDictionary[name] { true } else { false } })
    }

    /// A version's files are found by their bytes to be linked, through a table keyed by 64 of
    /// the SHA-256's bits: a file whose first bits another's share is not linked (written again),
    /// never answered with the other's path.
    @Test func aFileFoundByItsBytesIsNeverAnotherWithTheSameFirstBits() {
        let shared = String(repeating: "ab", count: 8)
        let (first, second, other) = (
            Digest(shared + String(repeating: "0", count: 48)), Digest(shared + String(repeating: "1", count: 48)),
            Digest(String(repeating: "cd", count: 32))
        )
        #expect(first.leadingBits == second.leadingBits && first != second && first.leadingBits != other.leadingBits)
        let manifest = TreeManifest(entries: [
            .init(name: "a.json", kind: .file(PublishedFile(sha256: first, size: 2, inputDigest: "i"))),
            .init(name: "b.json", kind: .file(PublishedFile(sha256: second, size: 2, inputDigest: "i"))),
            .init(name: "c.json", kind: .file(PublishedFile(sha256: other, size: 2, inputDigest: "i"))),
        ])
        var index = FileIndex()
        index.record(folder: "en", tree: manifest.id, manifest: manifest, layout: SiteLayout(root: "/d/s"))
        let tree = "/d/s/trees/" + manifest.id
        #expect(index.storedFile(sha256: second) == tree + "/b.json")
        #expect(index.storedFile(sha256: first) == nil)
        #expect(index.storedFile(sha256: other) == tree + "/c.json")
        #expect(index.storedFile(sha256: Digest(String(repeating: "ef", count: 32))) == nil)
    }
}
