import Foundation
import QuireCore
import Testing

/// `quire watch` keeps one builder per site and hands it the changed paths: whatever it
/// publishes must equal what a fresh full build of the same files publishes.
@Suite struct IncrementalBuildTests {
    /// The published files of current, path -> bytes (the version's own manifest and build
    /// record aside).
    static func snapshot(_ dist: String, site: String) -> [String: Data] {
        let root = "\(dist)/\(site)/current"
        var files: [String: Data] = [:]
        for path in FixtureSiteBuild.files(under: root) where path != "manifest.json" && path != "build.json" {
            files[path] = FileManager.default.contents(atPath: "\(root)/\(path)").map { data in
                isPageIndex(path) ? withoutHistory(data) : data
            }
        }
        return files
    }

    /// `<locale>/index.json` or one of its parts.
    static func isPageIndex(_ path: String) -> Bool {
        path.split(separator: "/").count == 2 && path.wholeMatch(of: /[^\/]+\/index(\.[0-9]+)?\.json/) != nil
    }

    /// A page index without `changed_in` and `published_at`: they say which build first listed or
    /// last wrote a page, which a build from scratch cannot know (`PageIndexTests` checks them).
    static func withoutHistory(_ data: Data) -> Data {
        guard var index = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any],
            let pages = index["pages"] as? [[String: Any]]
        else { return data }
        index["pages"] = pages.map { page in page.filter { $0.key != "changed_in" && $0.key != "published_at" } }
        return (try? JSONSerialization.data(withJSONObject: index, options: [.sortedKeys, .withoutEscapingSlashes])) ?? data
    }

    /// Same site, built from scratch into another dist.
    static func fresh(_ fixture: SiteFixture) -> [String: Data] {
        let dist = fixture.root + "/fresh-dist-" + UUID().uuidString
        _ = SiteBuilder(site: fixture.site, pagesRoot: fixture.pages, distRoot: dist).build()
        let files = snapshot(dist, site: fixture.site)
        #expect(files.keys.contains { $0.hasPrefix("en/") }, "a full build publishes pages")
        return files
    }

    @Test func changedPathsGiveTheSameOutputAsAFullBuild() throws {
        let fixture = try SiteFixture()
        try fixture.write(
            "title: A\nsections:\n  - type: cta_button\n    id: go\n    label: To B\n    action: navigate\n    destination: /b\n",
            to: "a.yaml")
        try fixture.write("title: B\nsections:\n  - type: divider\n", to: "b.yaml")
        let builder = SiteBuilder(site: fixture.site, pagesRoot: fixture.pages, distRoot: fixture.dist)
        #expect(!builder.build().hasErrors)
        let absolute = URL(fileURLWithPath: fixture.siteFolder).standardizedFileURL.path

        // An edit: only that page is rendered again.
        try fixture.write(
            "title: A2\nsections:\n  - type: cta_button\n    id: go\n    label: To B\n    action: navigate\n    destination: /b\n",
            to: "a.yaml")
        var result = builder.build(changed: ["\(absolute)/a.yaml"])
        #expect(result.pagesRebuilt == ["a"])
        #expect(Self.snapshot(fixture.dist, site: fixture.site) == Self.fresh(fixture))

        // A translation drop.
        try fixture.write("title: B (fr)\n", to: "l10n/fr/b.yaml")
        result = builder.build(changed: ["\(absolute)/l10n/fr/b.yaml"])
        #expect(result.pagesRebuilt == ["b"])
        #expect(try fixture.published("fr/b.json").contains("B (fr)"))
        #expect(Self.snapshot(fixture.dist, site: fixture.site) == Self.fresh(fixture))

        // Deleting B breaks A's navigate button: A is validated again though its file is unchanged.
        try fixture.remove("b.yaml")
        result = builder.build(changed: ["\(absolute)/b.yaml"])
        #expect(fixture.lines(result).contains { $0.hasPrefix("site/a.yaml:7:18: error: sections[0].destination: '/b' is neither a page") })
        #expect(!FileManager.default.fileExists(atPath: "\(fixture.dist)/site/current/en/b.json"))

        // A new page in a new folder, and a settings change.
        try fixture.write("title: B again\nsections:\n  - type: divider\n", to: "b.yaml")
        try fixture.write("sections:\n  - type: divider\n", to: "guides/new.yaml")
        try fixture.write("default_locale: en\nlocales: [en, fr]\napp_routes: [/drills]\nttl: 30\n", to: "site.yaml")
        result = builder.build(changed: ["\(absolute)/b.yaml", "\(absolute)/guides", "\(absolute)/site.yaml"])
        #expect(!result.hasErrors, "\(fixture.lines(result))")
        #expect(try fixture.published("en/guides/new.json").contains("\"ttl\":30"))
        #expect(Self.snapshot(fixture.dist, site: fixture.site) == Self.fresh(fixture))

        // Nothing changed: nothing published.
        let before = fixture.versions
        #expect(builder.build(changed: []).outcome.map { if case .unchanged = $0 { true } else { false } } == true)
        #expect(fixture.versions == before)
    }

    /// The builder keeps no catalog of a translation file it has read: a page rendered again with
    /// its translation files unchanged (its own edit, then a settings change) reads them again.
    @Test func aPageRenderedAgainKeepsItsUnchangedTranslations() throws {
        let fixture = try SiteFixture()
        try fixture.write("title: B\nsections:\n  - type: divider\n", to: "b.yaml")
        try fixture.write("title: B (fr)\n", to: "l10n/fr/b.yaml")
        let builder = SiteBuilder(site: fixture.site, pagesRoot: fixture.pages, distRoot: fixture.dist)
        #expect(!builder.build().hasErrors)
        let absolute = URL(fileURLWithPath: fixture.siteFolder).standardizedFileURL.path

        try fixture.write("title: B\nsections:\n  - type: divider\n  - type: divider\n", to: "b.yaml")
        var result = builder.build(changed: ["\(absolute)/b.yaml"])
        #expect(result.pagesRebuilt == ["b"])
        #expect(try fixture.published("fr/b.json").contains("B (fr)"))
        #expect(Self.snapshot(fixture.dist, site: fixture.site) == Self.fresh(fixture))

        let settings = try String(contentsOfFile: "\(fixture.siteFolder)/site.yaml", encoding: .utf8)
        try fixture.write(settings.replacingOccurrences(of: "ttl: 120", with: "ttl: 30"), to: "site.yaml")
        result = builder.build(changed: ["\(absolute)/site.yaml"])
        #expect(!result.hasErrors, "\(fixture.lines(result))")
        #expect(result.pagesRebuilt.contains("b"))
        #expect(try fixture.published("fr/b.json").contains("B (fr)"))
        #expect(Self.snapshot(fixture.dist, site: fixture.site) == Self.fresh(fixture))

        // A translation of no page sends the change set down the full path, where B's source is
        // vouched for by the cache (which keeps no model of it) while its translation changed.
        try fixture.write("title: B (fr) 2\n", to: "l10n/fr/b.yaml")
        try fixture.write("title: Ghost\n", to: "l10n/fr/ghost.yaml")
        result = builder.build(changed: ["\(absolute)/l10n/fr/b.yaml", "\(absolute)/l10n/fr/ghost.yaml"])
        #expect(result.pagesRebuilt == ["b"])
        #expect(try fixture.published("fr/b.json").contains("B (fr) 2"))
        #expect(Self.snapshot(fixture.dist, site: fixture.site) == Self.fresh(fixture))
    }
}
