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
    func shell(_ pageID: String = "trex-store", site: String = "trex", source: PagePreview.Source = .published) -> String {
        String(decoding: PagePreview.shell(site: site, pageID: pageID, source: source), as: UTF8.self)
    }

    /// A save changes a page's JSON, never its preview: every page at one folder depth has the
    /// same preview bytes, and a draft's differs only by where its script reads the page.
    @Test func everyPageAtOneDepthSharesOneDocument() {
        #expect(shell("trex-store") == shell("drills"))
        #expect(shell("guides/intro") == shell("guides/range-safety"))
        #expect(shell("guides/intro") != shell("trex-store"))
        #expect(!shell().contains("data-source"))
        let draft = shell(source: .preview)
        #expect(draft.contains("<html dir=\"ltr\" data-site=\"trex\" data-source=\"preview\">"))
        #expect(draft.replacingOccurrences(of: " data-source=\"preview\"", with: "") == shell())
        #expect(PagePreview.shellDigest(site: "trex", source: .published) != PagePreview.shellDigest(site: "trex", source: .preview))
    }

    @Test func aBuildsShellsAreTheShellsOfTheirDepths() {
        let shells = PreviewShells(site: "trex", pageIDs: ["home", "a/b"])
        let unshared = shells.unshared
        for (pageID, source) in [("home", PagePreview.Source.published), ("a/b", .published), ("home", .preview), ("x/y/z", .preview)] {
            let bytes = shells.shell(pageID: pageID, source: source)
            #expect(bytes == Array(shell(pageID, source: source).utf8))
            let copy = unshared.shell(pageID: pageID, source: source)
            #expect(copy == bytes)
            // Another buffer: threads holding the two copies never touch one reference count.
            let addresses = (bytes.withUnsafeBytes { $0.baseAddress }, copy.withUnsafeBytes { $0.baseAddress })
            #expect(addresses.0 != addresses.1)
        }
        let other = PreviewShells(site: "other", pageIDs: ["home"])
        #expect(other.shell(pageID: "home", source: .published) == Array(shell("home", site: "other").utf8))
    }

    @Test func theDocumentHoldsTheFrameTheScriptFills() {
        let html = shell()
        for id in ["quire-site", "quire-page", "quire-locale", "quire-version", "quire-status-link", "quire-diagnostics", "quire-notice"] {
            #expect(html.contains("id=\"\(id)\""), "\(id)")
        }
        #expect(html.contains("<div class=\"navbar\"><h1 id=\"quire-title\"></h1></div>"))
        #expect(html.contains("<div class=\"content\" id=\"quire-content\">"))
        #expect(html.contains("<code id=\"quire-site\">trex</code>"))
        #expect(html.hasSuffix("</html>\n"))
    }

    @Test func theSiteNameIsEscaped() {
        let html = shell(site: "<script>alert(1)</script>\"")
        #expect(html.contains("data-site=\"&lt;script&gt;alert(1)&lt;/script&gt;&quot;\""))
        #expect(html.components(separatedBy: "<script").count == 2)
        #expect(RenderedHTML.eventHandlerAttributes(in: html).isEmpty)
    }

    /// The script file runs only as the bytes published with the previews: its `integrity` and
    /// the policy's one `script-src` source are their SHA-256, so a script file put in its place
    /// (or any other) is refused.
    @Test func policyAllowsExactlyThePublishedScript() throws {
        let html = shell()
        let policy = try #require(ContentSecurity.policy(in: html))
        #expect(RenderedHTML.scripts(in: html).isEmpty)
        let script = String(decoding: PagePreview.script, as: UTF8.self)
        let hash = ContentSecurity.hashSource(of: script)
        #expect(policy.contains("script-src \(hash);"))
        #expect(RenderedHTML.attributeValues("integrity", in: html) == [String(hash.dropFirst().dropLast())])
        #expect(RenderedHTML.attributeValues("src", in: html) == ["../../preview/preview.js"])
        for directive in ["default-src 'none'", "img-src 'self'", "style-src 'self';", "connect-src 'self'", "base-uri 'none'"] {
            #expect(policy.contains(directive))
        }
        // No inline style at all: the one style sheet is the version's own file.
        #expect(!html.contains("<style") && !html.contains(" style="))
        #expect(RenderedHTML.attributeValues("href", in: html).filter { $0.hasSuffix(".css") } == ["../../preview/preview.css"])
        // The script builds the page from DOM calls: it never parses markup.
        for call in ["innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval(", "Function("] {
            #expect(!script.contains(call), "\(call)")
        }
    }

    /// From any depth of page id, the links reach `preview/preview.css`, `preview/preview.js` and
    /// the status page of the same version.
    @Test(arguments: ["home", "guides/intro", "a/b/c/d"])
    func theStyleSheetScriptAndStatusLinksFollowThePageDepth(pageID: String) throws {
        let html = shell(pageID)
        let href = try #require(RenderedHTML.attributeValues("href", in: html).first { $0.hasSuffix(".css") })
        let src = try #require(RenderedHTML.attributeValues("src", in: html).first { $0.hasSuffix(".js") })
        let status = try #require(RenderedHTML.attributeValues("href", in: html).first { $0.hasSuffix("index.html") })
        let page = try #require(URL(string: "https://host/trex/versions/v000002/preview/fr/\(pageID).html"))
        #expect(URL(string: href, relativeTo: page)?.absoluteURL.path == "/trex/versions/v000002/" + PagePreview.stylesheetPath)
        #expect(URL(string: src, relativeTo: page)?.absoluteURL.path == "/trex/versions/v000002/" + PagePreview.scriptPath)
        #expect(URL(string: status, relativeTo: page)?.absoluteURL.path == "/trex/status/index.html")
        // The style sheet itself asks for nothing more.
        let sheet = String(decoding: PagePreview.stylesheet, as: UTF8.self)
        #expect(!sheet.contains("@import") && !sheet.contains("url("))
    }

    @Test(arguments: [
        ("preview/en/home.html", "home"), ("preview/fr/guides/intro.html", "guides/intro"), ("preview/en/home.json", "home"),
        ("preview/en/guides/intro.3.json", "guides/intro"), ("preview/preview.js", nil), ("en/home.json", nil),
    ])
    func previewPathsNameTheirPage(path: String, pageID: String?) {
        #expect(OutputPath.pageID(ofOutput: path, metadata: nil) == pageID)
    }

    @Test func base64MatchesFoundation() {
        for length in 0..<10 {
            let bytes = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 97 &+ 251) }
            #expect(PreviewScripts.base64(bytes) == Data(bytes).base64EncodedString())
        }
    }
}
