import Foundation
import Testing

@testable import QuireCore

/// Feeds (`feeds:` in site.yaml): parts numbered from the oldest entry, kept page by page by the
/// delta path, equal to a build from scratch after every save.
@Suite struct FeedTests {
    static let siteYAML = """
        default_locale: en
        locales: [en, fr]
        ttl: 120
        feeds:
          news: {pages: "news/*", order: newest, page_size: 2}
          guides: {tags: [guide], order: oldest, page_size: 3}

        """

    final class Clock: @unchecked Sendable {
        var date = Date(timeIntervalSince1970: 1_767_225_600)  // 2026-01-01
    }

    static func news(_ title: String, day: Int, tags: String = "", summary: String? = nil) -> String {
        let date = String(format: "2025-01-%02dT09:00:00Z", day)
        return "title: \(title)\npublish_at: \(date)\n\(summary.map { "summary: \($0)\n" } ?? "")\(tags)sections:\n  - type: divider\n"
    }

    final class Run {
        let fixture: SiteFixture
        let builder: SiteBuilder
        let absolute: String
        let clock = Clock()
        var options = BuildOptions()

        init(entries: Int) throws {
            fixture = try SiteFixture(from: nil)
            try fixture.write(FeedTests.siteYAML, to: "site.yaml")
            for day in 1...entries {
                try fixture.write(
                    FeedTests.news("News \(day)", day: day, tags: day % 2 == 0 ? "tags: [guide]\n" : ""), to: "news/n\(day).yaml")
            }
            let clock = self.clock
            options.now = { clock.date }
            builder = SiteBuilder(site: fixture.site, pagesRoot: fixture.pages, distRoot: fixture.dist, options: options)
            absolute = URL(fileURLWithPath: fixture.siteFolder).standardizedFileURL.path
            #expect(!builder.build().hasErrors)
        }

        /// Every feed file of the current version, by path.
        func feedFiles(_ dist: String? = nil) -> [String: Data] {
            let root = "\(dist ?? fixture.dist)/\(fixture.site)/current"
            var files: [String: Data] = [:]
            for locale in ["en", "fr"] {
                let folder = "\(root)/\(locale)/feeds"
                for name in (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [] {
                    files["\(locale)/feeds/\(name)"] = FileManager.default.contents(atPath: "\(folder)/\(name)")
                }
            }
            return files
        }

        /// The inode of each feed file of the current version, by path: a file the publish
        /// wrote has a new one; a carried file is a hard link of the previous version's.
        func feedInodes() -> [String: UInt64] {
            var inodes: [String: UInt64] = [:]
            for path in feedFiles().keys {
                var status = stat()
                if stat("\(fixture.dist)/\(fixture.site)/current/\(path)", &status) == 0 { inodes[path] = UInt64(status.st_ino) }
            }
            return inodes
        }

        /// Builds the change, checks it took the delta path, and that the feeds equal a build
        /// from scratch; returns the feed files the publish wrote or removed (by inode).
        @discardableResult
        func save(
            _ comment: Comment, changed: [String]?, delta: Bool = true, sourceLocation: SourceLocation = #_sourceLocation,
            _ change: () throws -> Void
        ) throws -> Set<String> {
            let before = feedInodes()
            try change()
            // nil: what the watcher's timer builds at a scheduled time.
            let result = builder.build(changed: changed.map { Set($0.map { "\(absolute)/\($0)" }) })
            #expect(result.builtAsDelta == delta && !result.hasErrors, comment, sourceLocation: sourceLocation)
            let after = feedFiles()
            let dist = fixture.root + "/fresh-" + UUID().uuidString
            let fresh = SiteBuilder(site: fixture.site, pagesRoot: fixture.pages, distRoot: dist, options: options).build()
            #expect(!fresh.hasErrors)
            let reference = feedFiles(dist)
            #expect(after.keys.sorted() == reference.keys.sorted(), comment, sourceLocation: sourceLocation)
            for (path, bytes) in reference where after[path] != bytes {
                Issue.record("\(comment): \(path) differs from a build from scratch", sourceLocation: sourceLocation)
            }
            let inodes = feedInodes()
            return Set(inodes.keys.filter { before[$0] != inodes[$0] }).union(before.keys.filter { inodes[$0] == nil })
        }

        func json(_ path: String) throws -> [String: Any] {
            try #require(try fixture.publishedJSON(path) as? [String: Any])
        }
    }

