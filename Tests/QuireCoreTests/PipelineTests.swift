import Foundation
import QuireCore
import QuireModel
import Testing

/// The site pipeline end to end on real files: what `quire build` publishes.
@Suite struct PipelineTests {
    /// Every section type, published for the default locale and a translated one.
    @Test func goldenOutputForEverySectionType() throws {
        let fixture = try SiteFixture()
        try fixture.add(fixture: "validation/valid/all-sections.yaml", as: "all-sections.yaml")
        try fixture.add(fixture: "validation/l10n-fr/all-sections.yaml", as: "l10n/fr/all-sections.yaml")
        let result = fixture.build()
        #expect(!result.hasErrors, "\(fixture.lines(result))")
        for locale in ["en", "fr"] {
            let page = try fixture.published("\(locale)/all-sections.json")
            if let difference = Golden.compare(page, with: "validation/golden/all-sections.\(locale).json") {
                Issue.record(Comment(rawValue: difference))
            }
        }
        let types = try #require((fixture.publishedJSON("en/all-sections.json") as? [String: Any])?["sections"] as? [[String: Any]])
            .compactMap { $0["type"] as? String }
        for type in Vocabulary.builtIn.types.map(\.name) { #expect(types.contains(type), "\(type) missing") }
        #expect(types.contains("hologram_projector"), "unknown types are published unchanged")
    }

    @Test func yamlAndJSONSourcesPublishIdenticalPages() throws {
        let yaml = try SiteFixture()
        try yaml.add(fixture: "validation/valid/all-sections.yaml", as: "all-sections.yaml")
        let json = try SiteFixture()
        try json.add(fixture: "validation/valid/all-sections.json", as: "all-sections.json")
        #expect(!yaml.build().hasErrors)
        #expect(!json.build().hasErrors)
        #expect(try yaml.published("en/all-sections.json") == json.published("en/all-sections.json"))
        #expect(try yaml.published("fr/all-sections.json") == json.published("fr/all-sections.json"))
    }

    @Test func aBuildThatChangesNothingPublishesNothing() throws {
        let fixture = try SiteFixture()
        try fixture.add(fixture: "validation/valid/all-sections.yaml", as: "all-sections.yaml")
        guard case .published(let first, true) = fixture.build().outcome else {
            Issue.record("first build did not publish")
            return
        }
        #expect(fixture.build().outcome == .unchanged(first))
        // Touching a file without changing it is not a change either.
        try fixture.write(try String(contentsOfFile: "\(fixture.siteFolder)/all-sections.yaml", encoding: .utf8), to: "all-sections.yaml")
        #expect(fixture.build().outcome == .unchanged(first))
        #expect(fixture.versions == ["v000001"])
    }

    @Test func aBrokenSaveKeepsTheLastGoodOutput() throws {
        let fixture = try SiteFixture()
        try fixture.write("title: Good\nsections:\n  - type: divider\n", to: "page.yaml")
        #expect(!fixture.build().hasErrors)
        let good = try fixture.published("en/page.json")
        try fixture.write("title: Broken\nsections:\n  - type: hero_banner\n    title: 5\n", to: "page.yaml")
        try fixture.write("title: Other\nsections:\n  - type: divider\n", to: "other.yaml")
        let result = fixture.build()
        #expect(result.hasErrors)
        #expect(fixture.lines(result).contains("site/page.yaml:4:12: error: sections[0].title: must be text, found a number"))
        #expect(try fixture.published("en/page.json") == good, "the broken page keeps its last good output")
        #expect(try fixture.published("en/other.json").contains("\"Other\""), "other pages publish normally")
        let status = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: "\(fixture.dist)/site/status/status.json")))
                as? [String: Any])
        let diagnostics = try #require(status["diagnostics"] as? [[String: Any]])
        #expect(diagnostics.contains { ($0["message"] as? String) == "must be text, found a number" && ($0["line"] as? Int) == 4 })
        // Fixing it publishes again.
        try fixture.write("title: Fixed\nsections:\n  - type: divider\n", to: "page.yaml")
        #expect(!fixture.build().hasErrors)
        #expect(try fixture.published("en/page.json").contains("\"Fixed\""))
    }

    @Test func previewsShareTheStyleSheetAndScriptPublishedWithThem() throws {
        let fixture = try SiteFixture()
        try fixture.write("title: Guide\nsections:\n  - type: divider\n", to: "guides/intro.yaml")
        #expect(!fixture.build().hasErrors)
        #expect(try fixture.published("preview/preview.css") == String(decoding: PagePreview.stylesheet, as: UTF8.self))
        #expect(try fixture.published("preview/preview.js") == String(decoding: PagePreview.script, as: UTF8.self))
        let preview = try fixture.published("preview/en/guides/intro.html")
        #expect(preview.contains("<link rel=\"stylesheet\" href=\"../../../preview/preview.css\">"))
        #expect(preview.contains("<script src=\"../../../preview/preview.js\" integrity=\"sha256-"))
    }

    /// The preview banner of a page shows its own diagnostics, not those of a page whose path
    /// merely ends the same way.
    @Test func statusFilesDiagnosticsUnderTheirOwnPage() throws {
        let fixture = try SiteFixture()
        try fixture.write("title: Store\nsections:\n  - type: divider\n", to: "store.yaml")
        try fixture.write("title: Guide\nsections:\n  - type: divider\n", to: "guides/store.yaml")
        _ = fixture.build()
        try fixture.write("title: Guide\nsections:\n  - type: divider\n    style: wavy\n", to: "guides/store.yaml")
        _ = fixture.build()
        let status = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: "\(fixture.dist)/site/status/status.json")))
                as? [String: Any])
        let pages = try #require(status["pages"] as? [String: [String: Any]])
        #expect((pages["store"]?["diagnostics"] as? [Any])?.isEmpty == true)
        #expect((pages["guides/store"]?["diagnostics"] as? [Any])?.count == 1)
    }

    @Test func aBrokenSaveAloneCreatesNoVersion() throws {
        let fixture = try SiteFixture()
        try fixture.write("title: Good\nsections:\n  - type: divider\n", to: "page.yaml")
        try fixture.write("title: Bon\n", to: "l10n/fr/page.yaml")
        guard case .published(let first, _) = fixture.build().outcome else {
            Issue.record("no first version")
            return
        }
        try fixture.write("title: Good\nsections:\n  - type: divider\n    style: wavy\n", to: "page.yaml")
        let result = fixture.build()
        #expect(result.hasErrors)
        #expect(result.outcome == .unchanged(first), "the live page did not change, so no version is made")
    }

    @Test func aDeletedPageDisappearsFromTheNextVersion() throws {
        let fixture = try SiteFixture()
        try fixture.write("sections:\n  - type: divider\n", to: "gone.yaml")
        _ = fixture.build()
        #expect(FileManager.default.fileExists(atPath: "\(fixture.dist)/site/current/en/gone.json"))
        try fixture.remove("gone.yaml")
        _ = fixture.build()
        #expect(!FileManager.default.fileExists(atPath: "\(fixture.dist)/site/current/en/gone.json"))
        #expect(FileManager.default.fileExists(atPath: "\(fixture.dist)/site/versions/v000001/en/gone.json"), "old versions never change")
    }

    @Test func translationsFollowTheFallbackChain() throws {
        let fixture = try SiteFixture(from: nil)
        try fixture.write(
            "default_locale: en\nlocales: [en, fr, fr-CA]\nfallbacks:\n  fr-CA: [fr]\nstale_translations: fallback\n", to: "site.yaml")
        try fixture.write(
            "title: Store\nsections:\n  - type: cta_button\n    id: go\n    label: Browse drills\n    action: external\n    destination: https://example.com\n  - type: announcement\n    id: news\n    body: Closed {day}\n",
            to: "store.yaml")
        try fixture.write(
            "title: Boutique\ngo.label: {text: Voir, source: Browse all drills}\nnews.body: Fermé {day}\n", to: "l10n/fr/store.yaml")
        try fixture.write("title: Boutique CA\n", to: "l10n/fr-CA/store.yaml")
        let result = fixture.build()
        #expect(!result.hasErrors, "\(fixture.lines(result))")
        let canadian = try fixture.published("fr-CA/store.json")
        #expect(canadian.contains("\"Boutique CA\""))  // fr-CA's own
        #expect(canadian.contains("\"Fermé {day}\""))  // from fr
        #expect(canadian.contains("\"Browse drills\""))  // fr's is stale and the policy falls back to en
        let coverage = try #require(result.coverage.first { $0.locale == "fr" })
        #expect((coverage.translated, coverage.stale, coverage.missing) == (2, 1, 0))
        #expect(fixture.lines(result).contains { $0.contains("l10n/fr/store.yaml:2:1: warning: go.label: stale translation") })
    }

    @Test func damagedTranslationsAreErrorsWithPositions() throws {
        let fixture = try SiteFixture()
        try fixture.write(
            "sections:\n  - type: markdown_block\n    id: m\n    body: See [the rules](https://example.com/rules) by {date}\n", to: "p.yaml"
        )
        try fixture.write("m.body: Voir les règles avant {jour}\n", to: "l10n/fr/p.yaml")
        let lines = fixture.lines(fixture.build())
        #expect(
            lines.contains(
                "site/l10n/fr/p.yaml:1:1: error: m.body: the translation drops {date} and adds {jour}: keep the placeholders of the source text"
            ))
    }

    /// While builds publish new versions, `current` always resolves to a complete version.
    @Test func currentAlwaysResolvesToACompleteVersion() throws {
        let fixture = try SiteFixture()
        try fixture.write("title: Round 0\nsections:\n  - type: divider\n", to: "page.yaml")
        _ = fixture.build()
        let path = "\(fixture.dist)/site/current/en/page.json"
        let reader = CurrentReader(path: path)
        let thread = Thread { reader.run() }
        thread.start()
        for round in 1...40 {
            try fixture.write("title: Round \(round)\nsections:\n  - type: divider\n", to: "page.yaml")
            _ = fixture.build()
            reader.waitForReads(round * 5)
        }
        let (reads, failures) = reader.stop()
        #expect(reads >= 200)
        #expect(failures == 0, "\(failures) of \(reads) reads saw a missing or partial page")
        #expect(fixture.versions.count == 41)
    }
}

/// Reads a published page in a loop on its own thread, counting reads that fail.
final class CurrentReader: @unchecked Sendable {
    let path: String
    private let condition = NSCondition()
    private var reads = 0
    private var failures = 0
    private var stopping = false

    init(path: String) { self.path = path }

    func run() {
        while true {
            let data = FileManager.default.contents(atPath: path)
            let page = data.flatMap { try? JSONSerialization.jsonObject(with: $0) as? [String: Any] }
            let ok = (page?["title"] as? String)?.hasPrefix("Round") == true
            condition.lock()
            reads += 1
            if !ok { failures += 1 }
            condition.broadcast()
            let done = stopping
            condition.unlock()
            if done { return }
        }
    }

    /// Blocks until the reader has done at least `count` reads, so it runs during the builds.
    func waitForReads(_ count: Int) {
        condition.lock()
        while reads < count { condition.wait() }
        condition.unlock()
    }

    func stop() -> (Int, Int) {
        condition.lock()
        stopping = true
        let result = (reads, failures)
        condition.unlock()
        return result
    }
}
