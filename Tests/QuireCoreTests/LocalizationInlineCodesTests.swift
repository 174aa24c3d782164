import Foundation
import Testing

@testable import QuireCore

/// Placeholders and link markup exported as XLIFF inline codes, read back exactly; codes a
/// translation drops or puts out of order are positioned errors.
@Suite struct LocalizationInlineCodesTests {
    static let units = [
        ExportUnit(
            key: "promo.title", sourceText: "Members save {percent} on {day}", translation: "Le {day}, les membres économisent {percent}",
            state: .translated),
        ExportUnit(
            key: "why.body",
            sourceText:
                "Read the [**official** rules](https://example.com/rules \"Rules\")"
                + " & ![logo {brand}](/logo.png), or <https://example.com>.\n",
            translation:
                "Lisez les [règles **officielles**](https://example.com/fr/rules"
                + " \"Règles\") & ![logo {brand}](/logo.png), ou <https://example.com>.\n",
            state: .translated, isMarkdown: true),
        ExportUnit(key: "code.body", sourceText: "Type `[x](y)` then {name}", state: .new, isMarkdown: true),
    ]

    private func export(_ format: ExportFormat) -> String {
        String(
            decoding: TranslationFileWriter.write(
                units: Self.units, pageID: "store", sourceLocale: "en", targetLocale: "fr", format: format),
            as: UTF8.self)
    }

    private func read(_ text: String) throws(Diagnostic) -> TranslationCatalog {
        try TranslationFileReader.read(Array(text.utf8), file: "store.xlf", format: .xliff).0
    }

