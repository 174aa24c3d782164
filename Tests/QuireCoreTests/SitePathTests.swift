import Testing

@testable import QuireCore

/// What a path inside a site folder names, as the scan and a delta's scope both read it.
@Suite struct SitePathTests {
    typealias Name = SitePath.TranslationPath

    @Test(arguments: [
        ("site.yaml", SitePath.siteFile),
        ("site.yml", .siteFile),
        ("vocabulary.json", .vocabularyFile),
        ("assets/img/logo.png", .asset(name: "img/logo.png")),
        ("assets/notes.yaml", .asset(name: "notes.yaml")),
        ("l10n/fr/home.yaml", .translation(Name(locale: "fr", pageID: "home", pathExtension: "yaml"))),
        ("l10n/fr-CA/guides/range-safety.PO", .translation(Name(locale: "fr-CA", pageID: "guides/range-safety", pathExtension: "po"))),
        ("l10n/fr/home.txt", .translation(Name(locale: "fr", pageID: "home", pathExtension: "txt"))),
        ("l10n/fr.yaml", .translation(nil)),
        ("l10n/README", .translation(nil)),
        ("home.yaml", .page(id: "home", pathExtension: "yaml")),
        ("guides/range-safety.json", .page(id: "guides/range-safety", pathExtension: "json")),
        ("site.json", .page(id: "site", pathExtension: "json")),
        ("README", .page(id: "README", pathExtension: "")),
        ("store.yaml.new", .page(id: "store.yaml", pathExtension: "new")),
    ])
    func pathsNameWhatTheyAre(path: String, expected: SitePath) {
        #expect(SitePath(path) == expected)
    }

    @Test func onlyTranslationAndPageFormatsAreRead() {
        #expect(Name(locale: "fr", pageID: "home", pathExtension: "xlf").isTranslationFormat)
        #expect(!Name(locale: "fr", pageID: "home", pathExtension: "txt").isTranslationFormat)
        #expect(SitePath.isPageSource(extension: "yml"))
        #expect(!SitePath.isPageSource(extension: "po"))
    }

    /// A source file holds its path once: the relative path is read back from the end of it,
    /// whatever the root's characters.
    @Test(arguments: [
        ("/srv/pages/trex", "guides/range-safety.json"), ("/srv/pagës/tréx", "l10n/fr-CA/accueil-été.yaml"), ("", "home.yaml"),
    ])
    func aSourceFileReadsItsRelativePathBackFromItsPath(root: String, relativePath: String) {
        let file = SiteInventory.SourceFile(root: root, relativePath: relativePath)
        #expect(file.path == "\(root)/\(relativePath)")
        #expect(file.relativePath == relativePath)
        #expect(file == SiteInventory.SourceFile(root: root, relativePath: relativePath))
        #expect(file != SiteInventory.SourceFile(root: root + "/l10n", relativePath: String(relativePath.dropFirst(5))))
        let folder = String(relativePath.prefix { $0 != "/" })
        #expect(file.isUnder(folder + "/") == relativePath.contains("/"))
        #expect(!file.isUnder(relativePath + "/") && !file.isUnder("other/") && !file.isUnder(root + "/"))
    }

    /// A save, a removal and a folder's removal each change the translation files the scan
    /// knows for their own page only; a translation file whose page is gone stays listed.
    @Test func aScanKeepsEachPagesTranslationFilesThroughChanges() throws {
        let fixture = try SiteFixture(from: nil)
        for page in ["home", "store", "guides/range"] { try fixture.write("title: \(page)\n", to: "\(page).yaml") }
        for locale in ["fr", "de"] {
            for page in ["home", "store", "guides/range", "gone"] { try fixture.write("a: b\n", to: "l10n/\(locale)/\(page).yaml") }
        }
        var inventory = SiteInventory.scan(root: fixture.siteFolder, site: fixture.site, displayRoot: "pages/site")
        func files(_ pageID: String) -> [String] { (inventory.translationsByPage[pageID] ?? []).map(\.file.relativePath).sorted() }
        #expect(files("home") == ["l10n/de/home.yaml", "l10n/fr/home.yaml"])
        #expect(files("gone") == ["l10n/de/gone.yaml", "l10n/fr/gone.yaml"])
        #expect(inventory.allTranslations().count == 8)

        try fixture.remove("l10n/fr/home.yaml")
        try fixture.write("a: c\n", to: "l10n/es/home.yaml")
        let saved = inventory.update(
            changed: ["\(fixture.siteFolder)/l10n/fr/home.yaml", "\(fixture.siteFolder)/l10n/es/home.yaml"], displayRoot: "pages/site")
        #expect(saved?.count == 2)
        #expect(files("home") == ["l10n/de/home.yaml", "l10n/es/home.yaml"])
        #expect(files("store") == ["l10n/de/store.yaml", "l10n/fr/store.yaml"])

        try fixture.remove("l10n/de")
        let removed = inventory.update(changed: ["\(fixture.siteFolder)/l10n/de"], displayRoot: "pages/site")
        #expect(removed?.count == 5)
        #expect(files("home") == ["l10n/es/home.yaml"])
        #expect(files("guides/range") == ["l10n/fr/guides/range.yaml"])
        #expect(files("gone") == ["l10n/fr/gone.yaml"])
        #expect(
            inventory.allTranslations().map(\.file.relativePath).sorted() == [
                "l10n/es/home.yaml", "l10n/fr/gone.yaml", "l10n/fr/guides/range.yaml", "l10n/fr/store.yaml",
            ])
    }
}
