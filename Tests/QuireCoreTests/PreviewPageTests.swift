import Foundation
import QuireModel
import Testing

@testable import QuireCore

/// Fixtures of the preview tests, read from `Fixtures/preview/` and turned into `JSONValue`s.
enum PreviewFixtures {
    static func page(_ name: String) throws -> JSONValue {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("Fixtures/preview/\(name).json")
        return try json(Data(contentsOf: url))
    }

    static func json(_ data: Data) throws -> JSONValue {
        convert(try JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed]))
    }

    private static func convert(_ value: Any) -> JSONValue {
        switch value {
        case let text as String: return .string(text)
        case let list as [Any]: return .array(list.map(convert))
        case let object as [String: Any]:
            return .object(JSONObject(object.keys.sorted().map { ($0, convert(object[$0] as Any)) }))
        case let number as NSNumber:
            let double = number.doubleValue
            return double == double.rounded() ? .integer(number.intValue) : .number(double)
        default: return .null
        }
    }
}

/// Small readers of rendered HTML for assertions.
enum RenderedHTML {
    /// Every value of `name="..."` in the document.
    static func attributeValues(_ name: String, in html: String) -> [String] {
        var values: [String] = []
        var rest = Substring(html)
        let marker = " \(name)=\""
        while let start = rest.range(of: marker) {
            let afterQuote = rest[start.upperBound...]
            guard let end = afterQuote.firstIndex(of: "\"") else { break }
            values.append(String(afterQuote[..<end]))
            rest = afterQuote[afterQuote.index(after: end)...]
        }
        return values
    }

    /// The text of every `<script>...</script>`.
    static func scripts(in html: String) -> [String] {
        var scripts: [String] = []
        var rest = Substring(html)
        while let open = rest.range(of: "<script>") {
            guard let close = rest[open.upperBound...].range(of: "</script>") else { break }
            scripts.append(String(rest[open.upperBound..<close.lowerBound]))
            rest = rest[close.upperBound...]
        }
        return scripts
    }

    /// `on...=` attributes inside real tags (escaped text holds no `<`); our script is left out.
    static func eventHandlerAttributes(in html: String) -> [String] {
        var markup = html
        for script in scripts(in: html) { markup = markup.replacingOccurrences(of: script, with: "") }
        guard let pattern = try? NSRegularExpression(pattern: "<[a-zA-Z][^>]*\\son[a-z]+\\s*=", options: [.caseInsensitive]) else {
            return ["invalid pattern"]
        }
        let range = NSRange(markup.startIndex..., in: markup)
        return pattern.matches(in: markup, range: range).compactMap { Range($0.range, in: markup).map { String(markup[$0]) } }
    }

    /// The chunk of the document inside the section with this id, up to the next section.
    static func section(_ id: String, in html: String) -> String? {
        guard let start = html.range(of: "data-section-id=\"\(id)\"") else { return nil }
        let rest = html[start.upperBound...]
        let end = rest.range(of: "</section>")?.lowerBound ?? rest.endIndex
        return String(rest[..<end])
    }
}

/// The Content-Security-Policy of a rendered document, and checks on it shared by both suites.
enum ContentSecurity {
    static func policy(in html: String) -> String? {
        guard let start = html.range(of: "<meta http-equiv=\"Content-Security-Policy\" content=\"") else { return nil }
        let rest = html[start.upperBound...]
        return rest.firstIndex(of: "\"").map { String(rest[..<$0]) }
    }

    /// `'sha256-...'` computed independently of the renderer (Foundation's base64).
    static func hashSource(of script: String) -> String {
        var hasher = SHA256()
        hasher.update(script)
        return "'sha256-" + Data(hasher.finalizeBytes()).base64EncodedString() + "'"
    }
}

@Suite struct PreviewPageTests {
    let context = PreviewContext(site: "trex", locale: "en", pageID: "trex-store", version: "v000003")

    func render(_ fixture: String, context: PreviewContext? = nil) throws -> String {
        let page = try PreviewFixtures.page(fixture)
        return String(decoding: PagePreview.html(page: page, context: context ?? self.context), as: UTF8.self)
    }

