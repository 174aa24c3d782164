import Foundation
import QuireTestSupport
import Testing

@testable import QuireCore

/// The status files written from pages kept between writes (`StatusPageCache`) must be the
/// bytes a whole render of the same status gives, through every kind of change, and must
/// render again only the pages whose part changed.
@Suite struct StatusPageCacheTests {
    @Test func keptPagesGiveTheBytesOfAWholeRender() throws {
        let fixture = try SiteFixture()
        try fixture.write("title: Home\nsections:\n  - type: divider\n    id: split\n", to: "home.yaml")
        try fixture.write("title: Other\nsections:\n  - type: divider\n    id: split\n", to: "guides/other.yaml")
        let builder = SiteBuilder(site: fixture.site, pagesRoot: fixture.pages, distRoot: fixture.dist, options: BuildOptions())
        let store = try SiteStore(dist: fixture.dist, site: fixture.site)
        let cache = StatusPageCache()
        let now = Date(timeIntervalSince1970: 1_764_000_000)
        var locales = ["en", "fr"]
        /// The pages the last step's `summary.json` gives diagnostics of.
        var diagnosedPages: [String] = []

        /// Builds, compares, and returns how many pages the status lists.
        @discardableResult
        func step(_ comment: Comment, rendered: Int?, sourceLocation: SourceLocation = #_sourceLocation) -> Int {
            let result = builder.build()
            let whole = StatusReport.files(StatusReport.make(result: result, store: store, locales: locales, now: now))
            let kept = written(result, store: store, locales: locales, cache: cache, now: now)
            #expect(kept.keys.sorted() == ["index.html", "status.json", "summary.json"], comment, sourceLocation: sourceLocation)
            for name in whole.keys.sorted() {
                // As text, so a difference reads as one.
                #expect(
                    kept[name].map { String(decoding: $0, as: UTF8.self) } == whole[name].map { String(decoding: $0, as: UTF8.self) },
                    "\(comment): \(name)", sourceLocation: sourceLocation)
            }
            if let rendered { #expect(cache.renderedByLastWrite == rendered, comment, sourceLocation: sourceLocation) }
            let status = (try? JSONSerialization.jsonObject(with: Data(kept["status.json"] ?? []))) as? [String: Any]
            let pages = status?["pages"] as? [String: [String: Any]] ?? [:]
            // The summary is the status without its pages, and the diagnostics of the pages that have some.
            let summary = (try? JSONSerialization.jsonObject(with: Data(kept["summary.json"] ?? []))) as? [String: Any]
            let pageDiagnostics = summary?["page_diagnostics"] as? [String: [Any]] ?? [:]
            #expect(
                Set(summary?.keys.map { $0 } ?? [])
                    == Set(status?.keys.map { $0 } ?? []).subtracting(["pages"]).union(["page_diagnostics"]), comment)
            #expect(summary?["built_at"] as? String == status?["built_at"] as? String, comment)
            let withDiagnostics = pages.filter { ($0.value["diagnostics"] as? [Any])?.isEmpty == false }
            diagnosedPages = pageDiagnostics.keys.sorted()
            #expect(diagnosedPages == withDiagnostics.keys.sorted(), comment, sourceLocation: sourceLocation)
            for (pageID, diagnostics) in pageDiagnostics {
                #expect(
                    diagnostics.count == (withDiagnostics[pageID]?["diagnostics"] as? [Any])?.count, comment, sourceLocation: sourceLocation
                )
            }
            return pages.count
        }

        let first = step("first write: every page", rendered: nil)
        #expect(cache.renderedByLastWrite == first)
        #expect(first >= 2)
        step("nothing changed: nothing rendered", rendered: 0)
        try fixture.write("title: Home\nsections:\n  - type: divider\n    id: split\n    colour: red\n", to: "home.yaml")
        step("a page with a warning (an unknown key)", rendered: 1)
        #expect(diagnosedPages == ["home"])
        try fixture.write("title: Home\nsections:\n  - type: divider\n    id: split\n", to: "home.yaml")
        step("the warning gone", rendered: 1)
        try fixture.write("title: Home\nsections:\n  - type: no_such_section\n    id: split\n", to: "home.yaml")
        step("a page with an error (it keeps its last good output)", rendered: 1)
        #expect(diagnosedPages == ["home"])
        try fixture.write("title: Home\nsections:\n  - type: divider\n    id: split\n", to: "home.yaml")
        step("the error mended", rendered: 1)
        #expect(diagnosedPages == [])
        try fixture.write("title: New\nsections:\n  - type: divider\n    id: split\n", to: "guides/new.yaml")
        step("a new page", rendered: 1)
        try fixture.remove("guides/other.yaml")
        step("a page removed", rendered: 0)
        try fixture.write("title: Home\nsections:\n  - type: divider\n    id: split\n    colour: red\n", to: "home.yaml")
        try fixture.write("title: Third\nsections:\n  - type: divider\n    id: split\n", to: "guides/third.yaml")
        let listed = step("a warning and a new page at once", rendered: 2)
        locales = ["en"]
        step("other locales: every page again", rendered: listed)
    }

    /// Past `pageRowLimit` pages the table lists only pages with diagnostics, and says how many
    /// it leaves out; `status.json` still lists every page.
    @Test func aLargeSiteListsItsFirstPagesAndThoseWithProblems() throws {
        let fixture = try SiteFixture(from: nil)
        try fixture.write("default_locale: en\nlocales: [en]\n", to: "site.yaml")
        let total = StatusPage.pageRowLimit + 200
        for number in 0..<total {
            let extra = number == total - 10 ? "    colour: red\n" : ""
            try fixture.write("title: P\(number)\nsections:\n  - type: divider\n    id: split\n\(extra)", to: "p\(1000 + number).yaml")
        }
        let kept = try statusFilesBothWays(fixture)
        let page = String(decoding: kept["index.html"] ?? [], as: UTF8.self)
        let listed = page.components(separatedBy: "data-page-id=\"").dropFirst().map { String($0.prefix { $0 != "\"" }) }
        let first = (0..<StatusPage.pageRowLimit).map { "p\(1000 + $0)" }
        #expect(listed == first + ["p\(1000 + total - 10)"])
        #expect(page.contains("\(total - StatusPage.pageRowLimit - 1) more pages without problems are not listed here"))
        let status = (try? JSONSerialization.jsonObject(with: Data(kept["status.json"] ?? []))) as? [String: Any]
        #expect((status?["pages"] as? [String: Any])?.count == total)
    }

    /// The status files of one build of `fixture` (locale `en`), from a fresh page cache, checked
    /// to be the bytes of a whole render.
    private func statusFilesBothWays(_ fixture: SiteFixture, sourceLocation: SourceLocation = #_sourceLocation) throws -> [String: [UInt8]]
    {
        let builder = SiteBuilder(site: fixture.site, pagesRoot: fixture.pages, distRoot: fixture.dist, options: BuildOptions())
        let result = builder.build()
        let store = try SiteStore(dist: fixture.dist, site: fixture.site)
        let now = Date(timeIntervalSince1970: 1_764_000_000)
        let kept = written(result, store: store, locales: ["en"], cache: StatusPageCache(), now: now)
        #expect(
            kept == StatusReport.files(StatusReport.make(result: result, store: store, locales: ["en"], now: now)),
            sourceLocation: sourceLocation)
        return kept
    }

    /// The status files as `StatusReport.write` leaves them in `status/` (the build's own removed
    /// first, so none is read in their place).
    private func written(
        _ result: SiteBuildResult, store: SiteStore, locales: [String], cache: StatusPageCache, now: Date,
        sourceLocation: SourceLocation = #_sourceLocation
    ) -> [String: [UInt8]] {
        let names = ["index.html", "status.json", "summary.json"]
        for name in names { unlink(store.layout.status + "/" + name) }
        #expect(throws: Never.self, sourceLocation: sourceLocation) {
            try StatusReport.write(result: result, store: store, locales: locales, pages: nil, cache: cache, now: now)
        }
        var files: [String: [UInt8]] = [:]
        for name in names { files[name] = FileManager.default.contents(atPath: store.layout.status + "/" + name).map { Array($0) } }
        return files
    }

    @Test func aSiteWithoutPagesSaysSo() throws {
        let fixture = try SiteFixture(from: nil)
        try fixture.write("default_locale: en\nlocales: [en]\n", to: "site.yaml")
        let kept = try statusFilesBothWays(fixture)
        #expect(String(decoding: kept["index.html"] ?? [], as: UTF8.self).contains("No pages published yet."))
    }

    /// A page's part put together from the template is the long way's bytes, and an id or
    /// locale the template cannot take goes the long way.
    @Test(arguments: [["en"], ["en", "fr", "pt-BR"], ["zh_Hant", "de"], ["x\"y"]])
    func templatePartsAreTheLongWaysBytes(locales: [String]) {
        let template = StatusPagePart.Template(locales: locales)
        #expect(template.isUsable == locales.allSatisfy(StatusPagePart.Template.isPlain))
        for pageID in ["home", "guides/range-safety", "a_b.c", "9", "x&y", "a b", "é", "page:1", ""] {
            let long = StatusPagePart(pageID, locales: locales, diagnostics: [])
            guard let part = template.part(pageID) else {
                #expect(!template.isUsable || !StatusPagePart.Template.isPlain(pageID), "\(pageID)")
                continue
            }
            #expect(part.value == long.value, "\(pageID)")
            #expect(part.row == long.row, "\(pageID)")
        }
    }

    /// `built_at` is written by hand as the ISO 8601 formatter writes it.
    @Test func timestampsAreTheFormattersText() {
        let formatter = ISO8601DateFormatter()
        var generator = SeededGenerator(seed: 207)
        let dates =
            [0, 1, 59.999, 59.9999, 3_104_331_340.9999, 951_782_400, 1_709_164_800.5, 1_764_000_000, 4_102_444_799.999]
            + (0..<2000).map { _ in Double.random(in: 0..<4_102_444_800, using: &generator) }
        for seconds in dates {
            let date = Date(timeIntervalSince1970: seconds)
            #expect(StatusReport.timestamp(date) == formatter.string(from: date), "\(seconds)")
        }
    }
}
