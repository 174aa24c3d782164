import Foundation
import QuireModel
import Testing

/// Decoding published pages with QuireModel: the repository's `fixtures/` (what Quire publishes)
/// and hand-written broken pages.
@Suite struct PageDecoderTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static let fixtures = repository.appendingPathComponent("fixtures")

    static func data(_ path: String) throws -> Data { try Data(contentsOf: fixtures.appendingPathComponent(path)) }

    /// Every page fixture (feeds included); the page indexes are `indexFixtures`.
    static func allFixtures() -> [String] {
        guard let enumerator = FileManager.default.enumerator(atPath: fixtures.path) else { return [] }
        return (enumerator.allObjects as? [String] ?? []).filter { $0.hasSuffix(".json") && !isIndex($0) }.sorted()
    }

    /// `<site>/<locale>/index.json` or one of its parts.
    static func isIndex(_ path: String) -> Bool {
        path.split(separator: "/").count == 3 && path.wholeMatch(of: /.+\/index(\.[0-9]+)?\.json/) != nil
    }

    static func indexFixtures() -> [String] {
        guard let enumerator = FileManager.default.enumerator(atPath: fixtures.path) else { return [] }
        return (enumerator.allObjects as? [String] ?? []).filter { isIndex($0) && $0.hasSuffix("/index.json") }.sorted()
    }

    /// An app's own type with markdown fields, as the acme fixture site declares it.
    struct Testimonial: SectionDecodable {
        static let sectionType = "testimonial"
        struct Photo: Decodable {
            var imageURL: String?
            var caption: MarkdownText?

            init(from decoder: any Decoder) throws {
                imageURL = try decoder.container(keyedBy: CodingKeys.self).decodeIfPresent(String.self, forKey: .imageURL)
                caption = try MarkdownText(from: decoder, field: "caption")
            }

            enum CodingKeys: String, CodingKey { case imageURL = "image_url" }
        }
        var quote: MarkdownText
        var author: String?
        var photos: [Photo]?

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            quote = try MarkdownText(from: decoder, field: "quote")
            author = try container.decodeIfPresent(String.self, forKey: .author)
            photos = try container.decodeIfPresent([Photo].self, forKey: .photos)
        }

        enum CodingKeys: String, CodingKey { case author, photos }
    }

    @Test func everyPublishedFixtureDecodes() throws {
        let paths = Self.allFixtures()
        #expect(paths.count > 10)
        var decoder = PageDecoder()
        decoder.register(Testimonial.self)
        for path in paths {
            let page = try decoder.decode(try Self.data(path))
            #expect(!page.pageID.isEmpty)
            // Only the samples' deliberately unknown section types are skipped.
            for skip in page.skipped {
                #expect(
                    ["unknown section type 'holo_deck'", "unknown section type 'hologram_projector'"].contains(skip.reason),
                    "\(path): \(skip)")
            }
        }
    }

    @Test func builtInSectionsDecodeToTheirTypes() throws {
        let page = try PageDecoder().decode(try Self.data("trex/en/trex-store.json"))
        #expect(page.pageID == "trex-store")
        #expect(page.skipped.isEmpty)
        let hero = try #require(page.sections.first as? HeroBanner)
        #expect(hero.imageURL == "/assets/trex-banner.jpg")
        let grid = try #require(page.sections.compactMap { $0 as? ProductGrid }.first)
        #expect(grid.items.first?.id == "idpa-50")
        let markdown = try #require(page.sections.compactMap { $0 as? MarkdownBlock }.first)
        #expect(markdown.body.markdown.contains("**directly comparable**"))
        #expect(markdown.body.html?.contains("<strong>directly comparable</strong>") == true)
        #expect(markdown.body.blocks?.isEmpty == false)
        #expect(page.sections.contains { ($0 as? CTAButton)?.action == .navigate })
    }

    /// The response of the app team's design note, copied verbatim: markdown is a lone string there.
    @Test func theSpecsExampleResponseDecodesWithNothingSkipped() throws {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/seed-example-response.json")
        let page = try PageDecoder().decode(try Data(contentsOf: url))
        #expect(page.skipped == [])
        #expect(page.pageID == "trex-store")
        #expect(page.title == "T.REX ARMS Store")
        #expect(
            page.sections.map { type(of: $0).sectionType }
                == ["hero_banner", "product_grid", "markdown_block", "drill_carousel", "cta_button"])
        let markdown = try #require(page.sections[2] as? MarkdownBlock)
        let text = "### Why standardized targets matter\nUsing official kit means your scores are directly comparable..."
        #expect(markdown.body == MarkdownText(markdown: text))
        #expect((page.sections[1] as? ProductGrid)?.items.first?.price == "$24.99")
        #expect((page.sections[3] as? DrillCarousel)?.drillIDs.count == 2)
        #expect((page.sections[4] as? CTAButton)?.destination == "/drills")
    }

    /// A page published before manifest format 2 (what a rollback may serve): markdown as an object.
    @Test func markdownPublishedAsAnObjectStillDecodes() throws {
        let json =
            #"{"page_id": "p", "sections": [{"type": "announcement", "#
            + #""body": {"markdown": "*Hi*", "html": "<p><em>Hi</em></p>", "blocks": []}}]}"#
        let page = try PageDecoder().decode(Data(json.utf8))
        #expect(page.skipped == [])
        #expect((page.sections.first as? Announcement)?.body == MarkdownText(markdown: "*Hi*", html: "<p><em>Hi</em></p>", blocks: []))
    }

    @Test func aMarkdownFieldOfTheWrongShapeSkipsItsSection() throws {
        let json =
            #"{"page_id": "p", "sections": [{"type": "markdown_block", "body": "a", "body_html": 3}, "#
            + #"{"type": "markdown_block", "body": 7}]}"#
        let page = try PageDecoder().decode(Data(json.utf8))
        #expect(page.sections.isEmpty)
        #expect(page.skipped.map(\.keyPath) == ["sections[0]", "sections[1]"])
        #expect(page.skipped[0].reason.contains("body_html"), "\(page.skipped[0].reason)")
    }

    @Test func unknownTypesAreSkippedWithTheirKeyPath() throws {
        let page = try PageDecoder().decode(try Self.data("acme/en/home.3@pro.json"))
        #expect(page.audience == "pro")
        #expect(page.part == 3)
        #expect(page.skipped == [DecodedPage.Skip(keyPath: "sections[0]", reason: "unknown section type 'holo_deck'")])
    }

    @Test func malformedSectionsAreSkippedAndTheRestDecodes() throws {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/malformed-sections.json")
        let page = try PageDecoder().decode(try Data(contentsOf: url))
        #expect(page.sections.count == 2)
        #expect(page.sections.first is HeroBanner)
        #expect(page.sections.last is Divider)
        #expect(page.skipped.map(\.keyPath) == ["sections[1]", "sections[2]", "sections[3]", "sections[4]", "sections[5]"])
        #expect(page.skipped[0].reason.contains("items[0].title"), "\(page.skipped[0].reason)")
        #expect(page.skipped[3].reason == "unknown section type 'poll'")
    }

    struct Poll: SectionDecodable {
        static let sectionType = "poll"
        var question: String
    }

    /// An app's replacement for a built-in type: the last registration wins.
    struct PlainDivider: SectionDecodable {
        static let sectionType = "divider"
    }

    @Test func theRegistryIsOpenAndTheLastRegistrationWins() throws {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/malformed-sections.json")
        var decoder = PageDecoder()
        decoder.register(Poll.self)
        decoder.register(PlainDivider.self)
        let page = try decoder.decode(try Data(contentsOf: url))
        #expect((page.sections.compactMap { $0 as? Poll }.first)?.question == "Best drill?")
        #expect(page.sections.last is PlainDivider)
        #expect(!page.skipped.contains { $0.keyPath == "sections[4]" })
    }

    @Test func olderAppsGetTheFallback() throws {
        let data = try Self.data("acme/en/home.2.json")
        let current = try PageDecoder(appVersion: "1.1").decode(data)
        #expect(current.sections.first is VideoEmbed)
        let older = try PageDecoder(appVersion: "1.0").decode(data)
        let fallback = try #require(older.sections.first as? MarkdownBlock)
        #expect(fallback.body.markdown == "Watch the video on our website.")
    }

    @Test func envelopeRedirectsAndPartsDecode() throws {
        let home = try PageDecoder().decode(try Self.data("acme/en/home.json"))
        #expect(home.nav.count == 1)
        #expect(home.header.first is Announcement)
        #expect(home.footer.first is Divider)
        #expect(home.refresh == DecodedPage.Refresh(interval: 600, onAppear: true))
        #expect(home.next == "home.2.json")
        #expect(home.parts == 2)
        #expect(home.ttl == 30)
        let stub = try PageDecoder().decode(try Self.data("acme/en/old-home.json"))
        #expect(stub.redirectTo == "home")
        #expect(stub.sections.isEmpty)
    }

    @Test func notAPageThrows() {
        #expect(throws: (any Error).self) { try PageDecoder().decode(Data("[1, 2]".utf8)) }
        #expect(throws: (any Error).self) { try PageDecoder().decode(Data("{\"sections\": []}".utf8)) }
    }

    /// A feed decodes as a page of `PageLink` cards; an app too old for the type gets each card's
    /// `cta_button` to the page.
    @Test func aFeedIsAPageOfPageLinks() throws {
        let data = try Self.data("trex/en/feeds/guides.json")
        let feed = try PageDecoder().decode(data)
        #expect(feed.pageID == "feeds/guides" && feed.feed?.name == "guides" && feed.feed?.order == "newest")
        #expect(feed.skipped.isEmpty)
        let cards = feed.sections.compactMap { $0 as? PageLink }
        #expect(cards.map(\.pageID) == ["guides/church-security", "guides/range-safety"], "newest first")
        #expect(cards.first?.imageURL == "/assets/church-team.jpg" && cards.first?.summary?.isEmpty == false)
        let old = try PageDecoder(appVersion: "1.0").decode(data)
        #expect(old.sections.compactMap { ($0 as? CTAButton)?.destination } == cards.map { "/" + $0.pageID })
    }

    /// Each locale's index resolves what its pages link to: every listed page's file, every
    /// `/assets/` image and every `navigate` destination of every page fixture of the site.
    @Test func thePageIndexResolvesEveryLinkOfTheFixtures() throws {
        let indexes = Self.indexFixtures()
        #expect(indexes.count >= 7)
        var resolved = (assets: 0, pages: 0, routes: 0)
        for path in indexes {
            var index = try PageIndex.decode(try Self.data(path))
            let folder = (path as NSString).deletingLastPathComponent
            // The pages, from the parts, each listing the pages the part rule gives it.
            for number in 1...index.parts {
                let part = try PageIndex.Part.decode(try Self.data("\(folder)/\(PageIndex.partFile(number))"))
                #expect(part.part == number && part.locale == index.locale)
                #expect(part.pages.allSatisfy { PageIndex.part(of: $0.id, parts: index.parts) == number })
                index.add(part)
            }
            #expect(!index.pages.isEmpty)
            let indexURL = URL(string: "https://cdn.example/\(folder.split(separator: "/")[0])/current/\(index.locale)/index.json")!
            #expect(path.hasPrefix(folder) && folder.hasSuffix(index.locale))
            for page in index.pages {
                let url = try #require(index.pageURL(page.id, indexURL: indexURL))
                #expect(
                    url.absoluteString == "https://cdn.example/\(folder.split(separator: "/")[0])/current/\(index.locale)/\(page.id).json")
                #expect(FileManager.default.fileExists(atPath: Self.fixtures.appendingPathComponent("\(folder)/\(page.id).json").path))
            }
            let site = String(folder.split(separator: "/")[0])
            for pagePath in Self.allFixtures() where pagePath.hasPrefix(folder + "/") {
                let text = String(decoding: try Self.data(pagePath), as: UTF8.self)
                for match in text.matches(of: /"image_url":"(\/assets\/[^"]+)"/) {
                    let url = try #require(index.assetURL(String(match.1), indexURL: indexURL))
                    #expect(url.absoluteString == "https://cdn.example/\(site)/current/assets/" + match.1.dropFirst("/assets/".count))
                    resolved.assets += 1
                }
                for match in text.matches(of: /"action":"navigate","destination":"([^"]+)"/) {
                    switch index.destination(String(match.1), indexURL: indexURL) {
                    case .page(let id, _):
                        #expect(index.pages.contains { $0.id == id })
                        resolved.pages += 1
                    case .appRoute(let route):
                        #expect(index.appRoutes.contains(String(route.prefix { $0 != "?" })))
                        resolved.routes += 1
                    case .unknown(let destination): Issue.record("\(pagePath): \(destination) resolves to nothing")
                    }
                }
            }
        }
        #expect(resolved.assets > 0 && resolved.pages > 0 && resolved.routes > 0, "\(resolved)")
        let trex = try PageIndex.decode(try Self.data("trex/en/index.json"))
        let base = URL(string: "https://cdn.example/trex/current/en/index.json")!
        #expect(trex.destination("/drills", indexURL: base) == .appRoute("/drills"))
        #expect(trex.destination("/nowhere", indexURL: base) == .unknown("/nowhere"))
        #expect(trex.assetURL("https://img.example/a.jpg", indexURL: base)?.absoluteString == "https://img.example/a.jpg")
        #expect(trex.partURL(2, indexURL: base)?.absoluteString == "https://cdn.example/trex/current/en/index.2.json")
    }

    /// The part rule as an app in another language writes it: with 2³² parts, a page's part is 1 +
    /// fmix32(FNV-1a(id)). FNV-1a's published vectors ("" 0x811c9dc5, "a" 0xe40c292c, "foobar"
    /// 0xbf9cf968) through MurmurHash3's fmix32, computed apart from this code.
    @Test func thePartRuleIsFNV1aThroughFmix32() {
        let parts = 1 << 32
        #expect(PageIndex.part(of: "", parts: parts) == 1 + 0xab3e_7c0b)
        #expect(PageIndex.part(of: "a", parts: parts) == 1 + 0x1a80_b1b3)
        #expect(PageIndex.part(of: "foobar", parts: parts) == 1 + 0x0c0d_a6dc)
        #expect(PageIndex.part(of: "news/spring", parts: 1) == 1)
        #expect(PageIndex.part(of: "news/spring", parts: 8) == 1, "0x1a770d03 is in the first eighth")
    }
}
