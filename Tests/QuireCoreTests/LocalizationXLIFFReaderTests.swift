import Foundation
import QuireTestSupport
import Testing

@testable import QuireCore

/// Fixture files of the localization tests, and the built `quire` (the PO parser's child).
enum L10nFixtures {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/l10n")

    static func path(_ name: String) -> String { directory.appendingPathComponent(name).path }

    static func bytes(_ name: String) throws -> [UInt8] { [UInt8](try Data(contentsOf: directory.appendingPathComponent(name))) }

    /// `quire`, built next to the test bundle by `swift build --build-tests` / `swift test`.
    static var quireExecutable: String {
        get throws { try QuireBinary.path() }
    }

    static func readXLIFF(_ name: String) throws(Diagnostic) -> (TranslationCatalog, [Diagnostic]) {
        let data = (try? bytes(name)) ?? []
        return try TranslationFileReader.read(data, file: name, format: .xliff)
    }

    static func diagnostic(_ body: () throws(Diagnostic) -> Void) -> Diagnostic? {
        do {
            try body()
            return nil
        } catch { return error }
    }
}

extension TranslationCatalog {
    subscript(key: String) -> TranslationEntry? { entries.first { $0.key == key } }
}

@Suite struct LocalizationXLIFFReaderTests {
    @Test func readsCrowdinXLIFF12WithInlineMarkup() throws {
        let (catalog, warnings) = try L10nFixtures.readXLIFF("crowdin-trex-store.fr.xlf")
        #expect(warnings.isEmpty)
        #expect(catalog.locale == "fr")
        #expect(catalog.pageID == "trex-store")
        #expect(catalog.entries.map(\.key) == ["hero.title", "why.body", "promo.text", "link.text"])

        let title = try #require(catalog["hero.title"])
        #expect(title.text == "L'essentiel de l'entraînement")
        #expect(title.sourceText == "Training Essentials")
        #expect(title.position == SourcePosition(line: 8, column: 7))
        #expect(!title.isFuzzy)

        let body = try #require(catalog["why.body"])
        #expect(body.text == "Avec le matériel **officiel**, *vos* scores comptent.")
        #expect(body.sourceText == "Using **official** kit means *your* scores count.")
        #expect(body.isFuzzy)

        // <x equiv-text>, <ph> content, <bpt>/<ept> original code; <alt-trans> is not the target.
        #expect(catalog["promo.text"]?.text == "Économisez {percent} sur {product} — [détails](/deals)")
        #expect(catalog["link.text"]?.text == "Lisez les [règles](https://example.com/rules) & <plus>")
    }

    @Test func readsXLIFF20WithOriginalDataSegmentsAndStates() throws {
        let (catalog, _) = try L10nFixtures.readXLIFF("lokalise-trex-store.de.xlf")
        #expect(catalog.locale == "de")
        #expect(catalog.pageID == "trex-store")
        #expect(catalog.entries.map(\.key) == ["hero.title", "why.body", "promo.text", "two.segments"])
        #expect(catalog["hero.title"]?.position == SourcePosition(line: 4, column: 5))
        #expect(catalog["why.body"]?.text == "Mit **offizieller** Ausrüstung zählen *Ihre* Ergebnisse.")
        #expect(catalog["why.body"]?.isFuzzy == false)
        let promo = try #require(catalog["promo.text"])
        #expect(promo.text == "Sparen Sie {percent} — [Details](/deals)")
        #expect(promo.isFuzzy, "state=initial with a target needs review")
        #expect(catalog["two.segments"]?.text == "Erster Satz. Zweiter {name}\u{A0}!")
        #expect(catalog["two.segments"]?.sourceText == "First sentence. Second {name}.")
    }

