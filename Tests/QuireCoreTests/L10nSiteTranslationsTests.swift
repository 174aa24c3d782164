import Foundation
import Testing

@testable import QuireCore

/// `SiteTranslations` on the `l10n-site` fixture: what export, import and status are built on.
@Suite struct L10nSiteTranslationsTests {
    static let pagesRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/l10n-site").path

    private func load() throws -> SiteTranslations {
        try SiteTranslations.load(site: "shop", pagesRoot: Self.pagesRoot, poParserExecutable: L10nFixtures.quireExecutable)
    }

    @Test func exportUnitsCarryStateTranslationAndNotes() throws {
        let site = try load()
        #expect(site.pages.map(\.pageID) == ["guides/safety", "store"])
        let units = Dictionary(uniqueKeysWithValues: site.exportUnits(pageID: "store", locale: "fr").map { ($0.key, $0) })
        #expect(units.keys.sorted() == ["browse.label", "promo.body", "promo.title", "title", "why.body"])
        #expect(units["title"]?.state == .translated && units["title"]?.translation == "Boutique")
        let stale = try #require(units["why.body"])
        #expect(stale.state == .stale)
        #expect(stale.sourceText == "Read the [rules](https://example.com/rules) before your first match.")
        #expect(stale.note?.contains("stale: translated from an older source text:\nRead the [rules]") == true)
        #expect(units["promo.title"]?.note == "keep the placeholders {percent} as they are")

        // fr-CA's own translations only: what falls back to fr is new for fr-CA's translator.
        let canadian = site.exportUnits(pageID: "store", locale: "fr-CA")
        #expect(canadian.filter { $0.state == .translated }.map(\.key) == ["browse.label"])
        #expect(canadian.first { $0.key == "title" }?.translation == nil)
    }

    @Test func coverageCountsOnlyEachLocalesOwnTranslations() throws {
        let coverage = try load().coverage()
        #expect(coverage.map(\.locale) == ["en", "fr", "es", "fr-CA"])
        #expect(coverage.map { [$0.translated, $0.stale, $0.missing] } == [[8, 0, 0], [6, 1, 1], [1, 0, 7], [1, 0, 7]])
        #expect(coverage[1].percent == 75)
    }

    @Test func checkFindsDamageAtTheEntry() throws {
        let site = try load()
        let catalog = TranslationCatalog(
            file: "in.yaml", locale: "es",
            entries: [
                TranslationEntry(key: "promo.title", text: "Ahorre", position: SourcePosition(line: 2, column: 1))
            ])
        let diagnostics = site.check(catalog, locale: "es", pageID: "store")
        #expect(
            diagnostics.map(\.description) == [
                "in.yaml:2:1: error: promo.title: the translation drops {percent}: keep the placeholders of the source text"
            ])
    }
}
