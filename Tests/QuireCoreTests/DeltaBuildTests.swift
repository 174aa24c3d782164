import Foundation
import Testing

@testable import QuireCore

/// The watcher's fast path: a change set touching only page sources, translation files and asset
/// bytes is built page by page and published as a delta. After every step the published tree
/// must equal a fresh full build of the same files, and the path taken must be the delta.
@Suite struct DeltaBuildTests {
    static let page = """
        title: Home
        ttl: 60
        page_size: 2
        sections:
          - type: markdown_block
            id: intro
            body: Public intro.
          - type: announcement
            id: deal
            body: Members only.
            visible_to: [member]
          - type: divider
            id: split
          - type: hero_banner
            id: hero
            image_url: /assets/banner.jpg
            title: Hero

        """

    final class EditorRun {
        let fixture: SiteFixture
        let builder: SiteBuilder
        let absolute: String

        init(spareFolders: Bool = false) throws {
            fixture = try SiteFixture()
            try fixture.write(DeltaBuildTests.page, to: "home.yaml")
            try fixture.write(
                "title: Other\nsections:\n  - type: cta_button\n    id: go\n    label: Home\n    action: navigate\n    destination: /home\n",
                to: "other.yaml")
            var options = BuildOptions()
            options.spareFolders = spareFolders
            builder = SiteBuilder(site: fixture.site, pagesRoot: fixture.pages, distRoot: fixture.dist, options: options)
            absolute = URL(fileURLWithPath: fixture.siteFolder).standardizedFileURL.path
        }

        /// Applies `change`, builds with the changed paths, and checks the delta path was taken
        /// and that the result equals a fresh full build (a broken save keeps the last good output
        /// instead, which a fresh build never had: `keepsLastGood` then checks nothing changed).
        @discardableResult
        func step(
            _ comment: Comment, changed: [String], keepsLastGood: Bool = false, _ change: () throws -> Void,
            sourceLocation: SourceLocation = #_sourceLocation
        ) throws -> SiteBuildResult {
            let before = IncrementalBuildTests.snapshot(fixture.dist, site: fixture.site)
            let baseVersion = try builder.store?.reader.newestVersion()
            builder.flushSpareFolders()
            try change()
            let result = builder.build(changed: Set(changed.map { "\(absolute)/\($0)" }))
            #expect(result.builtAsDelta, comment, sourceLocation: sourceLocation)
            #expect(result.operationalError == nil, comment, sourceLocation: sourceLocation)
            if keepsLastGood {
                #expect(IncrementalBuildTests.snapshot(fixture.dist, site: fixture.site) == before, comment, sourceLocation: sourceLocation)
                return result
            }
            try expectFullPlannersChanges(since: baseVersion, comment, sourceLocation: sourceLocation)
            let published = IncrementalBuildTests.snapshot(fixture.dist, site: fixture.site)
            let fresh = IncrementalBuildTests.fresh(fixture)
            #expect(published.keys.sorted() == fresh.keys.sorted(), comment, sourceLocation: sourceLocation)
            for (path, bytes) in fresh where published[path] != bytes {
                Issue.record("\(comment): \(path) differs from a full build", sourceLocation: sourceLocation)
            }
            return result
        }

        /// The pages the delta recorded as added, changed and removed are those the full planner
        /// finds between the same two versions.
        func expectFullPlannersChanges(since base: VersionID?, _ comment: Comment, sourceLocation: SourceLocation) throws {
            let store = try #require(builder.store)
            guard let base, let newest = try store.reader.newestVersion(), newest != base else { return }
            let files = try store.reader.files(of: newest).map { path, file in
                OutputFile(path: path, content: .bytes([]), inputDigest: file.inputDigest, metadata: file.metadata)
            }
            let full = SiteBuilder.pageChanges(files, pages: OutputPath.publishedPages(files), published: try store.reader.files(of: base))
            let record = try Data(contentsOf: URL(fileURLWithPath: "\(fixture.dist)/\(fixture.site)/versions/\(newest)/build.json"))
            let changes = try #require(StoredJSONReader.parse(Array(record))?["changes"])
            func list(_ name: String) -> [String] { changes[name]?.arrayValue?.compactMap(\.stringValue) ?? [] }
            #expect(list("added") == full.added, comment, sourceLocation: sourceLocation)
            #expect(list("changed") == full.changed, comment, sourceLocation: sourceLocation)
            #expect(list("removed") == full.removed, comment, sourceLocation: sourceLocation)
        }
    }