    @Test func partsAreNumberedFromTheOldestEntry() throws {
        let run = try Run(entries: 5)
        // newest, 2 a part: news.json holds 5 (part 3), news.2.json 4 and 3, news.1.json 2 and 1.
        let newest = try run.json("en/feeds/news.json")
        #expect(newest["page_id"] as? String == "feeds/news")
        #expect(newest["part"] as? Int == 3)
        #expect(newest["next"] as? String == "news.2.json")
        let cards = try #require(newest["sections"] as? [[String: Any]])
        #expect(cards.map { $0["page_id"] as? String } == ["news/n5"])
        let card = try #require(cards.first)
        #expect(card["type"] as? String == "page_link")
        #expect(card["title"] as? String == "News 5")
        #expect(card["date"] as? String == "2025-01-05T09:00:00Z")
        let fallback = try #require(card["fallback"] as? [String: Any])
        #expect(fallback["type"] as? String == "cta_button" && fallback["destination"] as? String == "/news/n5")
        #expect(fallback["action"] as? String == "navigate" && fallback["label"] as? String == "News 5")
        let archive = try run.json("en/feeds/news.1.json")
        #expect((archive["sections"] as? [[String: Any]])?.map { $0["page_id"] as? String } == ["news/n2", "news/n1"])
        #expect(archive["next"] is NSNull)
        // oldest, 3 a part: guides.json is part 1 (2 and 4); it ends there.
        let guides = try run.json("en/feeds/guides.json")
        #expect((guides["sections"] as? [[String: Any]])?.map { $0["page_id"] as? String } == ["news/n2", "news/n4"])
        #expect(guides["next"] is NSNull)
        // The index names each page's feeds.
        let index = try run.json("en/index.1.json")
        let pages = try #require(index["pages"] as? [[String: Any]])
        #expect(pages.first { $0["id"] as? String == "news/n2" }?["feeds"] as? [String] == ["guides", "news"])
        // The status lists each feed, its length and newest entry (default locale).
        let status = try #require(
            try JSONSerialization.jsonObject(
                with: Data(contentsOf: URL(fileURLWithPath: "\(run.fixture.dist)/\(run.fixture.site)/status/status.json")))
                as? [String: Any])
        let feeds = try #require(status["feeds"] as? [[String: Any]])
        #expect(feeds.map { $0["name"] as? String } == ["guides", "news"])
        #expect(feeds.map { $0["entries"] as? Int } == [2, 5])
        #expect((feeds.last?["newest"] as? [String: Any])?["page_id"] as? String == "news/n5")
        let statusPage = try String(contentsOfFile: "\(run.fixture.dist)/\(run.fixture.site)/status/index.html", encoding: .utf8)
        #expect(statusPage.contains("news: 5 entries, newest news/n5 (2025-01-05T09:00:00Z)"))
        // Each feed's preview is the shell page previews are, which draws its parts.
        #expect(
            try run.fixture.published("preview/fr/feeds/news.html")
                == String(
                    decoding: PagePreview.shell(site: run.fixture.site, pageID: "feeds/news", source: .published), as: UTF8.self))
        // The cache header files give the feed's files the site's ttl.
        #expect(try run.fixture.published("http/nginx-ttl.map").contains("/en/feeds/news.json\" 120;"))
    }

    @Test func aSeriesOfSavesMatchesABuildFromScratchAndRewritesOnlyWhatItMust() throws {
        let run = try Run(entries: 7)
        let fixture = run.fixture
        // A new, newest entry: the newest part fills up (news.json, part 4 of 4 then 5 of 5).
        var written = try run.save("a new entry", changed: ["news/n8.yaml"]) {
            try fixture.write(Self.news("News 8", day: 8), to: "news/n8.yaml")
        }
        #expect(written == ["en/feeds/news.json", "fr/feeds/news.json"])
        written = try run.save("a new entry opening a part", changed: ["news/n9.yaml"]) {
            try fixture.write(Self.news("News 9", day: 9), to: "news/n9.yaml")
        }
        #expect(written == ["en/feeds/news.json", "en/feeds/news.4.json", "fr/feeds/news.json", "fr/feeds/news.4.json"])
        // A title change: only the part holding it, in each locale.
        written = try run.save("a title change", changed: ["news/n1.yaml"]) {
            try fixture.write(Self.news("First news", day: 1, summary: "Where it began"), to: "news/n1.yaml")
        }
        #expect(written == ["en/feeds/news.1.json", "fr/feeds/news.1.json"])
        #expect(try run.fixture.published("en/feeds/news.1.json").contains("Where it began"))
        // A translation: only its locale.
        written = try run.save("a translation", changed: ["l10n/fr/news/n3.yaml"]) {
            try fixture.write("title: Nouvelles 3\n", to: "l10n/fr/news/n3.yaml")
        }
        #expect(written == ["fr/feeds/news.2.json"])
        // A tag added: the page joins the other feed, in place by its date.
        written = try run.save("a tag", changed: ["news/n3.yaml"]) {
            try fixture.write(Self.news("News 3", day: 3, tags: "tags: [guide]\n"), to: "news/n3.yaml")
        }
        #expect(written.allSatisfy { $0.contains("/feeds/guides") })
        // A deletion: the parts from its position on. news: 1,3 | 4,5 | 6,7 | 8,9 (one part
        // fewer: news.4.json goes); guides (n2 was its first): 3,4,6 (guides.2.json goes).
        func inBoth(_ names: [String]) -> Set<String> { Set(["en", "fr"].flatMap { locale in names.map { "\(locale)/feeds/\($0)" } }) }
        written = try run.save("a deletion", changed: ["news/n2.yaml"]) { try fixture.remove("news/n2.yaml") }
        let fromTheFirst = ["news.1.json", "news.2.json", "news.3.json", "news.4.json", "news.json", "guides.json", "guides.2.json"]
        #expect(written == inBoth(fromTheFirst))
        // A draft leaves: news 1,3 | 4,6 | 7,8 | 9, the first part kept.
        written = try run.save("a draft", changed: ["news/n5.yaml"]) {
            try fixture.write("draft: true\n" + Self.news("News 5", day: 5), to: "news/n5.yaml")
        }
        #expect(written == inBoth(["news.2.json", "news.3.json", "news.json"]))
        // A page scheduled ahead is not in the feed until the watcher's scheduled rebuild.
        written = try run.save("scheduled ahead", changed: ["news/later.yaml"]) {
            try fixture.write(
                "title: Later\npublish_at: 2026-02-01T00:00:00Z\nsections:\n  - type: divider\n", to: "news/later.yaml")
        }
        #expect(written.isEmpty)
        #expect(try !run.fixture.published("en/feeds/news.json").contains("news/later"))
        run.clock.date = Date(timeIntervalSince1970: 1_772_000_000)  // 2026-02-25
        // The rebuild at its time is a full build: still only the newest part (9, later).
        written = try run.save("its time came", changed: nil, delta: false) {}
        #expect(written == inBoth(["news.json"]))
        #expect(try run.fixture.published("en/feeds/news.json").contains("news/later"))
        // An expired page leaves.
        written = try run.save("expired", changed: ["news/n9.yaml"]) {
            try fixture.write(Self.news("News 9", day: 9) + "expires_at: 2026-02-02T00:00:00Z\n", to: "news/n9.yaml")
        }
        #expect(written == inBoth(["news.json"]))
        #expect(try !run.fixture.published("en/feeds/news.json").contains("news/n9"))
    }

    /// A full build sets every card at once (`setEvery`, sorted once); a delta sets them page by
    /// page: both make the same files, for pages that share a date (they sort by id) and pages in
    /// one locale only.
    @Test(arguments: FeedConfig.Order.allCases)
    func settingEveryPageAtOnceEqualsSettingThemOneByOne(order: FeedConfig.Order) {
        let locales = ["en", "fr"]
        let feeds = [
            FeedConfig(name: "all", pattern: "**", order: order, pageSize: 7, position: SourcePosition(line: 1, column: 1)),
            FeedConfig(name: "tagged", tags: ["t"], order: order, pageSize: 3, position: SourcePosition(line: 2, column: 1)),
        ]
        var previous: [String: [String: PageIndexFiles.BoxedEntry]] = [:]
        for number in 0..<150 {
            let id = "p\(number * 7919 % 150)"
            for locale in locales where locale == "en" || number % 5 != 0 {
                let listing = PageIndexFiles.Listing(title: "\(locale) \(id)", ttl: 60, tags: number % 3 == 0 ? ["t"] : [])
                let entry = PageIndexFiles.Entry(
                    listing: listing, feeds: feeds.filter { $0.includes(id, tags: listing.tags) }.map(\.name),
                    publishedAt: "2026-01-\(10 + number % 4)T00:00:00Z", changedIn: VersionID(1))
                previous[locale, default: [:]][id] = PageIndexFiles.BoxedEntry(entry)
            }
        }
        let index = PageIndexFiles(locales: locales, appRoutes: [], feeds: feeds, previous: previous)
        var atOnce = FeedFiles(feeds: feeds, locales: locales, ttl: 60)
        atOnce.setEvery(from: index)
        var oneByOne = FeedFiles(feeds: feeds, locales: locales, ttl: 60)
        for id in Set(previous.values.flatMap(\.keys)) { oneByOne.set(id, entries: index.entries(of: id)) }
        func contents(_ feeds: inout FeedFiles) -> [String: String] {
            var contents: [String: String] = [:]
            for file in feeds.files(base: [:]).files {
                if case .bytes(let bytes) = file.content { contents[file.path] = String(decoding: bytes, as: UTF8.self) }
            }
            return contents
        }
        let expected = contents(&oneByOne)
        // all: 150 pages in en, 120 in fr, 7 a part; tagged: 50 and 40, 3 a part.
        #expect(expected.count == (22 + 18) + (17 + 14))
        #expect(contents(&atOnce) == expected)
        #expect(atOnce.summary(locale: "fr") == oneByOne.summary(locale: "fr"))
    }

    @Test(arguments: [
        ("feeds:\n  news: {order: newest}\n", "site.yaml:2:9: error: feeds.news: a feed needs pages"),
        (
            "feeds:\n  news: {pages: \"news/*\", order: latest}\n",
            "site.yaml:2:34: error: feeds.news.order: must be 'newest' or 'oldest', found 'latest'"
        ),
        ("feeds:\n  news: {pages: \"news/*\", page_size: 0}\n", "site.yaml:2:38: error: feeds.news.page_size: must be at least 1, found 0"),
        ("feeds:\n  news: {pages: \"news/*\", page_size: 501}\n", "site.yaml:2:38: error: feeds.news.page_size: must be at most 500"),
        ("feeds:\n  news: {pages: \"News/*\"}\n", "site.yaml:2:17: error: feeds.news.pages: 'News/*' is not a page id pattern"),
        (
            "feeds:\n  home: {pages: \"*\"}\n",
            "site.yaml:2:3: error: feeds.home: the feed's files '<locale>/feeds/home.json' would replace the page 'feeds/home'"
        ),
    ])
    func badFeedsAreErrorsWithPositions(yaml: String, message: String) throws {
        let fixture = try SiteFixture(from: nil)
        try fixture.write(yaml, to: "site.yaml")
        try fixture.write("title: Home\nsections:\n  - type: divider\n", to: "feeds/home.yaml")
        let result = fixture.build()
        #expect(result.hasErrors)
        #expect(fixture.lines(result).contains { $0.contains(message) }, "\(fixture.lines(result))")
    }
}
