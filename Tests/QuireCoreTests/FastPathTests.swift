import Foundation
import QuireModel
import Testing

@testable import QuireCore

/// The shortcuts taken for speed must say exactly what the long way says.
@Suite struct FastPathTests {
    static let markdown: [String] =
        MarkdownSafetyTests.vectors + [
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

    @Test(arguments: ["l10n/fr/home", "l10n//fr/a/b//c", "/l10n/fr/", "a", "", "///", "l10n/é/home", "l10n/fr/\u{301}x"])
    func pathSegmentsMatchTheCharacterSplit(path: String) {
        #expect(SiteInventory.segments(of: path, maxSplits: 2) == path.split(separator: "/", maxSplits: 2).map(String.init))
    }

    @Test(arguments: ["home", "guides/range-safety", "x_y-z/0", "a//b", "/a", "a/", "", "site", "vocabulary", "Home", "a/../b", "é"])
    func pageIDShortcutAgreesWithTheChecks(id: String) {
        #expect(PageID.problem(id) == PageID.checkedProblem(id))
        if PageID.isPlainlyValid(id) { #expect(PageID.checkedProblem(id) == nil) }
    }

    @Test func theDepthCheckSeesBothSidesOfTheLimit() {
        let deep = MarkdownBlockWriter.maximumDepth
        let over = CommonMarkDocument(parsing: String(repeating: "> ", count: deep) + "x")
        let under = CommonMarkDocument(parsing: String(repeating: "> ", count: deep - 2) + "x")
        #expect(over.hasContainer(openedAtDepth: deep))
        #expect(!under.hasContainer(openedAtDepth: deep))
        #expect(MarkdownRenderer.removed(from: over).contains(MarkdownRemovalMessage.deepNesting(limit: deep)))
        #expect(MarkdownRenderer.removed(from: under).isEmpty)
    }

    /// The cleanup's own count of the depth agrees with `hasContainer` before the cleanup, and
    /// the cleanup never makes the tree deeper (what lets `removed` skip a second walk).
    @Test(arguments: markdown)
    func cleanupCountsTheDepthAsTheDepthCheckDoes(markdown: String) {
        let document = CommonMarkDocument(parsing: markdown)
        let before = (0...70).map { document.hasContainer(openedAtDepth: $0) }
        let cleanup = MarkdownRenderer.cleanUp(document)
        for depth in 0...70 {
            #expect((cleanup.deepestContainerOpening >= depth) == before[depth], "depth \(depth)")
            #expect(!document.hasContainer(openedAtDepth: depth) || before[depth], "depth \(depth)")
        }
    }

    @Test(arguments: markdown)
    func linksMatchEveryLinkEvent(markdown: String) {
        var walked: [String] = []
        CommonMarkDocument(parsing: markdown).walk { event in
            if case .enter(.link(let url, _)) = event { walked.append(url.string) }
            if case .enter(.image(let url, _)) = event { walked.append(url.string) }
        }
        #expect(MarkdownRenderer.links(in: markdown) == walked)
    }

    @Test func adjacentTextAndSoftBreaksArriveAsOneText() {
        var texts: [String] = []
        CommonMarkDocument(parsing: "one [two] three &amp; four\nfive *six*").walk { event in
            if case .leaf(.text(let text)) = event { texts.append(text.string) }
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

    // MARK: The block tree writer

    /// Markdown that exercises every node kind and the text-joining rules, beyond `markdown`.
    static let treeInputs: [String] =
        markdown + [
            "# Heading *em* **strong** `code`\n\nSetext\n===\n\n***\n\n> quote\n> - item *a*\n>   more\n",
            "1. one\n2. two\n\n   para in item\n3) other\n\n7. seven\n8. eight\n\n- loose\n\n- list\n",
            "a  \nhard break\\\nand `code` and [link *em* text](/x \"Title\") and ![alt **b** `c`\nd](/i.png \"t\")",
            "```swift  extra words\nlet x = 1\n```\n\n```\nplain\n```\n\n    indented\n\n~~~\tpy\nx\n~~~",
            "<div>html block</div>\n\npara <span>inline</span> tail &amp; &copy; [a](https://x \"\") end",
            "![img in *alt* with [link](/l) and `code`](/p.png)\n\n[![nested](/n.png)](/link)",
            String(repeating: "> ", count: 66) + "deep\n> > back\n\nafter",
            String(repeating: "- ", count: 70) + "*em* `code`\n\n    code\n" + String(repeating: "> ", count: 70) + "```\nblock\n```",
            String(repeating: "> ", count: 63) + "![alt](/a.png) x\n" + String(repeating: "> ", count: 63) + "- a\n\n  b",
            "",
            "   ",
            "\u{0}nul é 漢字 e\u{301} 😀 *ü*",
            // Paragraphs left empty (their only content raw HTML) are cut out, items and links are not.
            "<span></span>\n\npara <b></b>\n\n- \n- <i></i>\n- x\n\n> <b></b>\n\n[](/empty) ![](/e.png) `` x",
            // Line endings made of entities, at the end of flattened text and of alt text.
            String(repeating: "> ", count: 66) + "a&#13;&#10;\n" + String(repeating: "> ", count: 66)
                + "- b&#13;\n\n![c&#13;&#10;](/c.png)",
            "\"quotes\" \\ back\\slash \u{1}\u{1F} tab\there [q\"](/a\"b \"t\\\"\") `c\"`\n\n```i\"n\nx\"\\\n```",
        ]

    @Test(arguments: treeInputs)
    func blockTreeMatchesTheSimpleBuilder(markdown: String) {
        let expected = ReferenceBlockTreeBuilder.blocks(of: cleaned(markdown))
        let fast = MarkdownBlockWriter.blocks(of: cleaned(markdown))
        #expect(fast.flattenedDeepContent == expected.flattenedDeepContent)
        #expect(fast.json == JSONWriter(pretty: false).bytes(.array(expected.blocks)))
    }

    @Test func blockTreeMatchesTheSimpleBuilderOnTheGoldenFixtures() throws {
        for name in MarkdownGoldenTests.names {
            let text = try String(contentsOf: MarkdownGoldenTests.fixtures.appendingPathComponent("\(name).md"), encoding: .utf8)
            let expected = ReferenceBlockTreeBuilder.blocks(of: cleaned(text))
            let fast = MarkdownBlockWriter.blocks(of: cleaned(text))
            #expect(fast.json == JSONWriter(pretty: false).bytes(.array(expected.blocks)), "\(name)")
            #expect(fast.flattenedDeepContent == expected.flattenedDeepContent, "\(name)")
        }
    }

    private func cleaned(_ markdown: String) -> CommonMarkDocument {
        let document = CommonMarkDocument(parsing: markdown)
        _ = MarkdownRenderer.cleanUp(document)
        return document
    }

    /// Strings made from bytes cmark's UTF-8 check would have replaced: Swift replaced them first.
    static let unvalidatedInputs: [String] =
        treeInputs + [
            String(decoding: Array("a ".utf8) + [0xFF, 0x00, 0xC0, 0xAF, 0xED, 0xA0, 0x80] + Array(" *b*\n".utf8), as: UTF8.self),
            String(decoding: [0xF4, 0x90, 0x80, 0x80, 0x0A, 0x23, 0x20, 0xE0, 0x80, 0x80, 0x00, 0x00], as: UTF8.self),
            "nul\u{0}in a line\n\u{0}\n- \u{0}item\r\n`co\u{0}de`\rend \u{FFFE} \u{10FFFF} \u{FEFF}",
            "\u{FEFF}# after a byte order mark",
        ]

    @Test(arguments: unvalidatedInputs)
    func skippingCmarksUTF8CheckChangesNothing(markdown: String) {
        let checked = CommonMarkDocument(parsing: markdown, validatingUTF8: true)
        let unchecked = CommonMarkDocument(parsing: markdown)
        #expect(Array(unchecked.html().utf8) == Array(checked.html().utf8))
        #expect(MarkdownBlockWriter.blocks(of: unchecked).json == MarkdownBlockWriter.blocks(of: checked).json)
    }

    /// Text cmark splits, decodes or makes up (entities naming no character, tabs in code,
    /// escapes next to non-ASCII letters), for the copies that skip Swift's UTF-8 check.
    static let cmarkOutputInputs: [String] =
        unvalidatedInputs + [
            "&#xD800; &#0; &#x110000; &#99999999; &eacute;&amp;&nbsp; &#128512; &bogus; é&#233;",
            "é*ü*é **漢**字 _😀_x \\é \\* `é` [é](/ü \"tï\") ![ä](/ö.png 'ß')",
            "\tcode\twith é\ttabs\n- \tlist é\n\n>\tquote ü",
            "[ünïcode label]: /ü \"ti&eacute;\"\n\n[ÜNÏCODE LABEL] <https://ex.com/ü?é=1> <ü@ex.com>",
            "<b>é</b> <!-- ü --> &lt;é&gt;\n\n<div>\nü\n</div>",
        ]

    @Test(arguments: cmarkOutputInputs)
    func cmarksOutputCopiedUncheckedIsWellFormed(markdown: String) {
        let document = CommonMarkDocument(parsing: markdown)
        let html = document.html()
        #expect(String(validating: Array(html.utf8), as: UTF8.self) == html)
        let tree = MarkdownBlockWriter.blocks(of: document).json
        #expect(String(validating: tree, as: UTF8.self) != nil)
    }

    // MARK: A page's markdown memo

    @Test(arguments: markdown)
    func memoAnswersAsTheRendererDoes(markdown: String) {
        let expected = MarkdownRenderer.render(markdown)
        // Asked in the order a build asks (checks, then renders), and again after rendering.
        let memo = MarkdownMemo()
        #expect(memo.links(in: markdown) == MarkdownRenderer.links(in: markdown))
        #expect(memo.removed(markdown) == expected.removed)
        #expect(memo.render(markdown) == expected)
        #expect(memo.render(markdown) == expected)
        #expect(memo.links(in: markdown) == MarkdownRenderer.links(in: markdown))
        #expect(memo.removed(markdown) == expected.removed)
        // Rendered first, with nothing asked before.
        let fresh = MarkdownMemo()
        #expect(fresh.render(markdown) == expected)
        #expect(fresh.removed(markdown) == expected.removed)
    }

    @Test(arguments: markdown)
    func cleanupReadsTheLinksOfTheUncleanedDocument(markdown: String) {
        let document = CommonMarkDocument(parsing: markdown)
        let links = document.linkDestinations()
        #expect(MarkdownRenderer.cleanUp(document).links == links)
    }

    @Test func memoTellsTextsApartByTheirBytes() {
        // Canonically equal (`==` as Strings), different bytes: cmark may render them differently.
        let composed = "caf\u{E9} [x](https://example.com/\u{E9})"
        let decomposed = "cafe\u{301} [x](https://example.com/e\u{301})"
        let sameEnds = "a" + String(repeating: "b", count: 100) + "a"
        let sameEndsToo = "a" + String(repeating: "b", count: 49) + "*c*" + String(repeating: "b", count: 48) + "a"
        let memo = MarkdownMemo()
        for text in [composed, decomposed, sameEnds, sameEndsToo, composed, sameEnds] {
            let rendered = memo.render(text)
            let expected = MarkdownRenderer.render(text)
            #expect(Array(rendered.html.utf8) == Array(expected.html.utf8))
            #expect(rendered == expected)
            #expect(memo.links(in: text).map { Array($0.utf8) } == MarkdownRenderer.links(in: text).map { Array($0.utf8) })
        }
    }

    // MARK: JSON objects from literals

    @Test func literalObjectsKeepOrderAndTheLastOfARepeatedKey() {
        var slow = JSONObject()
        for (key, value) in [("b", JSONValue.integer(1)), ("a", 2), ("b", 3), ("c", 4)] { slow[key] = value }
        let repeated = JSONObject([("b", 1), ("a", 2), ("b", 3), ("c", 4)])
        #expect(repeated.members.map(\.key) == slow.members.map(\.key))
        #expect(repeated == slow)
        let fromMembers = JSONObject(members: [("b", 1), ("a", 2), ("b", 3), ("c", 4)])
        #expect(fromMembers.members.map(\.key) == slow.members.map(\.key))
        #expect(fromMembers == slow)
        #expect(JSONObject(members: [("type", "text"), ("text", "x")]) == ["type": "text", "text": "x"])
        #expect(JSONObject(distinctKeys: [("type", "text"), ("text", "x")]) == ["type": "text", "text": "x"])
        let bigDistinct = JSONObject(distinctKeys: (0..<40).map { (key: "k\($0)", value: JSONValue.integer($0)) })
        #expect(bigDistinct == JSONObject((0..<40).map { ("k\($0)", JSONValue.integer($0)) }) && bigDistinct["k39"] == 39)
        let bigFromMembers = JSONObject(members: (0..<40).map { (key: "k\($0 % 30)", value: JSONValue.integer($0)) })
        #expect(bigFromMembers.count == 30 && bigFromMembers["k29"] == 29 && bigFromMembers["k0"] == 30)
        #expect(bigFromMembers == JSONObject((0..<40).map { ("k\($0 % 30)", JSONValue.integer($0)) }))
        let distinct: JSONObject = ["type": "text", "text": "x", "level": 2]
        #expect(distinct.keys == ["type", "text", "level"])
        #expect(distinct["level"] == 2)
        // Big enough for a key index: lookups still find every key.
        let big = JSONObject((0..<40).map { ("k\($0)", JSONValue.integer($0)) })
        #expect(big.count == 40 && big["k39"] == 39 && big["k0"] == 0)
    }

    // MARK: YAML plain scalars

    static let plainScalars: [String] = [
        "", "~", "null", "Null", "NULL", "nul", "none", "true", "True", "TRUE", "false", "FALSE", "yes", "no", "on", "off",
        "0", "-1", "+12", "007", "0o17", "0x1F", "0xZZ", "1.5", ".5", "-.5e3", "1e400", ".inf", "-.Inf", ".nan", "+.nan",
        "1_000", "12abc", "word", "Word", "hello world", "été", "漢字", "😀", "_x", "@page_id", "#x", "/path", "https://x.example",
        "$64.05", "(a)", "[x]", "e\u{301}", "nothing", "total", "foo", "Ffff", "-", "+", ".", "..", "-x",
    ]

    @Test func plainScalarShortcutMatchesTheFullResolution() {
        var texts = Self.plainScalars
        // Every ASCII first byte, alone and followed by text and by digits.
        for byte in UInt8(0x20)..<0x7F {
            let first = String(decoding: [byte], as: UTF8.self)
            texts += [first, first + "abc", first + "12", first + "rue", first + "ull", first + "inf"]
        }
        for text in texts {
            #expect(YAMLCoreSchema.resolvePlain(text) == YAMLCoreSchema.resolvePlainFully(text), "\(text)")
        }
    }

    // MARK: URL schemes

    @Test(arguments: [
        "https://example.com", "HTTP://x", "javascript:alert(1)", "JaVaScRiPt:x", "java\tscript:x", " https://x", "\u{1}https:x",
        "mailto:a@b", "tel:+1", "/path", "relative/path", "#frag", ":nothing", "", "a", "a:", "1+2-3.4:x", "ht tp://x",
        "ht_tp://x", "été:x", "https\u{301}://x", "data:image/png;base64,AAAA", "x\u{7F}:y", "a?b:c", "a/b:c", "\r\nvbscript:x",
    ])
    func schemeOnBytesMatchesTheScalarWalk(url: String) {
        #expect(URLPolicy.scheme(of: url) == URLPolicy.schemeByScalars(of: url))
    }

    // MARK: YAML scalar text

    @Test func yamlScalarsCopiedUncheckedMatchTheCheckedCopy() throws {
        let yaml = """
            plain: héllo wörld 漢字 😀 e\u{301}
            "quoted \\u00e9": "\\u00e9 \\U0001F600 \\x41 \\t tab \\N \\_ \\L \\P"
            single: 'it''s été'
            block: |
              ### Título ñ
              línea 2 — “quoted” ✓
            folded: >
              été
              hiver
            list: [a, "ü", 'ß', 1, 2.5, ~]
            empty: ""
            """
        let bytes = Array(yaml.utf8)
        var scalars = 0
        try bytes.withUnsafeBufferPointer { (buffer) throws(Diagnostic) in
            try LibYAMLEventReader.forEachEvent(in: buffer, file: "t.yaml") { (event) throws(Diagnostic) in
                guard case .scalar(let text, _) = event.kind else { return }
                scalars += 1
                var copy = text
                let checked = copy.withUTF8 { LibYAMLEventReader.scalarTextChecked($0) }
                let unchecked = copy.withUTF8 { LibYAMLEventReader.scalarText($0) }
                #expect(unchecked == checked)
                #expect(Array(unchecked.utf8) == Array(checked.utf8))
                #expect(unchecked.count == checked.count && unchecked.unicodeScalars.count == checked.unicodeScalars.count)
            }
        }
        #expect(scalars == 19)
        // The text the reader produced is the text written.
        let root = try SourceParser.parse(bytes, format: .yaml, file: "t.yaml")
        #expect(root["quoted \u{e9}"]?.string == "\u{e9} \u{1F600} A \t tab \u{85} \u{A0} \u{2028} \u{2029}")
        #expect(root["block"]?.string == "### Título ñ\nlínea 2 — “quoted” ✓\n")
    }

    @Test(arguments: [
        "grid.items.p1.title", String(repeating: "ascii text ", count: 10), "short", "été, longer than fifteen bytes",
        "e\u{301} combining, longer than fifteen bytes",
    ])
    func uncheckedCopiesAreMarkedASCIIAsCheckedCopiesAre(text: String) {
        // Hashing and comparing go through Unicode normalization for strings not marked ASCII.
        let bytes = Array(text.utf8)
        let checked = String(decoding: bytes, as: UTF8.self)
        #expect(WellFormedUTF8.string(bytes).utf8Span.isKnownASCII == checked.utf8Span.isKnownASCII)
    }

    /// `utf8Precedes` (one memcmp) orders as the byte-by-byte comparison does: prefixes, empty
    /// strings, bytes above 0x7F, small (inline) and large strings, and strings Foundation made.
    @Test func utf8OrderMatchesTheByteByByteComparison() {
        let names = [
            "", "a", "ab", "a\u{0}", "b", "B", "page-00099.json", "page-00100.json", "page-0010", "é", "e\u{301}",
            "z", "ÿ", "漢字", "😀", String(repeating: "x", count: 15), String(repeating: "x", count: 16),
            String(repeating: "x", count: 40) + "a", String(repeating: "x", count: 40) + "b",
            NSString(string: "group-001/page-00135").appendingPathComponent("x"), String(format: "%@", "café"),
        ]
        for first in names {
            for second in names {
                #expect(first.utf8Precedes(second) == first.utf8.lexicographicallyPrecedes(second.utf8), "\(first) < \(second)")
            }
        }
        #expect(names.sorted { $0.utf8Precedes($1) } == names.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) })
    }

    /// `UTF8Scan.hasPrefix` (one memcmp) answers as the byte-by-byte comparison does, the same
    /// strings each way round: `e` is no byte prefix of `é`, and `e` is one of `e\u{301}`.
    @Test func utf8PrefixMatchesTheByteByByteComparison() {
        let names = [
            "", "e", "é", "e\u{301}", "en", "en/", "en/page-001.json", "enx/page-001.json", "preview/en/p.html",
            String(repeating: "x", count: 15), String(repeating: "x", count: 16), String(repeating: "x", count: 40) + "a",
            NSString(string: "en").appendingPathComponent("page-002.json"),
        ]
        for text in names {
            for prefix in names {
                #expect(UTF8Scan.hasPrefix(text, prefix) == text.utf8.starts(with: prefix.utf8), "\(text) starts with \(prefix)")
            }
        }
    }

    // MARK: Preview URLs

    static let previewURLs = [
        "", " ", "https://example.com/x", " https://x", "https://x ", "a\tb", "x\u{7F}y", "x\u{1}", "été", "é ", " é", "\u{A0}x",
        "e\u{301}", "\r\n", "https://images.example.com/hero/35.jpg", "/assets/a.png", "//evil.example/x", "mailto:a@b",
        "https://ex.example?q#f", "https://", "http://h/p", "https://hôte.example/x", "ftp://a:b@c/d", "x://y#z", "://x", "a\u{85}b",
    ]

    @Test(arguments: previewURLs)
    func previewURLCheckOnBytesMatchesTheScalarWalk(url: String) {
        #expect(PreviewURL.isClean(url) == PreviewURL.isCleanByScalars(url))
    }

    // MARK: Blank text

    @Test(arguments: [
        "", " ", "\t\n\r\u{0B}\u{0C} ", "x", " x", "\n\n### title", "\u{1C}", " \u{1F}", "\u{85}", "\u{A0}", " \u{2003}\u{3000}",
        " \u{2003}x", "é", "\t é", "\u{200B}", "   \u{2028}\u{2029}\u{202F}\u{205F}\u{1680}",
    ])
    func blankCheckOnAsciiBytesMatchesTheScalarWalk(text: String) {
        #expect(text.isBlank == text.unicodeScalars.allSatisfy(\.properties.isWhitespace))
    }

    // MARK: Source text check

    /// YAML read before the text check reads and fails as the check-first order does: bad bytes
    /// before, inside and after YAML errors, in the first 16 KiB libyaml decodes at once and
    /// past them, NUL and other control characters, empty and blank files, byte-order marks.
    @Test func yamlReadBeforeTheTextCheckAnswersAsTheCheckFirst() {
        let bad: [[UInt8]] = [[0], [1], [0xC3], [0xC0, 0x80], [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80], [0xFF], [0x80]]
        let long = Array(String(repeating: "key: value été\n", count: 1_500).utf8)
        var inputs: [[UInt8]] = [
            [], Array("  \n\t".utf8), Array("# a comment\n".utf8), [0xEF, 0xBB, 0xBF], [0xEF, 0xBB, 0xBF] + Array("a: 1\n".utf8),
            Array("a: [1, 2\n".utf8), Array("a: 1\na: 2\n".utf8), Array("a: &x 1\n".utf8), Array("a: é\nb: |\n  ü\n".utf8), long,
        ]
        for bytes in bad {
            inputs += [
                Array("a: b".utf8) + bytes + Array("c\n".utf8), Array("# note ".utf8) + bytes + Array("\na: 1\n".utf8),
                Array("a: [1\n".utf8) + bytes, bytes + Array("a: [1\n".utf8), Array("a: 1\na: 2\n".utf8) + bytes,
                Array("a: [1\n".utf8) + long + bytes, long + bytes, long + Array("a: [1\n".utf8) + bytes,
            ]
        }
        for input in inputs {
            let fast = Result { () throws(Diagnostic) in try SourceParser.parse(input, format: .yaml, file: "t.yaml") }
            let slow = Result { () throws(Diagnostic) in try SourceParser.parseCheckingFirst(input, format: .yaml, file: "t.yaml") }
            switch (fast, slow) {
            case (.success(let fast), .success(let slow)): #expect(fast == slow)
            case (.failure(let fast), .failure(let slow)): #expect(fast.description == slow.description)
            default: Issue.record("\(Array(input.prefix(40))): \(fast) against \(slow)")
            }
        }
    }

    @Test func textCheckSkippingAsciiRunsAgreesWithTheStandardValidation() throws {
        // Texts around every offset of the word check: accents, CJK, emoji, a NUL, broken and
        // overlong sequences and surrogates, each after 0 to 17 ASCII bytes.
        let pieces: [[UInt8]] = [
            Array("é".utf8), Array("漢".utf8), Array("😀".utf8), [0], [0xC3], [0xC0, 0x80], [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80],
            [0xE2, 0x82], [0x80], Array("ñá".utf8),
        ]
        for piece in pieces {
            for before in 0..<18 {
                for after in [0, 1, 9] {
                    let bytes =
                        Array("x: ".utf8) + Array(repeating: UInt8(ascii: "a"), count: before) + piece
                        + Array(repeating: UInt8(ascii: "b"), count: after)
                    let valid = String(validating: bytes, as: UTF8.self) != nil && !bytes.contains(0)
                    var thrown: Diagnostic?
                    do throws(Diagnostic) {
                        try bytes.withUnsafeBufferPointer { (buffer) throws(Diagnostic) in
                            try SourceTextCheck.validate(buffer, from: 0, file: "t")
                        }
                    } catch {
                        thrown = error
                    }
                    #expect((thrown == nil) == valid, "\(bytes)")
                    // The problem is reported at the piece, after the ASCII before it.
                    if let thrown { #expect(thrown.description.contains(":1:\(4 + before):"), "\(thrown.description)") }
                }
            }
        }
    }
}
