import Foundation
import QuireTestSupport
import Testing

/// `quire schema`: the checked-in schemas are its output, and `--published --site` adds the site's
/// own section types (their markdown fields with their rendered forms) and lists its locales.
@Suite struct SchemaCommandTests {
    static let root = L10nWorkspace.packageRoot

    @Test(arguments: [
        (["schema"], "schema/page.schema.json"), (["schema", "--published"], "schema/published-page.schema.json"),
        (["schema", "--index"], "schema/page-index.schema.json"),
    ])
    func theCheckedInSchemaIsTheCommandsOutput(arguments: [String], file: String) throws {
        let run = try CommandRun.run(try QuireBinary.path(), arguments, in: Self.root)
        #expect(run.status == 0, "\(run.stderr)")
        let committed = try String(contentsOf: Self.root.appendingPathComponent(file), encoding: .utf8)
        #expect(run.stdout == committed, "\(file) is stale: run `quire \(arguments.joined(separator: " ")) > \(file)`")
    }

    @Test func aSitesPublishedSchemaHasItsOwnTypes() throws {
        let workspace = try L10nWorkspace()
        defer { workspace.remove() }
        try workspace.write(
            "pages/shop/vocabulary.yaml",
            """
            types:
              testimonial:
                summary: A quote.
                fields:
                  quote: {kind: markdown, required: true}
            """)
        let run = try workspace.quire(["schema", "--published", "--site", "shop"])
        #expect(run.status == 0, "\(run.stderr)")
        let schema = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
        let definitions = try #require(schema["$defs"] as? [String: Any])
        let testimonial = try #require(definitions["section_testimonial"] as? [String: Any])
        #expect(testimonial["required"] as? [String] == ["type", "quote", "quote_html", "quote_blocks"])
        #expect((definitions["section_hero_banner"] as? [String: Any]) != nil)
        let page = try #require(definitions["page"] as? [String: Any])
        let locale = try #require((page["properties"] as? [String: Any])?["locale"] as? [String: Any])
        #expect((locale["enum"] as? [String])?.isEmpty == false)

        #expect(try workspace.quire(["schema", "--published", "--strict"]).status == 2, "unknown options stay usage errors")
    }
}
