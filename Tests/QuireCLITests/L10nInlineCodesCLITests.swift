import Foundation
import Testing

/// `quire l10n export` writes placeholders and link markup as XLIFF inline codes; `quire l10n
/// import` of a file whose translation drops or misplaces one reports it at path:line:col.
@Suite struct L10nInlineCodesCLITests {
    @Test func droppedAndMisplacedCodesArePositionedErrors() throws {
        let workspace = try L10nWorkspace()
        defer { workspace.remove() }
        let export = try workspace.quire([
            "l10n", "export", "--site", "shop", "--locale", "fr", "--format", "xliff12", "--out", workspace.path("out"),
        ])
        #expect(export.status == 0, "\(export.stderr)")
        let exported = try workspace.read("out/store.xlf")
        let placeholder = "économisent <ph id=\"1\" ctype=\"x-placeholder\">{percent}</ph></target>"
        let link = "<bpt id=\"1\" ctype=\"link\">[</bpt>règles<ept id=\"1\">](https://example.com/rules)</ept>"
        try #require(exported.contains(placeholder) && exported.contains(link), "\(exported)")
        let file = workspace.path("out/store.xlf")

        try workspace.write("out/store.xlf", exported.replacingOccurrences(of: placeholder, with: "économisent</target>"))
        let dropped = try workspace.quire(["l10n", "import", file, "--site", "shop"])
        #expect(dropped.status == 1)
        let unit = try #require(Self.position(of: "<trans-unit id=\"promo.title\"", in: exported))
        #expect(dropped.stderr.contains("\(file):\(unit): error: promo.title: the translation drops {percent}"), "\(dropped.stderr)")

        let swapped = "<ept id=\"1\">](https://example.com/rules)</ept>règles<bpt id=\"1\" ctype=\"link\">[</bpt>"
        let reordered = exported.replacingOccurrences(of: link, with: swapped)
        try workspace.write("out/store.xlf", reordered)
        let misplaced = try workspace.quire(["l10n", "import", file, "--site", "shop"])
        #expect(misplaced.status == 1)
        let end = try #require(Self.position(of: swapped, in: reordered))
        #expect(
            misplaced.stderr.contains("\(file):\(end): error: the translation has inline code <ept id=\"1\"> before its <bpt id=\"1\">"),
            "\(misplaced.stderr)")
        #expect(try workspace.read("pages/shop/l10n/fr/store.yaml").contains("Lisez les [règles]"), "nothing imported")
    }

    /// `line:column` (1-based, in characters) where `needle` starts.
    static func position(of needle: String, in text: String) -> String? {
        guard let range = text.range(of: needle) else { return nil }
        let before = text[..<range.lowerBound]
        let line = before.split(separator: "\n", omittingEmptySubsequences: false).count
        let column = (before.lastIndex(of: "\n").map { before[before.index(after: $0)...] } ?? before).count + 1
        return "\(line):\(column)"
    }
}
