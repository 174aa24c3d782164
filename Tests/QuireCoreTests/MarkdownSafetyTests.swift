import Foundation
import QuireCore
import QuireModel
import Testing

/// Every attack vector must leave no executable HTML, no unsafe URL in the block tree, and a
/// `removed` entry that a warning can show.
@Suite struct MarkdownSafetyTests {
    static let vectors = [
        "<script>alert(1)</script>",
        "text <script>alert(1)</script> more",
        "<SCRIPT SRC=//evil.example/x.js></SCRIPT>",
        "<img src=x onerror=alert(1)>",
        "see <img src=x onerror=\"alert(1)\"> here",
        "<a href=\"javascript:alert(1)\">x</a>",
        "[click](javascript:alert(1))",
        "[click](JavaScript:alert(1))",
        "[click](JAVASCRIPT:alert(1))",
        "[click]( javascript:alert(1) )",
        "[click](<javascript:alert(1)>)",
        "[click](&#106;avascript:alert(1))",
        "[click](&#x6A;avascript:alert(1))",
        "[click](java&#9;script:alert(1))",
        "[click](java&#x0A;script:alert(1))",
        "[click](javascript&colon;alert(1))",
        "[click](javascript:alert(1) \"title\")",
        "[click][ref]\n\n[ref]: javascript:alert(1)",
        "[click](vbscript:msgbox(1))",
        "[click](VBScript:msgbox(1))",
        "[click](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)",
        "[click](file:///etc/passwd)",
        "![pic](data:image/png;base64,iVBORw0KGgo=)",
        "![pic](data:image/svg+xml;base64,PHN2Zz4=)",
        "![pic](javascript:alert(1))",
        "[![pic](javascript:alert(1))](javascript:alert(2))",
        "![[click](javascript:alert(1))](data:image/gif;base64,R0lGODlh)",
        "- [click](javascript:alert(1))\n> [click](vbscript:x)",
    ]

    @Test(arguments: vectors)
    func unsafeInputIsNeutralized(_ markdown: String) {
        let rendered = MarkdownRenderer.render(markdown)
        let html = rendered.html.lowercased()
        for forbidden in ["<script", "javascript:", "javascript&", "vbscript:", "data:", "file:", "onerror"] {
            #expect(!html.contains(forbidden), "html \(rendered.html.debugDescription) contains \(forbidden)")
        }
        let blocks = JSONWriter(pretty: false).string(rendered.blocks).lowercased()
        for forbidden in ["script", "data:", "file:", "onerror"] {
            #expect(!blocks.contains(forbidden), "blocks \(blocks) contain \(forbidden)")
        }
        for url in Self.urls(in: rendered.blocks) {
            #expect(URLPolicy.isSafeMarkdownLink(url), "unsafe url \(url.debugDescription) in blocks")
        }
        #expect(!rendered.removed.isEmpty)
    }

