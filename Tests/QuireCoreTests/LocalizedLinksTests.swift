import Foundation
import Testing

@testable import QuireCore

/// `translations: {links: localized}` in site.yaml, on the `souk` site of tests/e2e/fixtures (whose
/// translations point their link at the page in their language), built by the CLI's `SiteBuilder`.
@Suite struct LocalizedLinksTests {
    private func souk() throws -> SiteFixture {
        let fixture = try SiteFixture(site: "souk", from: nil)
        try FileManager.default.removeItem(atPath: fixture.siteFolder)
        try FileManager.default.copyItem(atPath: RightToLeftTests.souk, toPath: fixture.siteFolder)
        return fixture
    }

    private func siteYAML(_ fixture: SiteFixture, links: String) throws {
        let path = "\(fixture.siteFolder)/site.yaml"
        let text = try String(contentsOfFile: path, encoding: .utf8)
        try fixture.write(
            text.replacingOccurrences(of: "translations: {links: localized}", with: "translations: {links: \(links)}"),
            to: "site.yaml")
    }

    @Test func localizedLinksArePublishedInTheirLocale() throws {
        let fixture = try souk()
        let result = fixture.build()
        #expect(fixture.lines(result) == [])
        for (locale, path) in [("en", "/en/"), ("fr", "/fr/"), ("ar", "/ar/"), ("he-IL", "/he/")] {
            let html = try fixture.published("\(locale)/home.json")
            #expect(html.contains("https://example.com\(path)delivery"), "\(locale)")
        }
    }

    @Test func sameLinksIsTheDefaultAndRefusesAChangedTarget() throws {
        let fixture = try souk()
        try siteYAML(fixture, links: "same")
        let lines = fixture.lines(fixture.build())
        #expect(
            lines.contains(
                "souk/l10n/ar/home.yaml:2:1: error: intro.body: the translation drops the link 'https://example.com/en/delivery' "
                    + "and adds the link 'https://example.com/ar/delivery': keep the links of the source text"))
        #expect(lines.count == 3)
    }

    @Test func aDroppedAddedOrUnsafeLinkStaysAnErrorAtItsEntry() throws {
        let fixture = try souk()
        try fixture.write("intro.body: \"Des épices fraîches chaque matin.\"\n", to: "l10n/fr/home.yaml")
        try fixture.write(
            "intro.body: \"[توابل](https://example.com/ar/spices) [قواعد](https://example.com/ar/delivery)\"\n",
            to: "l10n/ar/home.yaml")
        try fixture.write("title: השוק\nintro.body: \"קראו את [כללי המשלוח](javascript:alert(1)).\"\n", to: "l10n/he-IL/home.yaml")
        #expect(
            fixture.lines(fixture.build()) == [
                "souk/l10n/ar/home.yaml:1:1: error: intro.body: the translation adds 1 link (2 for the source's 1): "
                    + "keep as many links as the source text, their targets may be localized",
                "souk/l10n/fr/home.yaml:1:1: error: intro.body: the translation drops 1 link (0 for the source's 1): "
                    + "keep as many links as the source text, their targets may be localized",
                "souk/l10n/he-IL/home.yaml:2:1: error: intro.body: the translation links to 'javascript:alert(1)', which is not allowed: "
                    + "use https:, http:, mailto:, tel: or a relative link",
            ])
    }

    @Test func anUnknownLinkPolicyIsAPositionedError() throws {
        let fixture = try souk()
        try siteYAML(fixture, links: "anywhere")
        let lines = fixture.lines(fixture.build())
        let expected = "souk/site.yaml:8:23: error: translations.links: must be 'same' or 'localized', found 'anywhere'"
        #expect(lines.contains(expected), "\(lines)")
    }
}
