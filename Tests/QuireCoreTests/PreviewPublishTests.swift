import Foundation
import Testing

@testable import QuireCore

/// Previews as the builder publishes them: one shared document per folder depth, so saves that
/// change pages leave the version's `preview/` tree as it was.
@Suite struct PreviewPublishTests {
    /// `version`: as `SiteFixture.current` names it (`versions/v000001`).
    func versionFolder(_ fixture: SiteFixture, _ version: String) -> String { "\(fixture.dist)/\(fixture.site)/\(version)" }

    /// Where `versions/<v>/preview` points: a content-addressed tree, the same while nothing in it changed.
    func previewTree(_ fixture: SiteFixture, _ version: String) throws -> String {
        try FileManager.default.destinationOfSymbolicLink(atPath: versionFolder(fixture, version) + "/preview")
    }

    @Test func everyPreviewIsTheSharedDocumentOfItsDepth() throws {
        let run = try DeltaBuildTests.EditorRun()
        let fixture = run.fixture
        #expect(!run.builder.build().hasErrors)
        for locale in ["en", "fr"] {
            let home = try fixture.published("preview/\(locale)/home.html")
            #expect(home == String(decoding: PagePreview.shell(site: fixture.site, pageID: "home", source: .published), as: UTF8.self))
            #expect(try fixture.published("preview/\(locale)/other.html") == home)
            #expect(!home.contains("Public intro."), "the page's content is in its JSON only")
            let nested = try fixture.published("preview/\(locale)/guides/other.html")
            #expect(
                nested == String(decoding: PagePreview.shell(site: fixture.site, pageID: "guides/other", source: .published), as: UTF8.self)
            )
        }
        // Only drafts have JSON beside their previews.
        let previewFiles = try FileManager.default.subpathsOfDirectory(atPath: "\(fixture.dist)/\(fixture.site)/current/preview/")
        #expect(!previewFiles.contains { $0.hasSuffix(".json") })
    }

    /// The save walk of an editor: an edit, a broken save and its fix publish no new preview
    /// tree; a page turning draft does (its shell changes, and its JSON moves beside it), and so
    /// does one that comes back.
    @Test(arguments: [false, true])
    func aOnePageEditPublishesNoPreviewTree(spareFolders: Bool) throws {
        let run = try DeltaBuildTests.EditorRun(spareFolders: spareFolders)
        let fixture = run.fixture
        #expect(!run.builder.build().hasErrors)
        let first = try #require(fixture.current)
        let firstTree = try previewTree(fixture, first)

        try run.step("an edit", changed: ["home.yaml"]) {
            try fixture.write(DeltaBuildTests.page.replacingOccurrences(of: "Public intro.", with: "Edited intro."), to: "home.yaml")
        }
        let edited = try #require(fixture.current)
        #expect(edited != first)
        #expect(try previewTree(fixture, edited) == firstTree, "an edit leaves preview/ as it was")
        #expect(try fixture.published("en/home.json").contains("Edited intro."))

        try run.step("a draft", changed: ["home.yaml"]) {
            try fixture.write("draft: true\n" + DeltaBuildTests.page, to: "home.yaml")
        }
        let draft = try #require(fixture.current)
        #expect(try previewTree(fixture, draft) != firstTree)
        #expect(try fixture.published("preview/en/home.html").contains(" data-source=\"preview\""))
        #expect(!FileManager.default.fileExists(atPath: versionFolder(fixture, draft) + "/en/home.json"), "apps do not get a draft")
        // Its JSON for the preview alone, in parts as apps would get them (page_size: 2).
        let part1 = try #require(
            try JSONSerialization.jsonObject(with: Data(fixture.published("preview/en/home.json").utf8)) as? [String: Any])
        #expect(part1["next"] as? String == "home.2.json")
        #expect(try fixture.published("preview/fr/home.2.json").contains("\"part\":2"))

        try run.step("an edit of the draft", changed: ["home.yaml"]) {
            try fixture.write("draft: true\n" + DeltaBuildTests.page.replacingOccurrences(of: "Hero", with: "Hero 2"), to: "home.yaml")
        }
        #expect(try fixture.published("preview/en/home.2.json").contains("Hero 2"))

        try run.step("published again", changed: ["home.yaml"]) { try fixture.write(DeltaBuildTests.page, to: "home.yaml") }
        let back = try #require(fixture.current)
        #expect(try previewTree(fixture, back) == firstTree, "the same previews as before the draft")
        #expect(!FileManager.default.fileExists(atPath: versionFolder(fixture, back) + "/preview/en/home.json"))
    }

    @Test func withoutPreviewsADraftPublishesNothing() throws {
        let fixture = try SiteFixture()
        try fixture.write("draft: true\ntitle: Draft\nsections:\n  - type: divider\n    id: d\n", to: "draft.yaml")
        var options = BuildOptions()
        options.previews = false
        #expect(!SiteBuilder(site: fixture.site, pagesRoot: fixture.pages, distRoot: fixture.dist, options: options).build().hasErrors)
        let current = "\(fixture.dist)/\(fixture.site)/current"
        #expect(!FileManager.default.fileExists(atPath: current + "/preview"))
        #expect(!FileManager.default.fileExists(atPath: current + "/en/draft.json"))
    }
}
