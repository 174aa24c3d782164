import Foundation
import QuireModel
import Testing

@testable import QuireCore

/// `<locale>/index.json` and its parts: every live page of a locale, kept by both build paths.
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
            try PageIndexTests.entries(fixture, locale: locale)
        }

        var newest: String { fixture.versions.last ?? "" }
    }

    /// Every entry of a locale's index, read from its parts as an app reads them.
    static func entries(_ fixture: SiteFixture, locale: String) throws -> [String: [String: Any]] {
        let index = try #require(try fixture.publishedJSON("\(locale)/index.json") as? [String: Any])
        let parts = try #require(index["parts"] as? Int)
        var entries: [String: [String: Any]] = [:]
        for part in 1...parts {
            let file = try #require(try fixture.publishedJSON("\(locale)/index.\(part).json") as? [String: Any])
            #expect(file["part"] as? Int == part && file["locale"] as? String == locale)
            for page in try #require(file["pages"] as? [[String: Any]]) {
                let id = try #require(page["id"] as? String)
                #expect(PageIndex.part(of: id, parts: parts) == part, "\(id) is listed in the part its hash names")
                entries[id] = page
            }
        }
        return entries
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

        // A translation changes only its locale's entry, and only its locale's index files.
        let enBytes = try run.fixture.published("en/index.1.json")
        _ = try run.save("title: Printemps\n", to: "l10n/fr/news/spring.yaml")
        #expect(try run.fixture.published("en/index.1.json") == enBytes)
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
        let files = ["en/index.json", "en/index.1.json", "fr/index.json", "fr/index.1.json"]
        let before = try files.map { try run.fixture.published($0) }
        let again = SiteBuilder(site: run.fixture.site, pagesRoot: run.fixture.pages, distRoot: run.fixture.dist).build()
        #expect(!again.hasErrors && !again.builtAsDelta)
        #expect(try files.map { try run.fixture.published($0) } == before)
    }

    /// Parts double with the pages, and a save rewrites the one part listing its page: the
    /// index costs a save what one part costs, however many pages the site has.
    @Test func aSaveRewritesOnlyThePartListingItsPage() throws {
        let fixture = try SiteFixture()
        let count = PageIndexFiles.pagesPerPart + 20
        for number in 0..<count { try fixture.write("title: P\(number)\nsections:\n  - type: divider\n", to: "many/p\(number).yaml") }
        let builder = SiteBuilder(site: fixture.site, pagesRoot: fixture.pages, distRoot: fixture.dist)
        #expect(!builder.build().hasErrors)
        let head = try #require(try fixture.publishedJSON("en/index.json") as? [String: Any])
        #expect(head["parts"] as? Int == 2, "\(count) pages need two parts of at most \(PageIndexFiles.pagesPerPart)")
        #expect(try Self.entries(fixture, locale: "en").keys.filter { $0.hasPrefix("many/") }.count == count)
        let paths = ["en/index.json", "en/index.1.json", "en/index.2.json"]
        let before = try paths.map { try fixture.published($0) }
        // The index the build leaves for the next delta is split and settled: it has nothing to write.
        var kept = try #require(builder.burst.base?.pageIndex)
        #expect(kept.files().files.isEmpty)

        try fixture.write("title: Renamed\nsections:\n  - type: divider\n", to: "many/p7.yaml")
        let absolute = URL(fileURLWithPath: fixture.siteFolder).standardizedFileURL.path
        let save = builder.build(changed: ["\(absolute)/many/p7.yaml"])
        #expect(save.builtAsDelta && !save.hasErrors)
        let after = try paths.map { try fixture.published($0) }
        let part = PageIndex.part(of: "many/p7", parts: 2)
        let rewritten = paths.indices.filter { before[$0] != after[$0] }.map { paths[$0] }
        #expect(rewritten == ["en/index.\(part).json"])
        #expect(try Self.entries(fixture, locale: "en")["many/p7"]?["title"] as? String == "Renamed")

        // Fewer pages than the parts need: the index goes back to one part, and the other is gone.
        for number in 0..<40 { try fixture.remove("many/p\(number).yaml") }
        let removed = builder.build(changed: Set((0..<40).map { "\(absolute)/many/p\($0).yaml" }))
        #expect(!removed.hasErrors)
        #expect((try fixture.publishedJSON("en/index.json") as? [String: Any])?["parts"] as? Int == 1)
        #expect(!FileManager.default.fileExists(atPath: "\(fixture.dist)/\(fixture.site)/current/en/index.2.json"))
        #expect(try Self.entries(fixture, locale: "en").keys.filter { $0.hasPrefix("many/") }.count == count - 40)
    }

    /// The part rule spreads ids of the shapes sites use evenly over the parts the index picks:
    /// no part holds more than half as much again as its share.
    static let idShapes: [String: [String]] = [
        "p-00000, 10,000": (0..<10_000).map { "p-" + String(100_000 + $0).dropFirst() },
        "p-000000, 100,000": (0..<100_000).map { "p-" + String(1_000_000 + $0).dropFirst() },
        "folders of 100": (0..<10_000).map { "s\($0 / 100)/p-\($0)" },
        "two kinds": (0..<20_000).map { "news/2026/item-\($0)" } + (0..<20_000).map { "p\($0)" },
    ]

    @Test(arguments: idShapes.keys.sorted())
    func partsHoldTheirShareOfPages(shape: String) {
        let ids = Self.idShapes[shape] ?? []
        let parts = PageIndexFiles.partCount(pages: ids.count)
        var counts = Array(repeating: 0, count: parts)
        for id in ids { counts[PageIndex.part(of: id, parts: parts) - 1] += 1 }
        let share = Double(ids.count) / Double(parts)
        #expect(
            parts > 1 && Double(counts.max()!) <= share * 1.5 && Double(counts.min()!) >= share / 2,
            "\(parts) parts: \(counts.min()!)...\(counts.max()!)")
    }

    @Test func aPageCalledIndexIsRefused() throws {
        let fixture = try SiteFixture()
        try fixture.write("title: Index\nsections:\n  - type: divider\n", to: "index.yaml")
        let result = fixture.build()
        #expect(fixture.lines(result).contains { $0.contains("site/index.yaml") && $0.contains("'index' is reserved") })
    }
}
