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
}
