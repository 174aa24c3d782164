import Foundation
import Testing

@testable import QuireCore

/// `<locale>/index.json`: every live page of a locale, kept by both build paths.
@Suite struct PageIndexTests {
    static let home = """
        title: Home
        ttl: 60
        page_size: 1
        sections:
          - type: divider
            id: one
          - type: divider
            id: two
          - type: announcement
            id: deal
            body: Members only.
            visible_to: [member]

        """

    final class Run {
        let fixture: SiteFixture
        let builder: SiteBuilder
        let absolute: String

        init() throws {
            fixture = try SiteFixture()
            try fixture.write(PageIndexTests.home, to: "home.yaml")
            try fixture.write("title: Later\npublish_at: 2999-01-01T00:00:00Z\nsections:\n  - type: divider\n", to: "later.yaml")
            try fixture.write("draft: true\ntitle: Draft\nsections:\n  - type: divider\n", to: "draft.yaml")
            try fixture.write("title: Spring\npublish_at: 2020-03-01T09:00:00Z\nsections:\n  - type: divider\n", to: "news/spring.yaml")
            builder = SiteBuilder(site: fixture.site, pagesRoot: fixture.pages, distRoot: fixture.dist)
            absolute = URL(fileURLWithPath: fixture.siteFolder).standardizedFileURL.path
        }

        func save(_ text: String, to path: String) throws -> SiteBuildResult {
            try fixture.write(text, to: path)
            let result = builder.build(changed: ["\(absolute)/\(path)"])
            #expect(result.builtAsDelta && result.operationalError == nil && !result.hasErrors)
            return result
        }

        func index(_ locale: String) throws -> [String: [String: Any]] {
            let index = try #require(try fixture.publishedJSON("\(locale)/index.json") as? [String: Any])
            let pages = try #require(index["pages"] as? [[String: Any]])
            return Dictionary(uniqueKeysWithValues: pages.map { ($0["id"] as? String ?? "", $0) })
        }

        var newest: String { fixture.versions.last ?? "" }
    }

    @Test func listsEachLivePageWithWhatAnAppNeeds() throws {
        let run = try Run()
        try run.fixture.write("title: Accueil\n", to: "l10n/fr/home.yaml")
        #expect(!run.builder.build().hasErrors)
        let index = try #require(try run.fixture.publishedJSON("en/index.json") as? [String: Any])
        #expect(index["locale"] as? String == "en")
        #expect(index["assets"] as? String == "../assets/")
        #expect(index["app_routes"] as? [String] == ["/drills"])
        let en = try run.index("en")
        #expect(en.keys.sorted() == ["guides/other", "home", "news/spring"], "drafts and pages not live yet are left out")
        let home = try #require(en["home"])
        #expect(home["title"] as? String == "Home")
        #expect(home["ttl"] as? Int == 60)
        #expect(home["parts"] as? Int == 2)
        #expect(home["audiences"] as? [String] == ["member"])
        #expect(home["changed_in"] as? String == "v000001")
        #expect(en["news/spring"]?["publish_at"] as? String == "2020-03-01T09:00:00Z")
        #expect(en["news/spring"]?["published_at"] as? String == "2020-03-01T09:00:00Z")
        #expect(try run.index("fr")["home"]?["title"] as? String == "Accueil")
        // Each listed page's files exist where the URL contract says.
        for (id, page) in en {
            for part in 1...(page["parts"] as? Int ?? 1) {
                #expect(
                    FileManager.default.fileExists(
                        atPath: "\(run.fixture.dist)/\(run.fixture.site)/current/en/\(id)\(part > 1 ? ".\(part)" : "").json"))
            }
        }
    }

    @Test func eachEntryNamesTheVersionItLastChangedInAcrossDeltas() throws {
        let run = try Run()
        #expect(!run.builder.build().hasErrors)
        let first = run.newest
        let published = try #require(run.index("en")["home"]?["published_at"] as? String)

        _ = try run.save(Self.home.replacingOccurrences(of: "Home", with: "Home two"), to: "home.yaml")
        let second = run.newest
        #expect(second != first)
        var en = try run.index("en")
        #expect(en["home"]?["changed_in"] as? String == second)
        #expect(en["home"]?["title"] as? String == "Home two")
        #expect(en["home"]?["published_at"] as? String == published, "the time a page was first listed stays")
        #expect(en["news/spring"]?["changed_in"] as? String == first)

        // A translation changes only its locale's entry, and only its locale's index file.
        let enBytes = try run.fixture.published("en/index.json")
        _ = try run.save("title: Printemps\n", to: "l10n/fr/news/spring.yaml")
        #expect(try run.fixture.published("en/index.json") == enBytes)
        let fr = try run.index("fr")
        #expect(fr["news/spring"]?["changed_in"] as? String == run.newest)
        #expect(fr["news/spring"]?["title"] as? String == "Printemps")
        #expect(fr["home"]?["changed_in"] as? String == second)

        // A page turned draft leaves the index; back, it is listed as changed in that version.
        _ = try run.save("draft: true\n" + Self.home, to: "home.yaml")
        #expect(try run.index("en")["home"] == nil)
        _ = try run.save(Self.home, to: "home.yaml")
        en = try run.index("en")
        #expect(en["home"]?["changed_in"] as? String == run.newest)

        // A page removed leaves it.
        try run.fixture.remove("news/spring.yaml")
        let removed = run.builder.build(changed: ["\(run.absolute)/news/spring.yaml"])
        #expect(removed.builtAsDelta)
        #expect(try run.index("en")["news/spring"] == nil)

        // A full build on the same store (a watcher started again) reads the history back: the
        // same bytes as the deltas left.
        let before = try ["en", "fr"].map { try run.fixture.published("\($0)/index.json") }
        let again = SiteBuilder(site: run.fixture.site, pagesRoot: run.fixture.pages, distRoot: run.fixture.dist).build()
        #expect(!again.hasErrors && !again.builtAsDelta)
        #expect(try ["en", "fr"].map { try run.fixture.published("\($0)/index.json") } == before)
    }

    @Test func aPageCalledIndexIsRefused() throws {
        let fixture = try SiteFixture()
        try fixture.write("title: Index\nsections:\n  - type: divider\n", to: "index.yaml")
        let result = fixture.build()
        #expect(fixture.lines(result).contains { $0.contains("site/index.yaml") && $0.contains("'index' is reserved") })
    }
}
