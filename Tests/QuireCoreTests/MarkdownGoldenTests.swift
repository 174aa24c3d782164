import Foundation
import QuireCore
import QuireModel
import Testing

/// Golden files in `Fixtures/markdown/`: `<name>.md` in, `<name>.blocks.json` (pretty, written by
/// `JSONWriter`) and `<name>.html` out. Run with `QUIRE_RECORD_GOLDEN=1` to write the outputs
/// anew, then review the diff before committing it.
@Suite struct MarkdownGoldenTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("Fixtures/markdown")

    static let names = [
        "heading", "paragraph", "emphasis", "link", "image", "list", "quote", "code", "thematic-break",
        "raw-html", "unsafe-link", "mixed",
    ]

    @Test(arguments: names)
    func matchesGoldenFiles(_ name: String) throws {
        let source = try String(contentsOf: Self.fixtures.appendingPathComponent("\(name).md"), encoding: .utf8)
        let rendered = MarkdownRenderer.render(source)
        let blocks = JSONWriter(pretty: true).string(rendered.blocks)
        let blocksURL = Self.fixtures.appendingPathComponent("\(name).blocks.json")
        let htmlURL = Self.fixtures.appendingPathComponent("\(name).html")

        if ProcessInfo.processInfo.environment["QUIRE_RECORD_GOLDEN"] == "1" {
            try blocks.write(to: blocksURL, atomically: true, encoding: .utf8)
            try rendered.html.write(to: htmlURL, atomically: true, encoding: .utf8)
            return
        }
        #expect(blocks == (try String(contentsOf: blocksURL, encoding: .utf8)), "blocks of \(name).md")
        #expect(rendered.html == (try String(contentsOf: htmlURL, encoding: .utf8)), "html of \(name).md")
    }

    @Test func everyFixtureIsListed() throws {
        let files = try FileManager.default.contentsOfDirectory(atPath: Self.fixtures.path)
        let sources = files.filter { $0.hasSuffix(".md") }.map { String($0.dropLast(3)) }
        #expect(Set(sources) == Set(Self.names))
    }
}
