import Foundation
import Testing

@testable import QuireCore

/// A watcher's builder after a build that failed operationally (the store could not be read):
/// what the failed build did not read must be read by the next one, and the pages it did not
/// validate again must be validated by the next one. Each test fails without its fix.
@Suite struct FailedBuildTests {
    static let home = "title: Home\nsections:\n  - type: markdown_block\n    id: intro\n    body: First words.\n"
    static let other =
        "title: Other\nsections:\n  - type: cta_button\n    id: go\n    label: Home\n    action: navigate\n    destination: /home\n"

    final class Site {
        let fixture: SiteFixture
        let absolute: String

        init() throws {
            fixture = try SiteFixture()
            try fixture.write(FailedBuildTests.home, to: "home.yaml")
            try fixture.write(FailedBuildTests.other, to: "other.yaml")
            absolute = URL(fileURLWithPath: fixture.siteFolder).standardizedFileURL.path
        }

        /// A builder as `quire watch` keeps one.
        func watcherBuilder() -> SiteBuilder {
            var options = BuildOptions()
            options.previews = false
            return SiteBuilder(site: fixture.site, pagesRoot: fixture.pages, distRoot: fixture.dist, options: options)
        }

        func changed(_ names: String...) -> Set<String> { Set(names.map { "\(absolute)/\($0)" }) }

        /// Another process publishes (a page of its own added), leaving `dist` one version ahead.
        func publishElsewhere() throws {
            try fixture.write("title: Elsewhere\nsections:\n  - type: divider\n    id: line\n", to: "elsewhere.yaml")
            #expect(watcherBuilder().build().outcome != nil)
        }

        var newestManifest: String {
            "\(fixture.dist)/\(fixture.site)/versions/\(fixture.versions.last!)/manifest.json"
        }
    }

    /// The store fails to read the newest version twice (the retry too), so the change set of the
    /// second failure is never read; once the store reads again, a save of another page must still
    /// publish the first page's edit, not its cached older source.
    @Test func aSaveTheFailedBuildNeverReadIsPublishedByTheNextBuild() throws {
        let site = try Site()
        let builder = site.watcherBuilder()
        try #require(builder.build().outcome != nil)
        try site.publishElsewhere()
        let manifest = site.newestManifest
        let good = try Data(contentsOf: URL(fileURLWithPath: manifest))
        try Data("{".utf8).write(to: URL(fileURLWithPath: manifest))

        try site.fixture.write("title: Other again\n" + Self.other.dropFirst("title: Other\n".count), to: "other.yaml")
        #expect(builder.build(changed: site.changed("other.yaml")).operationalError != nil)
        try site.fixture.write(Self.home.replacingOccurrences(of: "First words.", with: "Saved while failing."), to: "home.yaml")
        #expect(builder.build(changed: site.changed("home.yaml")).operationalError != nil)

        try good.write(to: URL(fileURLWithPath: manifest))
        try site.fixture.write(Self.other.replacingOccurrences(of: "label: Home", with: "label: Back home"), to: "other.yaml")
        let result = builder.build(changed: site.changed("other.yaml"))
        #expect(result.operationalError == nil)
        #expect(
            try site.fixture.published("en/home.json").contains("Saved while failing."), "the edit saved during the failure is published")
        #expect(try site.fixture.published("en/other.json").contains("Back home"))
    }

    /// A page removed while the delta path cannot read its base version (gone, as another
    /// process's retention removed it): the full path that takes over must validate again the
    /// cached page that links to it.
    @Test func aPageLinkingToARemovedPageIsValidatedAgainWhenTheDeltaCannotReadItsBase() throws {
        let site = try Site()
        let builder = site.watcherBuilder()
        try #require(builder.build().outcome != nil)
        try site.publishElsewhere()
        let store = try SiteStore(dist: site.fixture.dist, site: site.fixture.site)
        _ = try store.operations.gc(keep: 1, reason: "another process's retention")
        // The builder's store has not read its base version yet (as after a publish that failed
        // and was retired): the delta's read of it fails.
        builder.store = try SiteStore(dist: site.fixture.dist, site: site.fixture.site)

        try site.fixture.remove("home.yaml")
        let result = builder.build(changed: site.changed("home.yaml"))
        #expect(result.operationalError == nil)
        #expect(!result.builtAsDelta)
        let broken = result.diagnostics.filter { $0.file.hasSuffix("other.yaml") && $0.description.contains("error") }
        #expect(!broken.isEmpty, "other.yaml links to the removed page: \(site.fixture.lines(result))")
        let fresh = site.fixture.build(publish: false)
        #expect(
            site.fixture.lines(result).filter { $0.contains("other.yaml") }
                == site.fixture.lines(fresh).filter { $0.contains("other.yaml") })
    }
}