    @Test func unsafeLinkKeepsItsTextInBothOutputs() {
        let rendered = MarkdownRenderer.render("Go [*click* here](javascript:alert(1)) now")
        #expect(rendered.html == "<p>Go <em>click</em> here now</p>\n")
        let expected: JSONValue = [
            [
                "type": "paragraph",
                "inlines": [
                    ["type": "text", "text": "Go "],
                    ["type": "emphasis", "inlines": [["type": "text", "text": "click"]]],
                    ["type": "text", "text": " here now"],
                ],
            ]
        ]
        #expect(rendered.blocks == expected)
        #expect(
            rendered.removed == [
                "link to 'javascript:alert(1)' (unsafe URL: its text is kept; use https:, http:, mailto:, tel: or a path)"
            ])
    }

    @Test func unsafeImageKeepsItsAltText() {
        let rendered = MarkdownRenderer.render("![a target](data:image/png;base64,iVBORw0KGgo=)")
        #expect(rendered.html == "<p>a target</p>\n")
        #expect(rendered.blocks == [["type": "paragraph", "inlines": [["type": "text", "text": "a target"]]]])
        #expect(
            rendered.removed == [
                "image 'data:image/png;base64,iVBORw0KGgo=' (unsafe URL: its alt text is kept; use https:, http: or a path)"
            ])
    }

    @Test func unsafeImageWithoutAltTextLeavesNoEmptyParagraph() {
        let rendered = MarkdownRenderer.render("![](javascript:x)\n\nafter")
        #expect(rendered.blocks == [["type": "paragraph", "inlines": [["type": "text", "text": "after"]]]])
        #expect(rendered.removed.count == 1)
    }

    /// An autolink's text is its URL: the link goes, the text stays as harmless text.
    @Test func unsafeAutolinkBecomesText() {
        let rendered = MarkdownRenderer.render("<javascript:alert(1)>")
        #expect(rendered.html == "<p>javascript:alert(1)</p>\n")
        #expect(!rendered.html.contains("href"))
        #expect(rendered.blocks == [["type": "paragraph", "inlines": [["type": "text", "text": "javascript:alert(1)"]]]])
        #expect(rendered.removed.count == 1)
    }

    @Test func removalsAreListedInDocumentOrderAndQuotedOnOneLine() {
        let markdown = """
            [a](vbscript:x) <span>

            <div onclick="alert(1)">
            a long block of raw HTML that goes on
            </div>

            [b](java\tscript:x)
            """
        let rendered = MarkdownRenderer.render(markdown)
        #expect(
            rendered.removed == [
                "link to 'vbscript:x' (unsafe URL: its text is kept; use https:, http:, mailto:, tel: or a path)",
                "raw HTML '<span>' (markdown fields cannot carry HTML)",
                "raw HTML '<div onclick=\"alert(1)\">\\na long block of…' (markdown fields cannot carry HTML)",
            ])
        // `java\tscript:x` is not a link destination at all (a tab ends it): plain text, nothing removed.
        #expect(rendered.removed.count == 3)
    }

    @Test func manyRemovalsAreSummarized() {
        let markdown = (1...25).map { "[l\($0)](javascript:\($0))" }.joined(separator: " ")
        let removed = MarkdownRenderer.render(markdown).removed
        #expect(removed.count == 21)
        #expect(removed.first?.hasPrefix("link to 'javascript:1'") == true)
        #expect(removed.dropLast().last?.hasPrefix("link to 'javascript:20'") == true)
        #expect(removed.last == "and 5 more removals")
    }

    @Test func safeLinksAreKept() {
        let markdown = "[a](https://x.example) [b](http://x.example) [c](mailto:a@x.example) [d](tel:+1) [e](/p) [f](#top) [g](page)"
        let rendered = MarkdownRenderer.render(markdown)
        #expect(rendered.removed.isEmpty)
        #expect(
            Self.urls(in: rendered.blocks) == [
                "https://x.example", "http://x.example", "mailto:a@x.example", "tel:+1", "/p", "#top", "page",
            ])
    }

    @Test func linksAreListedInOrderAsCmarkDecodesThem() {
        let markdown = """
            See [a](https://x.example/a) and ![b](/assets/b.png "B") and [c](&#106;avascript:x).
            Also <https://auto.example> and [ref].

            [ref]: /referenced
            """
        #expect(
            MarkdownRenderer.links(in: markdown) == [
                "https://x.example/a", "/assets/b.png", "javascript:x", "https://auto.example", "/referenced",
            ])
        #expect(MarkdownRenderer.links(in: "") == [])
    }

    /// Every `url` value anywhere in a block tree, walked without recursion.
    static func urls(in value: JSONValue) -> [String] {
        var urls: [String] = []
        var pending: [JSONValue] = [value]
        while let next = pending.popLast() {
            switch next {
            case .array(let items): pending.append(contentsOf: items.reversed())
            case .object(let object):
                if let url = object["url"]?.stringValue { urls.append(url) }
                pending.append(contentsOf: object.members.map(\.value).reversed())
            default: break
            }
        }
        return urls
    }
}
