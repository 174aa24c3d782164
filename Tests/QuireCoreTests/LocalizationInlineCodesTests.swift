import Foundation
import QuireTestSupport
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
        let text = Self.units[1].sourceText
        let pieces = InlineCodeScanner.pieces(of: text, isMarkdown: true)
        let bold = InlinePiece.span(start: "**", end: "**", kind: .bold, content: [.text("official")])
        #expect(
            pieces == [
                .text("Read the "),
                .span(start: "[", end: "](https://example.com/rules \"Rules\")", kind: .link, content: [bold, .text(" rules")]),
                .text(" & "),
                .span(start: "![", end: "](/logo.png)", kind: .image, content: [.text("logo "), .code("{brand}", kind: .placeholder)]),
                .text(", or "), .code("<https://example.com>", kind: .link), .text(".\n"),
            ])
        #expect(InlinePiece.original(pieces) == text)
        // Not markdown: brackets and stars are text, placeholders still codes.
        #expect(
            InlineCodeScanner.pieces(of: "[a](b) **{n}**", isMarkdown: false) == [
                .text("[a](b) **"), .code("{n}", kind: .placeholder), .text("**"),
            ])
    }

    /// What cmark does not read as a link stays text: a code span, a reference link.
    @Test func scannerDefersToCmarkForLinks() {
        let pieces = InlineCodeScanner.pieces(of: "Type `[x](y)` then {name}", isMarkdown: true)
        #expect(pieces == [.text("Type `[x](y)` then "), .code("{name}", kind: .placeholder)])
        let reference = "See [the rules][r] and [more](https://b.example).\n\n[r]: https://a.example\n"
        let referencePieces = InlineCodeScanner.pieces(of: reference, isMarkdown: true)
        #expect(referencePieces == [.text(reference)], "cmark reads two links where the scanner finds one: no codes")
    }

    /// Emphasis is where cmark read it: nested, either delimiter, never inside a word's `_`;
    /// where cmark's positions drift (continuation lines in a quote), no emphasis codes at all.
    @Test func scannerTakesEmphasisFromCmark() {
        let pieces = InlineCodeScanner.pieces(of: "***both*** and _x_ in snake_case_name", isMarkdown: true)
        #expect(
            pieces == [
                .span(
                    start: "*", end: "*", kind: .italic,
                    content: [.span(start: "**", end: "**", kind: .bold, content: [.text("both")])]),
                .text(" and "), .span(start: "_", end: "_", kind: .italic, content: [.text("x")]), .text(" in snake_case_name"),
            ])
        let quote = "> quote *x*\n>   more __y__\n"
        #expect(InlineCodeScanner.pieces(of: quote, isMarkdown: true) == [.text(quote)])
    }

    @Test func xliff12WritesPlaceholdersLinksAndEmphasisAsCodes() {
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
                "<source>Read the <bpt id=\"1\" ctype=\"link\">[</bpt><bpt id=\"2\" ctype=\"bold\">**</bpt>official<ept id=\"2\">**</ept>"
                    + " rules<ept id=\"1\">](https://example.com/rules \"Rules\")</ept> &amp; "
                    + "<bpt id=\"3\" ctype=\"image\">![</bpt>logo <ph id=\"4\""
                    + " ctype=\"x-placeholder\">{brand}</ph><ept id=\"3\">](/logo.png)</ept>, or "
                    + "<ph id=\"5\" ctype=\"x-link\">&lt;https://example.com&gt;</ph>.\n</source>"), "\(text)")
        // The localized link's end differs from the source's: a code of its own.
        #expect(text.contains(Self.translatedLink12), "\(text)")
    }

    static let translatedLink12 =
        "<bpt id=\"6\" ctype=\"link\">[</bpt>règles <bpt id=\"2\" ctype=\"bold\">**</bpt>officielles<ept id=\"2\">**</ept>"
        + "<ept id=\"6\">](https://example.com/fr/rules \"Règles\")</ept>"
    static let translatedLink20 =
        "<pc id=\"6\" type=\"link\" dataRefStart=\"d1\" dataRefEnd=\"d8\" canDelete=\"no\">"
        + "règles <pc id=\"2\" type=\"fmt\" dataRefStart=\"d2\" dataRefEnd=\"d2\">officielles</pc></pc>"

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
                "Read the <pc id=\"1\" type=\"link\" dataRefStart=\"d1\" dataRefEnd=\"d3\" canDelete=\"no\">"
                    + "<pc id=\"2\" type=\"fmt\" dataRefStart=\"d2\" dataRefEnd=\"d2\">official</pc> rules</pc> &amp; "),
            "\(text)")
        #expect(text.contains(Self.translatedLink20), "\(text)")
        #expect(text.contains("<data id=\"d8\">](https://example.com/fr/rules \"Règles\")</data>"), "\(text)")
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

    /// A target whose link ends before it starts, whose codes cross, or that keeps one code of a
    /// pair, is refused where the misplaced code is.
    @Test func xliff12MisplacedPairCodesArePositionedErrors() throws {
        let text = export(.xliff12)
        let swapped =
            "<ept id=\"6\">](https://example.com/fr/rules \"Règles\")</ept>règles <bpt id=\"2\" ctype=\"bold\">**</bpt>officielles"
            + "<ept id=\"2\">**</ept><bpt id=\"6\" ctype=\"link\">[</bpt>"
        let reordered = text.replacingOccurrences(of: Self.translatedLink12, with: swapped)
        try #require(reordered != text)
        let error = try #require(L10nFixtures.diagnostic { () throws(Diagnostic) in _ = try read(reordered) })
        #expect(error.message.contains("the translation has inline code <ept id=\"6\"> before its <bpt id=\"6\">"), "\(error.message)")
        #expect(error.position == position(of: "<ept id=\"6\">", in: reordered))

        let crossing = text.replacingOccurrences(
            of:
                "<bpt id=\"3\" ctype=\"image\">![</bpt>logo <ph id=\"4\""
                + " ctype=\"x-placeholder\">{brand}</ph><ept id=\"3\">](/logo.png)</ept>, ou",
            with:
                "<bpt id=\"3\" ctype=\"image\">![</bpt>logo <bpt id=\"9\">[</bpt><ph id=\"4\""
                + " ctype=\"x-placeholder\">{brand}</ph><ept id=\"3\">](/logo.png)</ept><ept id=\"9\">](/x)</ept>, ou"
        )
        try #require(crossing != text)
        let crossed = try #require(L10nFixtures.diagnostic { () throws(Diagnostic) in _ = try read(crossing) })
        #expect(crossed.message.contains("inline code <ept id=\"3\"> ends while <bpt id=\"9\">"), "\(crossed.message)")
        #expect(crossed.position == position(of: "<ept id=\"3\">](/logo.png)</ept><ept", in: crossing))

        let halfBold = text.replacingOccurrences(of: Self.translatedLink12, with: "règles <bpt id=\"2\" ctype=\"bold\">**</bpt>officielles")
        try #require(halfBold != text)
        let unended = try #require(L10nFixtures.diagnostic { () throws(Diagnostic) in _ = try read(halfBold) })
        #expect(unended.message.contains("the translation has inline code <bpt id=\"2\"> without its <ept id=\"2\">"), "\(unended.message)")
        #expect(unended.position == position(of: "<bpt id=\"2\" ctype=\"bold\">**</bpt>officielles", in: halfBold))
    }

    /// A dropped code loses what it stood for: the import checks report it at the unit.
    @Test(arguments: [ExportFormat.xliff12, .xliff20])
    func droppedCodesAreErrorsAtTheUnit(format: ExportFormat) throws {
        var text = export(format)
        let placeholder =
            format == .xliff12
            ? "<ph id=\"1\" ctype=\"x-placeholder\">{percent}</ph></target>" : "<ph id=\"1\" dataRef=\"d1\" canDelete=\"no\"/></target>"
        let link = format == .xliff12 ? Self.translatedLink12 : Self.translatedLink20
        let linkText =
            format == .xliff12
            ? "règles <bpt id=\"2\" ctype=\"bold\">**</bpt>officielles<ept id=\"2\">**</ept>"
            : "règles <pc id=\"2\" type=\"fmt\" dataRefStart=\"d2\" dataRefEnd=\"d2\">officielles</pc>"
        try #require(text.contains(placeholder) && text.contains(link), "\(text)")
        text = text.replacingOccurrences(of: placeholder, with: "</target>").replacingOccurrences(of: link, with: linkText)
        let catalog = try read(text)
        #expect(catalog["why.body"]?.text.hasPrefix("Lisez les règles **officielles** & ![logo {brand}]") == true)
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

    /// Every markdown golden file, exported as source and translation in both XLIFF versions,
    /// reads back byte for byte; what the scanner can protect there, it does.
    @Test(arguments: MarkdownGoldenTests.names)
    func markdownGoldenFilesRoundTrip(name: String) throws {
        let markdown = try String(contentsOf: MarkdownGoldenTests.fixtures.appendingPathComponent("\(name).md"), encoding: .utf8)
        let unit = ExportUnit(key: "body", sourceText: markdown, translation: markdown, state: .translated, isMarkdown: true)
        for format in [ExportFormat.xliff12, .xliff20] {
            let bytes = TranslationFileWriter.write(units: [unit], pageID: "page", sourceLocale: "en", targetLocale: "fr", format: format)
            let entry = try #require(try TranslationFileReader.read(bytes, file: "page.xlf", format: .xliff).0["body"])
            #expect(entry.text == markdown && entry.sourceText == markdown, "\(name) \(format)")
            let text = String(decoding: bytes, as: UTF8.self)
            if name == "emphasis" { #expect(text.contains("ctype=\"bold\"") || text.contains("type=\"fmt\""), "\(text)") }
            // A reference link there: the scanner's inline links are not all of cmark's, so none become codes.
            if name == "link" { #expect(!text.contains("ctype=\"link\"") && !text.contains("type=\"link\""), "\(text)") }
        }
    }

    /// 1,500 random strings of markdown's inline syntax: the scanner never loses or adds a
    /// character, and each string reads back exactly from both XLIFF versions.
    @Test func randomMarkdownRoundTrips() throws {
        let alphabet: [String] = [
            "[", "]", "(", ")", "![", "<", ">", "*", "**", "_", "__", "`", "\\", "{", "}", "{n}", "\"", "'", " ", "\n", "\n\n",
            "> ", "- ", "a", "](/x)", "[a](/b \"t\")", "![i](/c)", "](<a b>)", "é", "https://x.example", ":", "&amp;", "\t", "#",
        ]
        var generator = SeededGenerator(seed: 36)
        var kinds: [InlinePiece.CodeKind: Int] = [:]
        for round in 0..<1_500 {
            let text = (0..<Int.random(in: 1...24, using: &generator)).map { _ in alphabet.randomElement(using: &generator)! }.joined()
            let pieces = InlineCodeScanner.pieces(of: text, isMarkdown: true)
            #expect(InlinePiece.original(pieces) == text, "round \(round): \(text.debugDescription)")
            count(pieces, into: &kinds)
            let unit = ExportUnit(key: "k", sourceText: text, translation: text, state: .translated, isMarkdown: true)
            for format in [ExportFormat.xliff12, .xliff20] {
                let bytes = TranslationFileWriter.write(units: [unit], pageID: "p", sourceLocale: "en", targetLocale: "fr", format: format)
                let entry = try #require(
                    try TranslationFileReader.read(bytes, file: "p.xlf", format: .xliff).0["k"], "\(text.debugDescription)")
                #expect(entry.text == text && entry.sourceText == text, "round \(round) \(format): \(text.debugDescription)")
            }
        }
        // The strings exercise every kind of code, not only plain text.
        for kind in [InlinePiece.CodeKind.placeholder, .link, .image, .bold, .italic] {
            #expect(kinds[kind, default: 0] >= 10, "\(kind): \(kinds)")
        }
    }

    private func count(_ pieces: [InlinePiece], into kinds: inout [InlinePiece.CodeKind: Int]) {
        for piece in pieces {
            switch piece {
            case .text: break
            case .code(_, let kind): kinds[kind, default: 0] += 1
            case .span(_, _, let kind, let content):
                kinds[kind, default: 0] += 1
                count(content, into: &kinds)
            }
        }
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
