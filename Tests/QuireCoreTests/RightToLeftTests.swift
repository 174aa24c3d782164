import Foundation
import Testing

@testable import QuireCore

/// Right-to-left locales on the `souk` site of tests/e2e/fixtures, built by the same `SiteBuilder`
/// the CLI runs: the page JSON, the manifest and the previews say which way each locale runs.
@Suite struct RightToLeftTests {
    static let souk = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../tests/e2e/fixtures/souk").standardized.path

    private func builtSouk() throws -> SiteFixture {
        let fixture = try SiteFixture(site: "souk", from: nil)
        try FileManager.default.removeItem(atPath: fixture.siteFolder)
        try FileManager.default.copyItem(atPath: Self.souk, toPath: fixture.siteFolder)
        let result = fixture.build()
        #expect(result.diagnostics.isEmpty, "\(fixture.lines(result))")
        return fixture
    }

    @Test(arguments: [
        ("ar", TextDirection.rtl), ("ar-EG", .rtl), ("he", .rtl), ("he-IL", .rtl), ("fa-IR", .rtl), ("ur", .rtl), ("ur-PK", .rtl),
        ("en", .ltr), ("fr-CA", .ltr), ("arn", .ltr), ("hr", .ltr), ("az-Arab", .rtl), ("ur-Latn", .ltr),
    ])
    func directionOfLocale(locale: String, direction: TextDirection) {
        #expect(TextDirection(locale: locale) == direction)
    }

    @Test func rightToLeftPagesSayRTLAndLeftToRightPagesSayNothing() throws {
        let fixture = try builtSouk()
        for locale in ["ar", "he-IL"] {
            let page = try #require(fixture.publishedJSON("\(locale)/home.json") as? [String: Any])
            #expect(page["direction"] as? String == "rtl", "\(locale)")
            #expect(page["locale"] as? String == locale)
        }
        for locale in ["en", "fr"] {
            let page = try #require(fixture.publishedJSON("\(locale)/home.json") as? [String: Any])
            #expect(page["direction"] == nil, "\(locale)")
        }
        let arabic = try #require(fixture.publishedJSON("ar/home.json") as? [String: Any])
        #expect(arabic["title"] as? String == "السوق")
    }

    @Test func manifestListsEachLocalesDirection() throws {
        let fixture = try builtSouk()
        let manifest = try #require(fixture.publishedJSON("manifest.json") as? [String: Any])
        let directions = try #require(manifest["directions"] as? [String: String])
        #expect(directions == ["en": "ltr", "fr": "ltr", "ar": "rtl", "he-IL": "rtl"])
    }

    /// A preview is laid out as its page's `direction` says, which its script reads from the JSON
    /// (tests/e2e/rtl-preview.sh checks the drawn page): the preview files are the same.
    @Test func previewsOfEveryDirectionShareOneDocument() throws {
        let fixture = try builtSouk()
        let shell = try fixture.published("preview/en/home.html")
        for locale in ["fr", "ar", "he-IL"] { #expect(try fixture.published("preview/\(locale)/home.html") == shell) }
        #expect(try fixture.published("ar/home.json").contains("\"direction\":\"rtl\""))
        #expect(try !fixture.published("en/home.json").contains("\"direction\""))
    }
}
