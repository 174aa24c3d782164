import QuireCore
import QuireModel
import Testing

@testable import QuireDashboard

/// The YAML a form save writes, and the comments it would drop.
struct SourceTextTests {
    static let strings: [String] = [
        "plain words", "no", "yes", "true", "null", "~", "0x1F", "1e3", "-5", ".inf", "", " leading space", "trailing space ",
        "key: value", "a #hash", "#start", "- dash", "? mark", "@at", "`tick`", "'single'", "\"double\"", "{brace}", "[bracket]",
        "line\nbreak", "line\nbreak\n", "two\n\n", "\n starts with a break", "  indented\nblock\n", "tab\there", "cr\r\nlf",
        "bell\u{7}", "ünïcödé ✓", "emoji 🦖", "...", "---", "a: b\nc: d\n", "### Heading\n\nBody with **bold** and [a link](https://x.io)\n",
        "line with trailing spaces   \nnext\n", "\u{2028}separator", "\u{FEFF}bom",
    ]

    @Test(arguments: strings)
    func aStringReadsBackAsItself(_ text: String) throws {
        let document = JSONValue.object(
            JSONObject([("title", .string(text)), ("sections", [["type": "markdown_block", "body": .string(text)]]), (text, 1)]))
        let written = try #require(YAMLWriter.text(document))
        #expect(try SourceParser.parse(Array(written.utf8), format: .yaml, file: "x").json == document)
    }

    @Test func markdownIsWrittenAsALiteralBlock() throws {
        let document: JSONValue = ["sections": [["type": "markdown_block", "id": "why", "body": "### Why\nUsing **kit**.\n"]]]
        let written = try #require(YAMLWriter.text(document))
        #expect(written == "sections:\n  - type: markdown_block\n    id: why\n    body: |\n      ### Why\n      Using **kit**.\n")
    }

    @Test func numbersBooleansAndEmptyCollections() throws {
        let document: JSONValue = ["ttl": 300, "ratio": 0.5, "draft": false, "nav": [], "refresh": [:], "gone": nil]
        let written = try #require(YAMLWriter.text(document))
        #expect(written == "ttl: 300\nratio: 0.5\ndraft: false\nnav: []\nrefresh: {}\ngone: null\n")
    }

    static let withComments = [
        "# a comment\ntitle: x\n", "title: x # trailing\n", "sections:\n  - type: hero_banner  # why\n",
        "body: |\n  text\n# back at the top\n",
    ]
    static let withoutComments = [
        "title: \"a # in quotes\"\n", "title: a#b\n", "body: |\n  ### a heading\n  # another\n",
        "items:\n  - body: |\n      # heading\n    x: 1\n",
        "url: https://x.io/#anchor\n",
    ]

    @Test(arguments: withComments)
    func commentsAreFound(_ text: String) { #expect(YAMLComments.present(in: text)) }

    @Test(arguments: withoutComments)
    func hashesThatAreTextAreNotComments(_ text: String) { #expect(!YAMLComments.present(in: text)) }
}
