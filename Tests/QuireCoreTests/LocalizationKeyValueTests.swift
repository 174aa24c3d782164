import Foundation
import Testing

@testable import QuireCore

/// YAML and JSON translation files go through `SourceParser` (the source-loading work).
@Suite struct LocalizationKeyValueTests {
    @Test func readsYAMLWithMetadataAndSourceText() throws {
        let (catalog, warnings) = try TranslationFileReader.read(
            try L10nFixtures.bytes("trex-store.fr.yaml"), file: "l10n/fr/trex-store.yaml", format: .yaml)
        #expect(warnings.isEmpty)
        #expect(catalog.pageID == "trex-store")
        #expect(catalog.locale == "fr")
        #expect(catalog.entries.map(\.key) == ["hero.title", "why.body", "browse.label"])
        #expect(catalog["hero.title"]?.position == SourcePosition(line: 3, column: 1))
        let body = try #require(catalog["why.body"])
        #expect(body.sourceText == "### Why\nUsing **official** kit.")
        #expect(body.isFuzzy)
        #expect(catalog["browse.label"]?.text == "no", "YAML 1.2 core schema: no is text")
    }

    @Test func nonTextValueIsAnErrorWithPosition() throws {
        let error = L10nFixtures.diagnostic { () throws(Diagnostic) in
            _ = try TranslationFileReader.read(try! L10nFixtures.bytes("bad-value.json"), file: "bad-value.json", format: .json)
        }
        #expect(error?.position == SourcePosition(line: 3, column: 31))
        #expect(error?.keyPath == "grid.items.idpa-50.price")
        #expect(error?.message.contains("found a number") == true)
    }

    @Test func jsonExportRoundTrips() throws {
        let bytes = TranslationFileWriter.write(
            units: LocalizationWriterTests.units, pageID: "trex-store", sourceLocale: "en", targetLocale: "fr", format: .json)
        let (catalog, warnings) = try TranslationFileReader.read(bytes, file: "export.json", format: .json)
        #expect(warnings.isEmpty)
        #expect(catalog.pageID == "trex-store")
        #expect(catalog.locale == "fr")
        #expect(catalog.entries.map(\.key) == ["hero.title", "why.body", "promo.text"])
        #expect(catalog["why.body"]?.isFuzzy == true)
        #expect(catalog["why.body"]?.sourceText == LocalizationWriterTests.units[1].sourceText)
        #expect(catalog["promo.text"]?.text == "Économisez {percent}\taujourd'hui")
    }
}
