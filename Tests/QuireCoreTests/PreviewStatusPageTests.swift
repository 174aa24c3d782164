import Foundation
import QuireModel
import Testing

@testable import QuireCore

@Suite struct PreviewStatusPageTests {
    func render(_ status: JSONValue) -> String {
        String(decoding: StatusPage.html(status: status), as: UTF8.self)
    }

    func fixture() throws -> String { render(try PreviewFixtures.page("status")) }

    @Test func showsSiteVersionsAndPin() throws {
        let html = try fixture()
        #expect(html.contains("<h1>trex</h1>"))
        #expect(html.contains("current: v000005 · newest: v000007 · built at 2025-03-02T10:15:00Z"))
        #expect(html.contains("data-pinned><strong>Pinned to v000005.</strong>"))
        #expect(html.contains("data-built-at=\"2025-03-02T10:15:00Z\" data-version=\"v000007\""))
    }

    @Test func tablesPagesByLocaleWithPreviewLinks() throws {
        let html = try fixture()
        // (The fixture reader sorts keys, so locales come in the order pages are listed.)
        #expect(html.contains("<th>page</th><th>en</th><th>de</th><th>fr</th><th>last build</th>"))
        let store = try #require(
            html.components(separatedBy: "data-page-id=\"trex-store\"").dropFirst().first?
                .components(separatedBy: "</tr>").first)
        #expect(store.contains("<a href=\"../current/preview/en/trex-store.html\">preview</a>"))
        #expect(store.contains("<a href=\"../current/preview/fr/trex-store.html\">preview</a>"))
        #expect(store.contains("<td class=\"bad\">1 error</td>"))
        let guide = try #require(
            html.components(separatedBy: "data-page-id=\"guides/range-safety\"").dropFirst().first?
                .components(separatedBy: "</tr>").first)
        #expect(guide.contains("<a href=\"../current/preview/en/guides/range-safety.html\">preview</a>"))
        #expect(guide.contains("<td class=\"missing\">—</td>"))  // fr, and de whose link is refused
        #expect(guide.contains("<td class=\"ok\">ok</td>"))
        #expect(!html.lowercased().contains("javascript:"))
    }

    @Test func showsCoverageDiagnosticsAndHistory() throws {
        let html = try fixture()
        #expect(
            html.contains(
                "<td><code>fr</code></td><td>7</td><td>2</td><td>3</td><td><span class=\"bar\"><span style=\"width: 58%\"></span></span>58%</td>"
            ))
        #expect(
            html.contains(
                "<li class=\"error\">pages/trex/trex-store.yaml:12:7: error: sections[1].items[0].price: must be text, found a number</li>")
        )
        #expect(
            html.contains(
                "<li class=\"warning\">pages/trex/l10n/fr/trex-store.yaml:3:1: warning: &lt;script&gt;alert(1)&lt;/script&gt; is not a section id</li>"
            ))
        #expect(html.contains("The last build found 1 error."))
        let rollback = try #require(html.range(of: "<td>bad banner</td>"))
        let firstPublish = try #require(html.range(of: "<td>2025-03-01T09:00:00Z</td>"))
        let secondPublish = try #require(html.range(of: "<td>2025-03-01T12:00:00Z</td>"))
        #expect(rollback.lowerBound < secondPublish.lowerBound && secondPublish.lowerBound < firstPublish.lowerBound)
        #expect(html.contains("at: 2025-04-01T00:00:00Z · page: trex-store"))
    }

    @Test func contentNeverBecomesScript() throws {
        let html = try fixture()
        #expect(RenderedHTML.scripts(in: html) == [PreviewScripts.statusRefresh])
        #expect(html.components(separatedBy: "<script").count == 2)
        #expect(RenderedHTML.eventHandlerAttributes(in: html).isEmpty)
        #expect(RenderedHTML.attributeValues("src", in: html).isEmpty)
    }

    @Test func policyAllowsExactlyTheInlineScript() throws {
        let html = try fixture()
        let policy = try #require(ContentSecurity.policy(in: html))
        let script = try #require(RenderedHTML.scripts(in: html).first)
        #expect(policy.contains("script-src \(ContentSecurity.hashSource(of: script));"))
        #expect(policy.hasPrefix("default-src 'none';"))
    }

    @Test func rendersAnEmptyOrOddStatus() {
        let empty = render([:])
        #expect(empty.contains("No pages published yet."))
        #expect(empty.contains("None: the last build was clean."))
        #expect(!empty.contains("data-pinned"))
        let odd = render(["site": 3, "pinned": nil, "pages": ["x": "not an object"], "coverage": [["percent": 250]]])
        #expect(odd.contains("<h1>3</h1>"))
        #expect(odd.contains("width: 100%"))
        #expect(!odd.contains("data-pinned"))
    }
}