    @Test func scannerSplitsCodesFromTextAndKeepsTheOriginal() {
        let text =
            "Read the [**official** rules](https://example.com/rules \"Rules\") & ![logo {brand}](/logo.png), or <https://example.com>.\n"
        let pieces = InlineCodeScanner.pieces(of: text, isMarkdown: true)
        #expect(
            pieces == [
                .text("Read the "),
                .span(start: "[", end: "](https://example.com/rules \"Rules\")", kind: .link, content: [.text("**official** rules")]),
                .text(" & "),
                .span(start: "![", end: "](/logo.png)", kind: .image, content: [.text("logo "), .code("{brand}", kind: .placeholder)]),
                .text(", or "), .code("<https://example.com>", kind: .link), .text(".\n"),
            ])
        #expect(InlinePiece.original(pieces) == text)
        // Not markdown: brackets are text, placeholders still codes.
        #expect(InlineCodeScanner.pieces(of: "[a](b) {n}", isMarkdown: false) == [.text("[a](b) "), .code("{n}", kind: .placeholder)])
    }

    /// What cmark does not read as an inline link stays text: a code span, a reference link.
    @Test func scannerDefersToCmark() {
        let pieces = InlineCodeScanner.pieces(of: "Type `[x](y)` then {name}", isMarkdown: true)
        #expect(pieces == [.text("Type `[x](y)` then "), .code("{name}", kind: .placeholder)])
        let reference = "See [the rules][r] and [more](https://b.example).\n\n[r]: https://a.example\n"
        let referencePieces = InlineCodeScanner.pieces(of: reference, isMarkdown: true)
        #expect(referencePieces == [.text(reference)], "cmark reads two links where the scanner finds one: no codes")
    }

    @Test func xliff12WritesPlaceholdersAndLinksAsCodes() {
        let text = export(.xliff12)
        #expect(
            text.contains(
                "<source>Members save <ph id=\"1\" ctype=\"x-placeholder\">{percent}"
                    + "</ph> on <ph id=\"2\" ctype=\"x-placeholder\">{day}</ph></source>"
            ))
        #expect(
            text.contains(
                "<target state=\"translated\">Le <ph id=\"2\" ctype=\"x-placeholder\">{day}</ph>, les membres économisent "
                    + "<ph id=\"1\" ctype=\"x-placeholder\">{percent}</ph></target>"), "moved codes keep their source ids")
        #expect(
            text.contains(
                "<source>Read the <bpt id=\"1\" ctype=\"link\">[</bpt>**official**"
                    + " rules<ept id=\"1\">](https://example.com/rules \"Rules\")</ept> &amp; "
                    + "<bpt id=\"2\" ctype=\"image\">![</bpt>logo <ph id=\"3\""
                    + " ctype=\"x-placeholder\">{brand}</ph><ept id=\"2\">](/logo.png)</ept>, or "
                    + "<ph id=\"4\" ctype=\"x-link\">&lt;https://example.com&gt;</ph>.\n</source>"), "\(text)")
        // The localized link's end differs from the source's: a code of its own.
        #expect(
            text.contains(
                "<bpt id=\"5\" ctype=\"link\">[</bpt>règles **officielles**<ept id=\"5\">](https://example.com/fr/rules \"Règles\")</ept>"))
    }

    @Test func xliff20WritesCodesWithOriginalData() {
        let text = export(.xliff20)
        #expect(
            text.contains(
                """
                      <originalData>
                        <data id="d1">{percent}</data>
                        <data id="d2">{day}</data>
                      </originalData>
                """))
        #expect(
            text.contains(
                "<source xml:space=\"preserve\">Members save <ph id=\"1\" dataRef=\"d1\""
                    + " canDelete=\"no\"/> on <ph id=\"2\" dataRef=\"d2\" canDelete=\"no\"/></source>"
            ))
        #expect(
            text.contains(
                "Read the <pc id=\"1\" type=\"link\" dataRefStart=\"d1\""
                    + " dataRefEnd=\"d2\" canDelete=\"no\">**official** rules</pc> &amp; "),
            "\(text)")
        #expect(text.contains("<data id=\"d7\">](https://example.com/fr/rules \"Règles\")</data>"), "\(text)")
    }

    /// Export -> read: every source and translation exactly as written, so nothing reads as stale.
    @Test(arguments: [ExportFormat.xliff12, .xliff20])
    func exportReadsBackExactly(format: ExportFormat) throws {
        let catalog = try read(export(format))
        #expect(catalog.entries.count == 2)
        for unit in Self.units where unit.translation != nil {
            let entry = try #require(catalog[unit.key])
            #expect(entry.text == unit.translation)
            #expect(entry.sourceText == unit.sourceText)
        }
    }

    /// A target whose link ends before it starts, or whose links cross, is refused where the
    /// misplaced `<ept>` is.
    @Test func xliff12MisplacedLinkEndIsAPositionedError() throws {
        let text = export(.xliff12)
        let target =
            "<bpt id=\"5\" ctype=\"link\">[</bpt>règles **officielles**<ept id=\"5\">](https://example.com/fr/rules \"Règles\")</ept>"
        let swapped =
            "<ept id=\"5\">](https://example.com/fr/rules \"Règles\")</ept>règles **officielles**<bpt id=\"5\" ctype=\"link\">[</bpt>"
        let reordered = text.replacingOccurrences(of: target, with: swapped)
        try #require(reordered != text)
        let error = try #require(L10nFixtures.diagnostic { () throws(Diagnostic) in _ = try read(reordered) })
        #expect(error.message.contains("the translation has inline code <ept id=\"5\"> before its <bpt id=\"5\">"), "\(error.message)")
        #expect(error.position == position(of: "<ept id=\"5\">", in: reordered))

        let crossing = text.replacingOccurrences(
            of:
                "<bpt id=\"2\" ctype=\"image\">![</bpt>logo <ph id=\"3\""
                + " ctype=\"x-placeholder\">{brand}</ph><ept id=\"2\">](/logo.png)</ept>, ou",
            with:
                "<bpt id=\"2\" ctype=\"image\">![</bpt>logo <bpt id=\"9\">[</bpt><ph id=\"3\""
                + " ctype=\"x-placeholder\">{brand}</ph><ept id=\"2\">](/logo.png)</ept><ept id=\"9\">](/x)</ept>, ou"
        )
        try #require(crossing != text)
        let crossed = try #require(L10nFixtures.diagnostic { () throws(Diagnostic) in _ = try read(crossing) })
        #expect(crossed.message.contains("inline code <ept id=\"2\"> ends while <bpt id=\"9\">"), "\(crossed.message)")
        #expect(crossed.position == position(of: "<ept id=\"2\">](/logo.png)</ept><ept", in: crossing))
    }

    /// A dropped code loses what it stood for: the import checks report it at the unit.
    @Test(arguments: [ExportFormat.xliff12, .xliff20])
    func droppedCodesAreErrorsAtTheUnit(format: ExportFormat) throws {
        var text = export(format)
        let placeholder =
            format == .xliff12
            ? "<ph id=\"1\" ctype=\"x-placeholder\">{percent}</ph></target>" : "<ph id=\"1\" dataRef=\"d1\" canDelete=\"no\"/></target>"
        let link =
            format == .xliff12
            ? "<bpt id=\"5\" ctype=\"link\">[</bpt>règles **officielles**<ept id=\"5\">](https://example.com/fr/rules \"Règles\")</ept>"
            : "<pc id=\"5\" type=\"link\" dataRefStart=\"d1\" dataRefEnd=\"d7\" canDelete=\"no\">règles **officielles**</pc>"
        try #require(text.contains(placeholder) && text.contains(link), "\(text)")
        text = text.replacingOccurrences(of: placeholder, with: "</target>").replacingOccurrences(of: link, with: "règles **officielles**")
        let catalog = try read(text)
        let strings = Self.units.map {
            LocalizableText(
                key: $0.key, keyPath: $0.key, text: $0.sourceText, position: .start, translatable: true, isMarkdown: $0.isMarkdown)
        }
        let (_, diagnostics) = PageTranslations.check([("fr", catalog)], strings: strings, links: .localized)
        let byKey = Dictionary(grouping: diagnostics.filter(\.isError), by: \.keyPath)
        #expect(byKey["promo.title"]?.first?.message == "the translation drops {percent}: keep the placeholders of the source text")
        #expect(
            byKey["promo.title"]?.first?.position
                == position(of: format == .xliff12 ? "<trans-unit id=\"promo.title\"" : "<unit id=\"promo.title\"", in: text))
        #expect(byKey["why.body"]?.first?.message.contains("the translation drops 1 link (2 for the source's 3)") == true, "\(diagnostics)")
    }

    /// Line and column (1-based, in characters) where `needle` starts.
    private func position(of needle: String, in text: String) -> SourcePosition? {
        guard let range = text.range(of: needle) else { return nil }
        let before = text[..<range.lowerBound]
        let line = before.split(separator: "\n", omittingEmptySubsequences: false).count
        let column = (before.lastIndex(of: "\n").map { before[before.index(after: $0)...] } ?? before).count + 1
        return SourcePosition(line: line, column: column)
    }
}