    /// With spare folders (`quire watch`), each edited folder starts from a pre-linked copy.
    @Test(arguments: [false, true])
    func everyKindOfPageChangeMatchesAFullBuild(spareFolders: Bool) throws {
        let run = try EditorRun(spareFolders: spareFolders)
        let fixture = run.fixture
        #expect(!run.builder.build().hasErrors)
        let versions = fixture.versions.count

        var result = try run.step("an edit", changed: ["home.yaml"]) {
            try fixture.write(Self.page.replacingOccurrences(of: "Public intro.", with: "Edited intro."), to: "home.yaml")
        }
        #expect(result.pagesRebuilt == ["home"])
        #expect(try fixture.published("en/home.json").contains("Edited intro."))

        result = try run.step("a broken save", changed: ["home.yaml"], keepsLastGood: true) {
            try fixture.write("title: [unclosed\n", to: "home.yaml")
        }
        #expect(result.hasErrors)
        #expect(try fixture.published("en/home.json").contains("Edited intro."), "the last good output stays")
        let status = try String(contentsOfFile: "\(fixture.dist)/\(fixture.site)/status/status.json", encoding: .utf8)
        #expect(status.contains("site/home.yaml"))

        try run.step("the fix", changed: ["home.yaml"]) { try fixture.write(Self.page, to: "home.yaml") }
        try run.step("a translation drop", changed: ["l10n/fr/home.yaml"]) {
            try fixture.write("title: Accueil\nintro.body: Intro publique.\n", to: "l10n/fr/home.yaml")
        }
        #expect(try fixture.published("fr/home.json").contains("Intro publique."))
        try run.step("a broken translation keeps the locale's output", changed: ["l10n/fr/home.yaml"], keepsLastGood: true) {
            try fixture.write("title: [\n", to: "l10n/fr/home.yaml")
        }
        try run.step("the translation removed", changed: ["l10n/fr/home.yaml"]) { try fixture.remove("l10n/fr/home.yaml") }
        try run.step("fewer parts", changed: ["home.yaml"]) {
            try fixture.write(Self.page.replacingOccurrences(of: "page_size: 2", with: "page_size: 10"), to: "home.yaml")
        }
        #expect(!FileManager.default.fileExists(atPath: "\(fixture.dist)/\(fixture.site)/current/en/home.2.json"))
        try run.step("a new ttl reaches the cache headers", changed: ["home.yaml"]) {
            try fixture.write(Self.page.replacingOccurrences(of: "ttl: 60", with: "ttl: 5"), to: "home.yaml")
        }
        #expect(try fixture.published("http/nginx-ttl.map").contains("/home.json\" 5;"))
        try run.step("a draft leaves the published pages", changed: ["home.yaml"]) {
            try fixture.write("draft: true\n" + Self.page, to: "home.yaml")
        }
        #expect(!FileManager.default.fileExists(atPath: "\(fixture.dist)/\(fixture.site)/current/en/home.json"))
        try run.step("and comes back", changed: ["home.yaml"]) { try fixture.write(Self.page, to: "home.yaml") }
        try run.step("an asset's bytes", changed: ["assets/banner.jpg"]) {
            try fixture.write(bytes: SiteFixture.jpeg("new image bytes"), to: "assets/banner.jpg")
        }
        try run.step("several pages and a translation at once", changed: ["home.yaml", "other.yaml", "l10n/fr/other.yaml"]) {
            try fixture.write(Self.page.replacingOccurrences(of: "Hero", with: "Hero two"), to: "home.yaml")
            try fixture.write("title: Other two\nsections:\n  - type: divider\n", to: "other.yaml")
            try fixture.write("title: Autre\n", to: "l10n/fr/other.yaml")
        }
        let unchanged = try run.step("a save without changes", changed: ["home.yaml"]) {
            try fixture.write(Self.page.replacingOccurrences(of: "Hero", with: "Hero two"), to: "home.yaml")
        }
        #expect(unchanged.outcome.map { if case .unchanged = $0 { true } else { false } } == true)
        // A tool's temporary file before its rename: not a page, only a warning; no full build.
        let ignored = try run.step("a file that is not a page", changed: ["home.yaml.new"], keepsLastGood: true) {
            try fixture.write("title: Not yet\n", to: "home.yaml.new")
        }
        #expect(fixture.lines(ignored).contains { $0.contains("home.yaml.new") && $0.contains("not a page source") })
        #expect(
            fixture.versions.count == versions + 10,
            "a broken save, a broken translation, a save without changes and a non-page file publish nothing")
        let store = try #require(run.builder.store)
        #expect(try store.operations.verify() == [])
        #expect((store.spareFolders.taken >= 10) == spareFolders, "each version's edited folders came from spares")
    }

    @Test func aBurstOfPagesStreamsItsFilesAndMatchesAFullBuild() throws {
        let run = try EditorRun()
        let fixture = run.fixture
        let count = SiteBuilder.deltaStreamingPages + 4
        let names = (0..<count).map { String(format: "bulk/p-%02d.yaml", $0) }
        for name in names { try fixture.write("title: Bulk \(name)\nsections:\n  - type: divider\n", to: name) }
        #expect(!run.builder.build().hasErrors)
        let result = try run.step("a checkout of many pages", changed: names + ["home.yaml"]) {
            for name in names { try fixture.write("title: Edited \(name)\nsections:\n  - type: divider\n", to: name) }
            try fixture.write(Self.page.replacingOccurrences(of: "Public intro.", with: "Bulk intro."), to: "home.yaml")
        }
        #expect(result.pagesRebuilt.count == count + 1)
        #expect(try fixture.published("en/bulk/p-03.json").contains("Edited bulk/p-03.yaml"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: "\(fixture.dist)/\(fixture.site)/staging").isEmpty)
        #expect(try SiteStore(dist: fixture.dist, site: fixture.site).operations.verify() == [])
    }

    /// A burst rendered while it is written (`hold`): nothing is published until the build that
    /// ends it, which publishes one version equal to a full build, with a page rendered twice
    /// taking its last output, a translation dropped meanwhile, and a page broken on its second
    /// save keeping the output of its first.
    @Test(arguments: [false, true])
    func aHeldBurstIsPublishedWholeByTheBuildThatEndsIt(spareFolders: Bool) throws {
        let run = try EditorRun(spareFolders: spareFolders)
        let fixture = run.fixture
        let names = (0..<(SiteBuilder.deltaStreamingPages + 4)).map { String(format: "bulk/p-%02d.yaml", $0) }
        for name in names { try fixture.write("title: Bulk \(name)\nsections:\n  - type: divider\n", to: name) }
        #expect(!run.builder.build().hasErrors)
        let store = try SiteStore(dist: fixture.dist, site: fixture.site)
        let newest = try store.reader.newestVersion()
        let before = IncrementalBuildTests.snapshot(fixture.dist, site: fixture.site)
        func hold(_ changed: [String]) {
            let result = run.builder.build(changed: Set(changed.map { "\(run.absolute)/\($0)" }), hold: true)
            #expect(result.isHeld && result.outcome == nil && result.operationalError == nil)
            #expect(run.builder.isHolding)
        }

        for name in names.prefix(10) { try fixture.write("title: First \(name)\nsections:\n  - type: divider\n", to: name) }
        hold(Array(names.prefix(10)))
        for name in names.dropFirst(5) { try fixture.write("title: Second \(name)\nsections:\n  - type: divider\n", to: name) }
        try fixture.write("title: Accueil\nintro.body: Intro publique.\n", to: "l10n/fr/home.yaml")
        hold(Array(names.dropFirst(5)) + ["l10n/fr/home.yaml"])
        // Nothing is published while the burst goes on.
        #expect(try store.reader.newestVersion() == newest)
        #expect(IncrementalBuildTests.snapshot(fixture.dist, site: fixture.site) == before)

        try fixture.write("title: [\n", to: names[0])
        let result = run.builder.build(changed: ["\(run.absolute)/\(names[0])"])
        #expect(result.builtAsDelta && result.operationalError == nil && !run.builder.isHolding)
        // Equal to a full build, but for the broken page, which a full build never had (its files,
        // its lines in the cache header files, its entries in the page index).
        let published = IncrementalBuildTests.snapshot(fixture.dist, site: fixture.site)
        let fresh = IncrementalBuildTests.fresh(fixture)
        let broken = published.keys.filter { $0.contains("bulk/p-00.") }
        #expect(broken.count == 4, "\(broken)")
        let headers = ["http/_headers", "http/nginx-ttl.map", "en/index.1.json", "fr/index.1.json"]
        #expect(headers.allSatisfy { String(decoding: published[$0] ?? Data(), as: UTF8.self).contains("bulk/p-00") })
        for (path, bytes) in published where !broken.contains(path) && !headers.contains(path) && fresh[path] != bytes {
            Issue.record("\(path) differs from a full build")
        }
        #expect(published.count - broken.count == fresh.count)
        #expect(try store.reader.newestVersion() == newest.map { VersionID($0.number + 1) }, "one version for the whole burst")
        #expect(Set(result.pagesRebuilt).isSuperset(of: names.dropFirst().map { String($0.dropLast(".yaml".count)) }))
        #expect(result.diagnostics.contains { $0.file.hasSuffix(names[0]) && $0.isError })
        #expect(try fixture.published("en/bulk/p-00.json").contains("First bulk/p-00.yaml"), "a broken save keeps its last good output")
        #expect(try fixture.published("en/bulk/p-07.json").contains("Second bulk/p-07.yaml"))
        #expect(try fixture.published("fr/home.json").contains("Intro publique."))
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: "\(fixture.dist)/\(fixture.site)/staging").allSatisfy {
                $0.hasPrefix("spares-")
            })
        #expect(try store.operations.verify() == [])
    }

    /// A full build while a burst is held (a rescan, a scheduled time, a site-wide change)
    /// renders the held pages again, as their unpublished outputs cannot be carried, and
    /// publishes everything.
    @Test func aHeldBurstEndedByAFullBuildIsRenderedAgain() throws {
        let run = try EditorRun()
        let fixture = run.fixture
        #expect(!run.builder.build().hasErrors)
        for (intro, fullBuild) in [
            ("Held intro.", { run.builder.build() }),
            (
                "Held again.",
                {
                    try fixture.write(
                        "default_locale: en\nlocales: [en, fr]\napp_routes: [/drills]\naudiences:\n  roles: [member]\nttl: 30\n",
                        to: "site.yaml")
                    return run.builder.build(changed: ["\(run.absolute)/site.yaml"])
                }
            ),
        ] as [(String, () throws -> SiteBuildResult)] {
            try fixture.write(Self.page.replacingOccurrences(of: "Public intro.", with: intro), to: "home.yaml")
            _ = run.builder.build(changed: ["\(run.absolute)/home.yaml"], hold: true)
            #expect(run.builder.isHolding)
            let result = try fullBuild()
            #expect(!result.builtAsDelta && !run.builder.isHolding)
            #expect(IncrementalBuildTests.snapshot(fixture.dist, site: fixture.site) == IncrementalBuildTests.fresh(fixture))
            #expect(try fixture.published("en/home.json").contains(intro))
        }
        // And the next save goes down the delta path again.
        try run.step("a save after the full build", changed: ["home.yaml"]) {
            try fixture.write(Self.page.replacingOccurrences(of: "Public intro.", with: "Later intro."), to: "home.yaml")
        }
    }

    /// A page that comes or goes is a delta too: the pages that link to it are built again (their
    /// buttons validate and preview differently), and its translation files follow it.
    @Test(arguments: [false, true])
    func pagesComingAndGoingMatchAFullBuild(spareFolders: Bool) throws {
        let run = try EditorRun(spareFolders: spareFolders)
        let fixture = run.fixture
        // `/drills` is an app route: valid either way, but its preview links only once it is a page.
        let linking =
            "title: Links\nsections:\n  - type: cta_button\n    id: go\n    label: Drills\n    action: navigate\n    destination: /drills\n"
        try fixture.write(linking, to: "links.yaml")
        try fixture.write(
            "title: Broken\nsections:\n  - type: cta_button\n    id: go\n    label: Later\n    action: navigate\n    destination: /later\n",
            to: "broken.yaml")
        try fixture.write("title: Autre\n", to: "l10n/fr/other.yaml")
        #expect(run.builder.build().hasErrors, "broken.yaml names a page that does not exist yet")
        let versions = fixture.versions.count
        let preview = { try fixture.published("preview/en/links.html") }
        let previewBefore = try preview()

        var result = try run.step("a new page", changed: ["drills.yaml"]) {
            try fixture.write("title: Drills\nsections:\n  - type: divider\n", to: "drills.yaml")
        }
        #expect(result.pagesRebuilt == ["drills"], "the page that links to it keeps its page file")
        #expect(result.pagesAdded == ["drills"] && result.pagesRemoved.isEmpty)
        // The preview's script links the button once status.json lists the page; the file stays.
        #expect(try preview() == previewBefore)
        let status = try String(contentsOfFile: "\(fixture.dist)/\(fixture.site)/status/status.json", encoding: .utf8)
        #expect(status.contains("preview/en/drills.html"))
        result = try run.step("the page a broken button names", changed: ["later.yaml"]) {
            try fixture.write("title: Later\nsections:\n  - type: divider\n", to: "later.yaml")
        }
        #expect(result.pagesRebuilt == ["broken", "later"])
        #expect(!result.hasErrors)
        #expect(try fixture.published("en/broken.json").contains("/later"))
        try run.step("a new page with its translation", changed: ["fresh.yaml", "l10n/fr/fresh.yaml"]) {
            try fixture.write("title: Fresh\nsections:\n  - type: divider\n", to: "fresh.yaml")
            try fixture.write("title: Frais\n", to: "l10n/fr/fresh.yaml")
        }
        #expect(try fixture.published("fr/fresh.json").contains("Frais"))
        try run.step("a page and its translation removed", changed: ["fresh.yaml", "l10n/fr/fresh.yaml"]) {
            try fixture.remove("fresh.yaml")
            try fixture.remove("l10n/fr/fresh.yaml")
        }
        result = try run.step("a page renamed", changed: ["drills.yaml", "guides/drills.yaml"]) {
            try fixture.remove("drills.yaml")
            try fixture.write("title: Drills\nsections:\n  - type: divider\n", to: "guides/drills.yaml")
        }
        #expect(result.pagesRebuilt == ["guides/drills"])
        #expect(result.pagesAdded == ["guides/drills"] && result.pagesRemoved == ["drills"])
        #expect(try !preview().contains("drills.html"), "the page it linked to is gone")
        // A folder that appears or goes (moved in or out whole) stands for its files.
        try run.step("a new folder of pages", changed: ["guides/new"]) {
            try fixture.write("title: New\nsections:\n  - type: divider\n", to: "guides/new/a.yaml")
            try fixture.write("title: Drills\nsections:\n  - type: divider\n", to: "guides/new/deeper/b.yaml")
        }
        #expect(try fixture.published("en/guides/new/deeper/b.json").contains("Drills"))
        try run.step("the folder gone", changed: ["guides/new"]) { try fixture.remove("guides/new") }
        let touched = try run.step("a folder touched (its attributes)", changed: ["guides"]) {}
        #expect(
            touched.stageMilliseconds.allSatisfy { $0.stage != "validate" || $0.ms == 0 },
            "its files are its own events: no page is validated again")
        #expect(touched.outcome.map { if case .unchanged = $0 { true } else { false } } == true)
        result = try run.step("a page removed while its translation stays", changed: ["other.yaml"]) {
            try fixture.remove("other.yaml")
        }
        #expect(
            fixture.lines(result).contains {
                $0.hasPrefix("site/l10n/fr/other.yaml") && $0.contains("translates page 'other', which does not exist")
            })
        result = try run.step("and back", changed: ["other.yaml"]) {
            try fixture.write("title: Other\nsections:\n  - type: divider\n", to: "other.yaml")
        }
        #expect(!fixture.lines(result).contains { $0.contains("which does not exist") })
        #expect(try fixture.published("fr/other.json").contains("Autre"))

        // Removing the page a button names breaks that page, which keeps its last good output.
        try fixture.remove("later.yaml")
        result = run.builder.build(changed: ["\(run.absolute)/later.yaml"])
        #expect(result.builtAsDelta)
        #expect(
            fixture.lines(result).contains {
                $0.hasPrefix("site/broken.yaml:7:18: error: sections[0].destination: '/later' is neither a page")
            })
        #expect(!FileManager.default.fileExists(atPath: "\(fixture.dist)/\(fixture.site)/current/en/later.json"))
        #expect(try fixture.published("en/broken.json").contains("/later"))
        let manifest = try #require(fixture.publishedJSON("manifest.json") as? [String: Any])
        #expect(manifest["pages"] as? Int == 6, "home, other, links, broken, guides/other, guides/drills")
        #expect(fixture.versions.count == versions + 10)
        #expect(try run.builder.store.map { try $0.operations.verify() } == [])
    }

    /// The site-wide warning for drill carousels on a site without a drill catalog comes and goes
    /// with the pages that have one, as a full build says it.
    @Test func theUncheckedDrillsWarningFollowsTheDeltas() throws {
        let run = try EditorRun()
        let fixture = run.fixture
        let warned = { (result: SiteBuildResult) in result.diagnostics.filter { $0.message.hasPrefix("drill ids are not checked") }.count }
        #expect(warned(run.builder.build()) == 0)
        var result = try run.step("the first drill carousel", changed: ["drills-page.yaml"]) {
            try fixture.write(
                "title: Drills\nsections:\n  - type: drill_carousel\n    id: reel\n    drill_ids: [draw]\n", to: "drills-page.yaml")
        }
        #expect(warned(result) == 1)
        result = try run.step("an unrelated edit", changed: ["home.yaml"]) {
            try fixture.write(Self.page.replacingOccurrences(of: "Public intro.", with: "Other intro."), to: "home.yaml")
        }
        #expect(warned(result) == 1, "kept from the build before")
        result = try run.step("the carousel gone", changed: ["drills-page.yaml"]) { try fixture.remove("drills-page.yaml") }
        #expect(warned(result) == 0)
    }

    @Test func siteWideChangesTakeTheFullPath() throws {
        let run = try EditorRun()
        let fixture = run.fixture
        // Names the page the first change brings: the full path validates it again, though its
        // own file did not change.
        try fixture.write(
            "title: Linker\nsections:\n  - type: cta_button\n    id: go\n    label: New\n    action: navigate\n    destination: /target\n",
            to: "linker.yaml")
        #expect(run.builder.build().hasErrors)
        for (paths, change) in [
            // A translation of no page, which only a full build reports, with a new page.
            (
                ["target.yaml", "l10n/fr/nothing.yaml"],
                {
                    try fixture.write("sections:\n  - type: divider\n", to: "target.yaml")
                    try fixture.write("title: Rien\n", to: "l10n/fr/nothing.yaml")
                }
            ),
            (
                ["site.yaml"],
                {
                    try fixture.write(
                        "default_locale: en\nlocales: [en, fr]\napp_routes: [/drills]\naudiences:\n  roles: [member]\nttl: 30\n",
                        to: "site.yaml")
                }
            ),
            (["assets/new.png"], { try fixture.write(bytes: SiteFixture.png("png"), to: "assets/new.png") }),
        ] as [([String], () throws -> Void)] {
            try change()
            let result = run.builder.build(changed: Set(paths.map { "\(run.absolute)/\($0)" }))
            #expect(!result.builtAsDelta, "\(paths)")
            #expect(IncrementalBuildTests.snapshot(fixture.dist, site: fixture.site) == IncrementalBuildTests.fresh(fixture), "\(paths)")
        }
    }

    @Test func anotherPublisherSendsTheNextBuildDownTheFullPath() throws {
        let run = try EditorRun()
        let fixture = run.fixture
        #expect(!run.builder.build().hasErrors)
        // Another process publishes (here: a second builder after an edit).
        try fixture.write(Self.page.replacingOccurrences(of: "Hero", with: "Other hero"), to: "home.yaml")
        _ = SiteBuilder(site: fixture.site, pagesRoot: fixture.pages, distRoot: fixture.dist).build()
        try fixture.write(Self.page.replacingOccurrences(of: "Hero", with: "Third hero"), to: "home.yaml")
        let result = run.builder.build(changed: ["\(run.absolute)/home.yaml"])
        #expect(result.operationalError == nil)
        #expect(try fixture.published("en/home.2.json").contains("Third hero"))
        #expect(IncrementalBuildTests.snapshot(fixture.dist, site: fixture.site) == IncrementalBuildTests.fresh(fixture))
    }
}