    @Test func readsTranslateToolkitPo2xliffOutput() throws {
        let (catalog, _) = try L10nFixtures.readXLIFF("po2xliff-trex-store.xlf")
        #expect(catalog.locale == "fr")
        #expect(catalog.pageID == "trex-store", "original=\"trex-store.po\" names the page")
        // po2xliff drops msgctxt: the key survives in the "key: ..." developer note, else the id.
        #expect(catalog["hero.title"]?.text == "L'essentiel de l'entraînement")
        let fuzzy = try #require(catalog["4"])
        #expect(fuzzy.isFuzzy)
        #expect(fuzzy.text.hasPrefix("### Pourquoi"))
        #expect(!catalog.entries.contains { $0.text.contains("Project-Id-Version") }, "the PO header is not an entry")
    }

    @Test(arguments: [
        ("xxe.xlf", SourcePosition(line: 2, column: 1), "<!DOCTYPE"),
        ("billion-laughs.xlf", SourcePosition(line: 2, column: 1), "<!DOCTYPE"),
        ("entity-only.xlf", SourcePosition(line: 2, column: 22), "<!ENTITY"),
    ])
    func refusesDocumentTypesAndEntities(file: String, position: SourcePosition, construct: String) {
        let error = L10nFixtures.diagnostic { () throws(Diagnostic) in _ = try L10nFixtures.readXLIFF(file) }
        #expect(error?.position == position)
        #expect(error?.message.contains(construct) == true)
        #expect(error?.message.contains("XXE") == true)
    }

    @Test func refusesUTF16() {
        var bytes: [UInt8] = [0xFF, 0xFE]
        for unit in "<xliff version=\"1.2\"/>".utf16 { bytes += [UInt8(unit & 0xFF), UInt8(unit >> 8)] }
        let error = L10nFixtures.diagnostic { () throws(Diagnostic) in
            _ = try TranslationFileReader.read(bytes, file: "u.xlf", format: .xliff)
        }
        #expect(error?.message.contains("UTF-8") == true)
    }

    @Test(arguments: [
        ("unmappable-markup.xlf", SourcePosition(line: 6, column: 26), "<g ctype=\"underlined\">"),
        ("foreign-inline-element.xlf", SourcePosition(line: 7, column: 29), "<html:blink>"),
        ("ph-without-text.xlf", SourcePosition(line: 6, column: 22), "<ph>"),
    ])
    func rejectsUnmappableMarkupWithPosition(file: String, position: SourcePosition, element: String) {
        let error = L10nFixtures.diagnostic { () throws(Diagnostic) in _ = try L10nFixtures.readXLIFF(file) }
        #expect(error?.isError == true)
        #expect(error?.position == position)
        #expect(error?.message.contains(element) == true, "\(String(describing: error))")
        #expect(error?.description.hasPrefix("\(file):\(position.line):\(position.column): error: ") == true)
    }

    @Test func reportsMalformedXMLWithLine() {
        let error = L10nFixtures.diagnostic { () throws(Diagnostic) in _ = try L10nFixtures.readXLIFF("malformed.xlf") }
        #expect(error?.position.line == 7, "\(String(describing: error))")
        #expect(error?.message.contains("not well-formed") == true)
    }

    @Test func refusesOtherXML() {
        let bytes = Array("<?xml version=\"1.0\"?>\n<resources><string name=\"a\">b</string></resources>\n".utf8)
        let error = L10nFixtures.diagnostic { () throws(Diagnostic) in
            _ = try TranslationFileReader.read(bytes, file: "strings.xml", format: .xliff)
        }
        #expect(error?.message.contains("<resources>") == true)
        #expect(error?.position == SourcePosition(line: 2, column: 1))
    }

    @Test func formatFromExtension() {
        #expect(TranslationFormat(pathExtension: "xlf") == .xliff)
        #expect(TranslationFormat(pathExtension: "xliff") == .xliff)
        #expect(TranslationFormat(pathExtension: "yml") == .yaml)
        #expect(TranslationFormat(pathExtension: "po") == .po)
        #expect(TranslationFormat(pathExtension: "json") == .json)
        #expect(TranslationFormat(pathExtension: "txt") == nil)
    }
}
