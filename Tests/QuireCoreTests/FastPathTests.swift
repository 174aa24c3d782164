import Foundation
@testable import QuireCore
import QuireModel
import Testing

/// The shortcuts taken for speed must say exactly what the long way says.
@Suite struct FastPathTests {
    static let markdown: [String] = MarkdownSafetyTests.vectors + [
        "plain text, no markup at all",
        "a *b* [c](https://example.com) <b>d</b>\nline two\r\nline three",
        "![alt *em* [in](javascript:x)](javascript:y) ![ok](/assets/a.png)",
        String(repeating: "> ", count: 62) + "just under the limit",
        String(repeating: "> ", count: 63) + "at the limit",
        String(repeating: "> ", count: 64) + "over the limit <b>x</b>",
        String(repeating: "- ", count: 40) + "nested lists",
        String(repeating: "*", count: 70) + "emphasis" + String(repeating: "*", count: 70),
        String(repeating: "[", count: 70) + "links" + String(repeating: "](https://x.example)", count: 70),
        (0..<30).map { "<i>\($0)</i>" }.joined(separator: " "),
    ]

    @Test(arguments: markdown)
    func removedWithoutRenderingMatchesRender(markdown: String) {
        let fast = MarkdownRenderer.removed(from: CommonMarkDocument(parsing: markdown))
        #expect(fast == MarkdownRenderer.render(markdown).removed)
    }

    @Test func theDepthCheckSeesBothSidesOfTheLimit() {
        let deep = MarkdownBlockTreeBuilder.maximumDepth
        let over = CommonMarkDocument(parsing: String(repeating: "> ", count: deep) + "x")
        let under = CommonMarkDocument(parsing: String(repeating: "> ", count: deep - 2) + "x")
        #expect(over.hasContainer(openedAtDepth: deep))
        #expect(!under.hasContainer(openedAtDepth: deep))
        #expect(MarkdownRenderer.removed(from: over).contains(MarkdownRemovalMessage.deepNesting(limit: deep)))
        #expect(MarkdownRenderer.removed(from: under).isEmpty)
    }

    @Test(arguments: markdown)
    func linksMatchEveryLinkEvent(markdown: String) {
        var walked: [String] = []
        CommonMarkDocument(parsing: markdown).walk { event in
            if case .enter(.link(let url, _)) = event { walked.append(url) }
            if case .enter(.image(let url, _)) = event { walked.append(url) }
        }
        #expect(MarkdownRenderer.links(in: markdown) == walked)
    }

    @Test func adjacentTextAndSoftBreaksArriveAsOneText() {
        var texts: [String] = []
        CommonMarkDocument(parsing: "one [two] three &amp; four\nfive *six*").walk { event in
            if case .leaf(.text(let text)) = event { texts.append(text) }
        }
        #expect(texts == ["one [two] three & four five ", "six"])
    }

    @Test(arguments: ["", "plain", "a & b < c > d \" e ' f", "nul \u{0} here", "é ü 漢字 😀 e\u{301}", "&amp;&lt;"])
    func htmlEscapeMatchesScalarByScalar(text: String) {
        var expected = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": expected += "&amp;"
            case "<": expected += "&lt;"
            case ">": expected += "&gt;"
            case "\"": expected += "&quot;"
            case "'": expected += "&#39;"
            case "\0": expected += "\u{FFFD}"
            default: expected.unicodeScalars.append(scalar)
            }
        }
        #expect(HTMLWriter.escape(text) == expected)
    }

    @Test(arguments: [
        "https://example.com/x", "http://a.b?c", "https://host#frag", "https:///path", "no scheme",
        "https://exämple.com/ü", "https://e\u{301}xample.com/", "ftp://x:/y", "a://",
    ])
    func previewHostMatchesFoundationSearch(url: String) {
        var expected: String?
        if let range = url.range(of: "://") {
            let host = url[range.upperBound...].prefix(while: { $0 != "/" && $0 != "?" && $0 != "#" })
            expected = host.isEmpty ? nil : String(host)
        }
        #expect(PreviewURL.host(of: url) == expected)
    }
}