    @Test func drawsEverySectionTypeWithItsText() throws {
        let html = try render("trex-store")
        let types = RenderedHTML.attributeValues("data-section-type", in: html)
        #expect(
            types == [
                "hero_banner", "markdown_block", "product_grid", "drill_carousel", "cta_button", "cta_button",
                "video_embed", "image_gallery", "divider", "announcement", "countdown_timer",
            ])
        #expect(
            RenderedHTML.attributeValues("data-section-id", in: html) == [
                "hero", "why", "gear", "drills", "browse", "shop", "intro", "range", "rule", "notice", "sale",
            ])
        let expectedText: [String: [String]] = [
            "hero": ["Training Essentials", "Everything you need for your next range day", "class=\"hero\""],
            "why": ["<h3>Why standardized targets matter</h3>", "<strong>repeatable</strong>", "&amp;"],
            "gear": ["Featured Gear", "Target Pack", "$24.99", "Shot Timer", "$129.00", "Range Belt", "product-grid"],
            "drills": ["Popular Drills", "Dot Drill", "Bill Drill", "El Presidente", "class=\"strip\""],
            "browse": ["Browse All Drills", "navigates in the app to /drills"],
            "shop": ["Visit the Shop", "href=\"https://trex-arms.com/store\""],
            "intro": ["Drill Walkthrough", "Five minutes, one target", "▶", "href=\"https://www.youtube.com/watch?v=abc123\""],
            "range": ["At the Range", "Morning session", "Steel targets", "alt=\"Shooter at the line\""],
            "rule": ["<hr class=\"divider\">"],
            "notice": ["Range Closed Monday", "<em>eye protection</em>", "tone-warning"],
            "sale": ["Unknown section type “countdown_timer”", "ends_at, label", "class=\"unknown\""],
        ]
        for (id, texts) in expectedText {
            let section = try #require(RenderedHTML.section(id, in: html), "section \(id)")
            for text in texts {
                #expect(section.contains(text), "section \(id) lacks \(text)")
            }
        }
    }

    @Test func headerNamesSitePageLocaleAndVersion() throws {
        let html = try render("trex-store")
        let header = try #require(html.components(separatedBy: "<header").dropFirst().first?.components(separatedBy: "</header>").first)
        for text in ["trex", "trex-store", "en", "v000003", "site status"] { #expect(header.contains(text)) }
        #expect(html.contains("<html lang=\"en\" dir=\"ltr\" data-version=\"v000003\" data-page-id=\"trex-store\""))
        #expect(html.contains("<title>T.REX ARMS Store · en · preview</title>"))
    }

    @Test func imagesLoadOnlyFromTheVersionAssets() throws {
        let html = try render("trex-store")
        let sources = RenderedHTML.attributeValues("src", in: html).filter { !$0.hasSuffix(".js") }
        #expect(
            sources.sorted() == [
                "../../assets/poster.jpg", "../../assets/range-1.jpg", "../../assets/target.png", "../../assets/targets.jpg",
                "../../assets/trex-banner.jpg",
            ])
        // Remote images are named in a placeholder instead of being fetched.
        #expect(html.contains("remote image<br>cdn.example.com"))
        #expect(html.contains("remote image · cdn.example.com"))
    }

    @Test func assetAndStatusURLsFollowThePageDepth() throws {
        let nested = PreviewContext(site: "trex", locale: "fr", pageID: "guides/range-safety", version: nil)
        #expect(nested.assetBase == "../../../")
        #expect(nested.statusURL == "../../../../../status/status.json")
        #expect(context.assetBase == "../../")
        #expect(context.statusURL == "../../../../status/status.json")
        let html = try render("trex-store", context: nested)
        #expect(html.contains("src=\"../../../assets/trex-banner.jpg\""))
        #expect(html.contains("data-status-url=\"../../../../../status/status.json\""))
        #expect(html.contains("href=\"../../../../../status/index.html\""))
        #expect(html.contains("data-version=\"\""))
    }

    @Test func navigateButtonLinksToThePreviewOfASitePage() throws {
        let linked = PreviewContext(site: "trex", locale: "en", pageID: "trex-store", version: "v000003", sitePageIDs: ["drills"])
        let section = try #require(RenderedHTML.section("browse", in: try render("trex-store", context: linked)))
        #expect(section.contains("<a class=\"button\" href=\"../../preview/en/drills.html\">Browse All Drills</a>"))
        let unlinked = try #require(RenderedHTML.section("browse", in: try render("trex-store")))
        #expect(!unlinked.contains("href="))
    }

    @Test func contentTextIsEscaped() throws {
        let html = try render("hostile")
        #expect(html.contains("<title>&lt;script&gt;alert(1)&lt;/script&gt; · en · preview</title>"))
        #expect(html.contains("<h1>&lt;script&gt;alert(1)&lt;/script&gt;</h1>"))
        #expect(html.contains("Tom&#39;s &quot;quoted&quot; &lt;b&gt;bold&lt;/b&gt; &amp; co"))
        #expect(html.contains("&lt;img src=x onerror=alert(1)&gt;"))
        #expect(html.contains("x&quot; onmouseover=&quot;alert(1)"))
        #expect(html.contains("Unknown section type “&lt;script&gt;alert(1)&lt;/script&gt;”"))
        #expect(html.contains("data-section-id=\"&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;\""))
    }

    @Test func contentNeverBecomesScript() throws {
        let html = try render("hostile")
        // Only our own script, once, from the version's file; no event handler attribute, no
        // script URL anywhere.
        #expect(html.components(separatedBy: "<script").count == 2)
        #expect(RenderedHTML.scripts(in: html).isEmpty)
        #expect(RenderedHTML.attributeValues("src", in: html).filter { $0.hasSuffix(".js") } == ["../../preview/preview.js"])
        let lowered = html.lowercased()
        #expect(RenderedHTML.eventHandlerAttributes(in: html).isEmpty)
        #expect(!lowered.contains("<iframe"))
        #expect(!lowered.contains("<style>body"))
        #expect(!lowered.contains("body{display:none}"))
        for href in RenderedHTML.attributeValues("href", in: html) {
            let scheme = URLPolicy.scheme(of: href)
            #expect(scheme == nil || scheme == "https" || scheme == "http", "href \(href)")
            #expect(!href.lowercased().contains("script"), "href \(href)")
        }
        for source in RenderedHTML.attributeValues("src", in: html) {
            #expect(URLPolicy.scheme(of: source) == nil, "src \(source)")
        }
        // The external CTAs with script URLs are drawn, but not as links.
        let evil = try #require(RenderedHTML.section("evil", in: html))
        #expect(evil.contains("Click &lt;me&gt;") && evil.contains("unlinked") && !evil.contains("href"))
    }

    @Test(arguments: ["trex-store", "hostile"])
    func noSourceLeavesTheServer(fixture: String) throws {
        let html = try render(fixture)
        for source in RenderedHTML.attributeValues("src", in: html) {
            #expect(!source.lowercased().hasPrefix("http"), "src \(source)")
            #expect(!source.contains("//"), "src \(source)")
            #expect(!source.lowercased().hasPrefix("data:"), "src \(source)")
        }
        #expect(!html.contains("@import") && !html.contains("url("))
    }

    /// The script file runs only as the bytes published with the previews: its `integrity` and
    /// the policy's one `script-src` source are their SHA-256, so a script file put in its place
    /// (or any other) is refused.
    @Test func policyAllowsExactlyThePublishedScript() throws {
        let html = try render("trex-store")
        let policy = try #require(ContentSecurity.policy(in: html))
        #expect(RenderedHTML.scripts(in: html).isEmpty)
        let script = String(decoding: PagePreview.script, as: UTF8.self)
        let hash = ContentSecurity.hashSource(of: script)
        #expect(policy.contains("script-src \(hash);"))
        #expect(RenderedHTML.attributeValues("integrity", in: html) == [String(hash.dropFirst().dropLast())])
        #expect(RenderedHTML.attributeValues("src", in: html).filter { $0.hasSuffix(".js") } == ["../../preview/preview.js"])
        for directive in ["default-src 'none'", "img-src 'self'", "style-src 'self';", "connect-src 'self'"] {
            #expect(policy.contains(directive))
        }
        // No inline style at all: the one style sheet is the version's own file.
        #expect(!html.contains("<style") && !html.contains(" style="))
        #expect(RenderedHTML.attributeValues("href", in: html).filter { $0.hasSuffix(".css") } == ["../../preview/preview.css"])
    }

    /// From any depth of page id, the links reach `preview/preview.css` and `preview/preview.js`
    /// of the same version.
    @Test(arguments: ["home", "guides/intro", "a/b/c/d"])
    func theStyleSheetAndScriptLinksResolveToTheVersionsFiles(pageID: String) throws {
        let context = PreviewContext(site: "trex", locale: "fr", pageID: pageID, version: nil)
        let html = String(decoding: PagePreview.html(page: ["title": "T"], context: context), as: UTF8.self)
        let href = try #require(RenderedHTML.attributeValues("href", in: html).first { $0.hasSuffix(".css") })
        let src = try #require(RenderedHTML.attributeValues("src", in: html).first { $0.hasSuffix(".js") })
        let page = try #require(URL(string: "https://host/trex/versions/v000002/preview/fr/\(pageID).html"))
        #expect(URL(string: href, relativeTo: page)?.absoluteURL.path == "/trex/versions/v000002/" + PagePreview.stylesheetPath)
        #expect(URL(string: src, relativeTo: page)?.absoluteURL.path == "/trex/versions/v000002/" + PagePreview.scriptPath)
        // The style sheet itself asks for nothing more.
        let sheet = String(decoding: PagePreview.stylesheet, as: UTF8.self)
        #expect(!sheet.contains("@import") && !sheet.contains("url("))
    }

    @Test func equalInputGivesEqualBytes() throws {
        let page = try PreviewFixtures.page("trex-store")
        #expect(PagePreview.html(page: page, context: context) == PagePreview.html(page: page, context: context))
    }

    @Test func pageWithoutSectionsStillRenders() {
        let html = String(decoding: PagePreview.html(page: ["title": "Empty"], context: context), as: UTF8.self)
        #expect(html.contains("This page has no sections."))
        #expect(html.hasSuffix("</html>\n"))
    }

    @Test(arguments: [
        ("<p>a <a href=\"javascript:alert(1)\">x</a></p>", "<p>a <a>x</a></p>"),
        ("<a href=\"javascript&colon;alert(1)\">x</a>", "<a>x</a>"),
        ("<a href=\"&#106;avascript:alert(1)\">x</a>", "<a>x</a>"),
        (
            "<a href=\"https://example.com/?a=1&amp;b=2\" title=\"t\">x</a>",
            "<a href=\"https://example.com/?a=1&amp;b=2\" title=\"t\" rel=\"noopener noreferrer\">x</a>"
        ),
        ("<a href=\"mailto:team@example.com\">m</a>", "<a href=\"mailto:team@example.com\" rel=\"noopener noreferrer\">m</a>"),
        ("<p onclick=\"alert(1)\">p</p>", "<p>p</p>"),
        ("<img src=\"/assets/a b.png\" alt=\"A &amp; B\" />", "<img src=\"../../assets/a b.png\" alt=\"A &amp; B\">"),
        ("<img src=\"https://cdn.example.com/x.png\" alt=\"\" />", "<span class=\"remote-image\">remote image · cdn.example.com</span>"),
        ("<img src=\"data:image/png;base64,AAAA\" />", "<span class=\"remote-image\">image not shown</span>"),
        ("<script>alert(1)</script>ok", "ok"),
        ("<SCRIPT>alert(1)</Script >ok", "ok"),
        ("<!-- raw HTML omitted -->\n<p>1 &lt; 2 &gt; 0 & x</p>", "\n<p>1 &lt; 2 &gt; 0 &amp; x</p>"),
        ("a < b", "a &lt; b"),
        ("<pre><code class=\"language-swift\">let x = 1\n</code></pre>", "<pre><code class=\"language-swift\">let x = 1\n</code></pre>"),
        ("<ol start=\"3\"><li>c</li></ol>", "<ol start=\"3\"><li>c</li></ol>"),
    ])
    func markdownHTMLIsFiltered(input: String, expected: String) {
        #expect(MarkdownHTMLFilter(assetBase: "../../").filter(input) == expected)
    }

    @Test func base64MatchesFoundation() {
        for length in 0..<10 {
            let bytes = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 97 &+ 251) }
            #expect(PreviewScripts.base64(bytes) == Data(bytes).base64EncodedString())
        }
    }
}
