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

    /// `quire l10n status` loads a batch of pages at a time: a page at a time, the site counts as
    /// it does loaded whole, with a page that has errors, a file the scan refuses, a translation
    /// file with a broken link and one whose page does not exist among them.
    @Test func statusLoadedInBatchesCountsAsTheWholeSite() throws {
        let root = NSTemporaryDirectory() + "quire-l10n-status-\(UUID().uuidString)"
        try FileManager.default.copyItem(atPath: Self.pagesRoot, toPath: root)
        defer { try? FileManager.default.removeItem(atPath: root) }
        let site = root + "/shop"
        try Data("title: [Broken\nsections: []\n".utf8).write(to: URL(fileURLWithPath: site + "/broken.yaml"))
        // Said by the scan, which every batch shares.
        try Data("title: Bad\n".utf8).write(to: URL(fileURLWithPath: site + "/Bad Page.yaml"))
        try Data("title: Disparue\n".utf8).write(to: URL(fileURLWithPath: site + "/l10n/fr/gone.yaml"))
        try Data("title: Tienda\nwhy.body: \"Lea las [reglas](https://example.org/x).\"\n".utf8)
            .write(to: URL(fileURLWithPath: site + "/l10n/es/store.yaml"))
        let whole = try SiteTranslations.load(site: "shop", pagesRoot: root, poParserExecutable: L10nFixtures.quireExecutable)
        let errors = whole.diagnostics.count(where: \.isError)
        #expect(errors >= 3, "\(whole.diagnostics)")
        for batch in [1, 2, 2_048] {
            let status = try SiteTranslations.status(
                site: "shop", pagesRoot: root, poParserExecutable: L10nFixtures.quireExecutable, batch: batch)
            #expect(status.coverage == whole.coverage(), "batch \(batch)")
            #expect(status.pageCount == whole.pages.count && status.errorCount == errors, "batch \(batch)")
        }
    }

    /// fr-CA falls back to fr, then en: where fr's translation is stale, en's text is shown.
    @Test func fallbacksFollowTheChain() throws {
        let site = try load()
        let canadian = site.strings(pageID: "store", locale: "fr-CA")
        #expect(canadian.map(\.key) == ["title", "why.body", "promo.title", "promo.body", "browse.label"])
        #expect(canadian.map(\.fallback) == ["fr", "en", "fr", "fr", nil])
        #expect(site.fallingBack(pageID: "store", locale: "fr-CA") == 4)
        #expect(site.strings(pageID: "store", locale: "fr").allSatisfy { $0.fallback == nil })
        #expect(site.fallingBack(pageID: "store", locale: "fr") == 0)
        #expect(site.fallingBack(pageID: "store", locale: "es") == 4)
    }

    /// A load of one page from the dashboard's scan (`DraftSite`) reads that page and its
    /// translation files only, and gives what a load of the whole site gives for it. The fixture's
    /// one PO file is guides/safety's: a parser that cannot start shows whether it was read.
    @Test func aLoadOfOnePageReadsOnlyItsFiles() throws {
        let draft = DraftSite(pagesRoot: Self.pagesRoot, site: "shop")
        let siteRoot = Self.pagesRoot + "/shop"
        let noParser = siteRoot + "/no-such-quire"
        let store = try SiteTranslations.load(draft, siteRoot: siteRoot, pages: ["store"], poParserExecutable: noParser)
        #expect(store.pages.map(\.pageID) == ["store"])
        #expect(!store.diagnostics.contains { $0.isError }, "\(store.diagnostics)")
        let whole = try load()
        for locale in ["fr", "es", "fr-CA"] {
            #expect(store.exportUnits(pageID: "store", locale: locale) == whole.exportUnits(pageID: "store", locale: locale))
            #expect(store.coverage(pageID: "store", locale: locale) == whole.coverage(pageID: "store", locale: locale))
        }
        let safety = try SiteTranslations.load(draft, siteRoot: siteRoot, pages: ["guides/safety"], poParserExecutable: noParser)
        #expect(safety.diagnostics.contains { $0.isError && $0.file.hasSuffix("safety.po") })

        // A cache: a load of one page adds to what a load of the site kept, and takes nothing away.
        let cache = SiteTranslationsCache()
        _ = try SiteTranslations.load(draft, siteRoot: siteRoot, poParserExecutable: L10nFixtures.quireExecutable, cache: cache)
        _ = try SiteTranslations.load(draft, siteRoot: siteRoot, pages: ["store"], poParserExecutable: noParser, cache: cache)
        let kept = try SiteTranslations.load(draft, siteRoot: siteRoot, poParserExecutable: noParser, cache: cache)
        #expect(!kept.diagnostics.contains { $0.isError }, "\(kept.diagnostics)")
        #expect(kept.coverage() == whole.coverage())
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

    /// A file that cannot be read is said as a build says it: "this file is … bytes, over …".
    @Test func aFileThatCannotBeReadIsSaidAsTheBuildSaysIt() throws {
        let root = NSTemporaryDirectory() + "quire-l10n-unread-\(UUID().uuidString)"
        try FileManager.default.copyItem(atPath: Self.pagesRoot, toPath: root)
        defer { try? FileManager.default.removeItem(atPath: root) }
        let settings = root + "/shop/site.yaml"
        try Data((try String(contentsOfFile: settings, encoding: .utf8) + "limits:\n  max_file_bytes: 380\n").utf8)
            .write(to: URL(fileURLWithPath: settings))
        let size = try #require(try FileManager.default.attributesOfItem(atPath: root + "/shop/l10n/fr/store.yaml")[.size] as? Int)
        try #require(size > 380)
        let site = try SiteTranslations.load(site: "shop", pagesRoot: root, poParserExecutable: L10nFixtures.quireExecutable)
        let said = site.diagnostics.filter { $0.file.hasSuffix("l10n/fr/store.yaml") }.map(\.message)
        #expect(said == ["this file is \(size) bytes, over the 380-byte limit (limits.max_file_bytes in site.yaml)"])
    }

    /// A cache keeps what is unchanged and reads again what changed: a parser child that cannot
    /// start shows which PO files were read again (each read would fail).
    @Test func cacheRereadsOnlyWhatChanged() throws {
        let root = NSTemporaryDirectory() + "quire-l10n-cache-\(UUID().uuidString)"
        try FileManager.default.copyItem(atPath: Self.pagesRoot, toPath: root)
        defer { try? FileManager.default.removeItem(atPath: root) }
        // Files changed this recently are not stamped, so not kept (`FileStamp`).
        Thread.sleep(forTimeInterval: Double(FileStamp.settledAfterNanoseconds) / 1e9 + 0.1)
        let cache = SiteTranslationsCache()
        let load = { (parser: String) in
            try SiteTranslations.load(site: "shop", pagesRoot: root, poParserExecutable: parser, cache: cache)
        }
        let noParser = root + "/no-such-quire"
        let poFailed = { (site: SiteTranslations) in site.diagnostics.contains { $0.isError && $0.file.hasSuffix("safety.po") } }
        #expect(try poFailed(SiteTranslations.load(site: "shop", pagesRoot: root, poParserExecutable: noParser)))

        let first = try load(L10nFixtures.quireExecutable)
        #expect(!poFailed(first))
        let kept = try load(noParser)
        #expect(kept.diagnostics.map(\.description) == first.diagnostics.map(\.description))
        #expect(kept.coverage() == first.coverage())

        // A changed translation file is read again; the unchanged PO file still is not.
        try Data("title: Magasin\n".utf8).write(to: URL(fileURLWithPath: root + "/shop/l10n/fr/store.yaml"))
        let edited = try load(noParser)
        #expect(!poFailed(edited))
        #expect(edited.exportUnits(pageID: "store", locale: "fr").first { $0.key == "title" }?.translation == "Magasin")
        #expect(edited.coverage()[1].translated < first.coverage()[1].translated)

        // A changed page is checked again against its kept translation files: fr-CA's
        // `browse.label` now names a key the page does not have.
        let page = root + "/shop/store.yaml"
        try Data(try String(contentsOfFile: page, encoding: .utf8).replacingOccurrences(of: "id: browse", with: "id: more").utf8)
            .write(to: URL(fileURLWithPath: page))
        let aboutCanadian = { (site: SiteTranslations) in site.diagnostics.filter { $0.file.hasSuffix("fr-CA/store.yaml") } }
        #expect(aboutCanadian(edited).isEmpty)
        let renamed = try load(noParser)
        #expect(aboutCanadian(renamed).map(\.message).contains { $0.contains("browse.label") }, "\(renamed.diagnostics)")
        #expect(!poFailed(renamed))

        // New settings: everything is read again.
        let settings = root + "/shop/site.yaml"
        try Data(try String(contentsOfFile: settings, encoding: .utf8).replacingOccurrences(of: "title: Shop", with: "title: Shop!").utf8)
            .write(to: URL(fileURLWithPath: settings))
        #expect(try poFailed(load(noParser)))
    }
}
