import Foundation
import Testing
import QuireModel

/// Decoding published pages with QuireModel: the repository's `fixtures/` (what Quire publishes)
/// and hand-written broken pages.
@Suite struct PageDecoderTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let fixtures = repository.appendingPathComponent("fixtures")

    static func data(_ path: String) throws -> Data { try Data(contentsOf: fixtures.appendingPathComponent(path)) }

    static func allFixtures() -> [String] {
        guard let enumerator = FileManager.default.enumerator(atPath: fixtures.path) else { return [] }
        return (enumerator.allObjects as? [String] ?? []).filter { $0.hasSuffix(".json") }.sorted()
    }

    @Test func everyPublishedFixtureDecodes() throws {
        let paths = Self.allFixtures()
        #expect(paths.count > 10)
        for path in paths {
            let page = try PageDecoder().decode(try Self.data(path))
            #expect(!page.pageID.isEmpty)
            // Only the samples' deliberately unknown section types are skipped.
            for skip in page.skipped {
                #expect(["unknown section type 'holo_deck'", "unknown section type 'hologram_projector'"].contains(skip.reason), "\(path): \(skip)")
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
        #expect(markdown.body.html.contains("<strong>directly comparable</strong>"))
        #expect(!markdown.body.blocks.isEmpty)
        #expect(page.sections.contains { ($0 as? CTAButton)?.action == .navigate })
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
}
