import Foundation
import Glibc
import Testing

@testable import QuireCore

/// The machine's floors `quire-bench` prints. `WriteFloor` must write what the published tree
/// holds (no more, no less), and a save's barrier must leave its link on the last round;
/// `LibraryFloor` must run libyaml over every source file and cmark over every text it is given.
@Suite struct WriteFloorTests {
    @Test func rewritesEveryRegularFileOfATreeWithItsSizeAndFolder() throws {
        let dist = TemporaryDist()
        let tree = dist.path + "/site"
        try FileSystem.makeDirectories(tree + "/trees/a/b")
        try FileSystem.makeDirectories(tree + "/empty")
        try FileSystem.createFile(tree + "/manifest.json", Array(repeating: 1, count: 300))
        try FileSystem.createFile(tree + "/trees/a/page.json", Array(repeating: 2, count: 5000))
        try FileSystem.createFile(tree + "/trees/a/empty.json", [])
        try FileSystem.createFile(tree + "/trees/a/b/deep.html", Array(repeating: 3, count: 70))
        #expect(symlink("trees/a", tree + "/current") == 0)
        #expect(link(tree + "/trees/a/page.json", tree + "/trees/hard.json") == 0)

        let shape = try WriteFloor.shape(of: tree)
        // A hard link is a file of the tree; a symbolic link and an empty folder are not.
        #expect(Set(shape.map { $0.sorted() }) == [[300], [0, 5000], [70], [5000]])

        let figures = try WriteFloor.write(shape, into: dist.path + "/floor")
        #expect(figures.folders == 4)
        #expect(figures.files == 5)
        #expect(figures.bytes == 300 + 5000 + 70 + 5000)
        #expect(figures.syncedSeconds >= figures.writeSeconds)
        let written = try WriteFloor.shape(of: dist.path + "/floor")
        #expect(
            written.map { $0.sorted() }.sorted { $0.lexicographicallyPrecedes($1) }
                == shape.map { $0.sorted() }.sorted { $0.lexicographicallyPrecedes($1) })
    }

    @Test func aSaveBarrierSwapsItsLinkToEachRoundInTurn() throws {
        let dist = TemporaryDist()
        let scratch = dist.path + "/save"
        let rounds = try WriteFloor.saveBarrier(sizes: [10, 20, 30], rounds: 4, in: scratch)
        #expect(rounds.count == 4)
        #expect(rounds.allSatisfy { $0 > 0 })
        #expect(link(scratch + "/current") == "3")
        #expect(try WriteFloor.shape(of: scratch).map { $0.sorted() } == Array(repeating: [10, 20, 30], count: 4))
        // The floor refuses a folder that is there already: it measures new files only.
        #expect(throws: StoreError.self) { try WriteFloor.saveBarrier(sizes: [1], rounds: 1, in: scratch) }
    }

    @Test func theLibraryFloorParsesEverySourceFileAndRendersEveryText() throws {
        let dist = TemporaryDist()
        let pages = dist.path + "/pages"
        try FileSystem.makeDirectories(pages + "/site/l10n/fr")
        try FileSystem.createFile(pages + "/site/home.yaml", Array("a: 1\n".utf8))
        try FileSystem.createFile(pages + "/site/l10n/fr/home.yml", Array("- x\n- y\n".utf8))
        try FileSystem.createFile(pages + "/site/notes.txt", Array("not: [yaml".utf8))

        let figures = try LibraryFloor.measure(sources: pages, markdown: ["# Hi", "*x*", ""])
        #expect(figures.sourceFiles == 2)
        #expect(figures.sourceBytes == 5 + 8)
        // Stream, document, collection: start and end each; then the scalars (a, 1 / x, y).
        #expect(figures.yamlEvents == 2 * (6 + 2))
        #expect(figures.markdownDocuments == 3)
        #expect(figures.markdownBytes == 7)
        #expect(CommonMarkDocument.htmlLength(of: "# Hi") == "<h1>Hi</h1>\n".utf8.count)

        try FileSystem.createFile(pages + "/site/broken.yaml", Array("a: [1\n".utf8))
        #expect(throws: StoreError.self) { try LibraryFloor.measure(sources: pages, markdown: []) }
    }
}
