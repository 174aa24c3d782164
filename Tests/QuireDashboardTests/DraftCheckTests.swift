import Foundation
import QuireCore
import QuireModel
import Testing

/// A draft check says what `quire check` says of the same bytes: the same stages, the same
/// diagnostics (page and translation files), nothing written.
struct DraftCheckTests {
    /// Edits of the sample site's store page, each breaking something else.
    static let edits: [(String, String, String)] = [
        ("a required field removed", "    title: Training Essentials\n", ""),
        ("an unknown section type", "type: hero_banner", "type: hologram"),
        ("a bad URL", "https://trexarms.com/targets/idpa-50", "javascript:alert(1)"),
        ("a wrong type", "price: \"$24.99\"", "price: 24.99"),
        ("a missing asset", "/assets/trex-banner.jpg", "/assets/nowhere.jpg"),
        ("a translated string changed", "title: Training Essentials", "title: Training Essentials, revised"),
        ("a YAML syntax error", "sections:\n", "sections: [\n"),
    ]

    @Test(arguments: edits.map(\.0))
    func aDraftGetsTheDiagnosticsOfQuireCheck(_ name: String) throws {
        let (_, old, new) = try #require(Self.edits.first { $0.0 == name })
        let fixture = try DashboardFixture()
        let path = fixture.site + "/trex-store.yaml"
        let original = try String(contentsOfFile: path, encoding: .utf8)
        #expect(original.contains(old))
        let draft = original.replacingOccurrences(of: old, with: new)

        let checked = DraftSite(pagesRoot: fixture.pages, site: "trex").check(
            pageID: "trex-store", relativePath: "trex-store.yaml", bytes: Array(draft.utf8))
        #expect(try String(contentsOfFile: path, encoding: .utf8) == original)

        try draft.write(toFile: path, atomically: true, encoding: .utf8)
        var options = BuildOptions()
        options.publish = false
        let built = SiteBuilder(site: "trex", pagesRoot: fixture.pages, distRoot: fixture.root + "/dist", options: options).build()
        // The page's file and its translation files.
        let translations = try FileManager.default.contentsOfDirectory(atPath: fixture.site + "/l10n").flatMap { locale in
            try FileManager.default.contentsOfDirectory(atPath: fixture.site + "/l10n/" + locale).filter { $0.hasPrefix("trex-store.") }
                .map { "\(fixture.pages)/trex/l10n/\(locale)/\($0)" }
        }
        #expect(translations.count == 3)
        let files = Set(translations + ["\(fixture.pages)/trex/trex-store.yaml"])
        let expected = built.diagnostics.filter { files.contains($0.file) }.map(\.description)
        #expect(!expected.isEmpty)
        #expect(checked.diagnostics.map(\.description).sorted() == expected.sorted())
        #expect(checked.rendered.isEmpty == built.diagnostics.contains { $0.isError && $0.file.hasSuffix("trex-store.yaml") })
    }
}

/// The scan a draft check uses, brought up to date with the paths a build changed.
struct DraftSiteUpdateTests {
    @Test func anUpdateSeesWhatCameAndWent() throws {
        let fixture = try DashboardFixture()
        let draft = DraftSite(pagesRoot: fixture.pages, site: "trex")
        try FileManager.default.createDirectory(atPath: fixture.site + "/events", withIntermediateDirectories: true)
        try "title: Spring\nsections: []\n".write(toFile: fixture.site + "/events/spring.yaml", atomically: true, encoding: .utf8)
        try FileManager.default.removeItem(atPath: fixture.site + "/guides/range-safety.yaml")
        try Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]).write(to: URL(fileURLWithPath: fixture.site + "/assets/new.png"))
        let siteFile = fixture.site + "/site.yaml"
        try (String(contentsOfFile: siteFile, encoding: .utf8) + "dashboard:\n  editors: [writers]\n")
            .write(toFile: siteFile, atomically: true, encoding: .utf8)
        let changed: Set<String> = [
            fixture.site + "/events/spring.yaml", fixture.site + "/guides/range-safety.yaml", fixture.site + "/assets/new.png", siteFile,
        ]
        let updated = draft.updated(changed: changed)
        let fresh = DraftSite(pagesRoot: fixture.pages, site: "trex")
        #expect(updated.pageSources == fresh.pageSources)
        #expect(updated.pageSources["events/spring"] == "events/spring.yaml" && updated.pageSources["guides/range-safety"] == nil)
        #expect(updated.assets == fresh.assets && updated.assets.contains("new.png"))
        #expect(updated.config?.dashboardRoles?.editors == ["writers"])
        #expect(draft.pageSources["guides/range-safety"] != nil)
    }
}
