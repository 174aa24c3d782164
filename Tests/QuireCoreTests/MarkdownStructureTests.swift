import Foundation
import QuireCore
import QuireModel
import Testing

@Suite struct MarkdownStructureTests {
    @Test func emptyInputGivesNoBlocks() {
        let rendered = MarkdownRenderer.render("")
        #expect(rendered == RenderedMarkdown(html: "", blocks: [], removed: []))
        #expect(MarkdownRenderer.render("  \n\n \n").blocks == [])
    }

    @Test func crlfAndCarriageReturnInputRenderLikeLineFeeds() {
        let unix = "# Title\n\nline one\nline two  \nline three\n\n```swift\nlet a = 1\nlet b = 2\n```\n\n- a\n- b\n"
        let windows = unix.replacingOccurrences(of: "\n", with: "\r\n")
        let classicMac = unix.replacingOccurrences(of: "\n", with: "\r")
        let expected = MarkdownRenderer.render(unix)
        #expect(MarkdownRenderer.render(windows) == expected)
        #expect(MarkdownRenderer.render(classicMac) == expected)
        #expect(!JSONWriter(pretty: false).string(expected.blocks).contains("\\r"))
        #expect(!expected.html.contains("\r"))
    }

    @Test func invalidUTF8AndNULBytesAreReplaced() {
        let bytes: [UInt8] = Array("a ".utf8) + [0xFF, 0x00] + Array(" b".utf8)
        let markdown = String(decoding: bytes, as: UTF8.self)
        let rendered = MarkdownRenderer.render(markdown)
        #expect(rendered.blocks == [["type": "paragraph", "inlines": [["type": "text", "text": "a \u{FFFD}\u{FFFD} b"]]]])
    }

    static let deepInputs: [(name: String, markdown: String)] = [
        ("quotes", String(repeating: ">", count: 10_000) + " deepest"),
        ("quotes on lines", String(repeating: "> ", count: 10_000) + "deepest\n" + String(repeating: ">", count: 10_000) + " more"),
        ("lists", String(repeating: "- ", count: 10_000) + "deepest"),
        ("indented lists", (0..<3_000).map { String(repeating: "  ", count: $0) + "- level \($0)\n" }.joined() + "deepest"),
        ("ordered lists", String(repeating: "1. ", count: 10_000) + "deepest"),
        ("emphasis", String(repeating: "*a ", count: 10_000) + "deepest" + String(repeating: " a*", count: 10_000)),
        ("strong", String(repeating: "**", count: 10_000) + "deepest" + String(repeating: "**", count: 10_000)),
        ("links", String(repeating: "[", count: 10_000) + "deepest" + String(repeating: "](/x)", count: 10_000)),
        ("images", String(repeating: "![", count: 10_000) + "deepest" + String(repeating: "](/x.png)", count: 10_000)),
        ("unsafe images", String(repeating: "![", count: 10_000) + "deepest" + String(repeating: "](javascript:x)", count: 10_000)),
        (
            "unsafe links and images",
            String(repeating: "[![", count: 5_000) + "deepest" + String(repeating: "](data:x)](vbscript:y)", count: 5_000)
        ),
        ("quotes and lists", String(repeating: "> - ", count: 5_000) + "deepest"),
    ]

    /// Rendered on a thread with a small stack, like a Dispatch worker: nothing may recurse per level.
    @Test(arguments: deepInputs.map(\.name))
    func deepNestingNeitherCrashesNorMakesADeepTree(_ name: String) throws {
        let markdown = try #require(Self.deepInputs.first { $0.name == name }).markdown
        let rendered = Self.onSmallStack { MarkdownRenderer.render(markdown) }
        let depth = Self.depth(of: rendered.blocks)
        #expect(depth <= 3 * 64 + 4, "block tree of \(name) is \(depth) levels deep")
        // The written tree fits on a small stack too, and the innermost text survives.
        let written = Self.onSmallStack { JSONWriter(pretty: false).string(rendered.blocks) }
        #expect(written.contains("deepest"))
        #expect(rendered.html.contains("deepest"))
    }

    @Test func contentBeyondTheDepthLimitIsKeptAsTextAndReported() {
        let markdown = String(repeating: ">", count: 100) + " deepest *words*"
        let rendered = MarkdownRenderer.render(markdown)
        #expect(rendered.removed == ["content nested more than 64 levels deep (kept as plain text)"])
        var innermost = rendered.blocks
        var quotes = 0
        while let block = innermost.arrayValue?.first, block["type"] == "quote", let inner = block["blocks"] {
            quotes += 1
            innermost = inner
        }
        #expect(quotes == 63)  // the document is the 64th level
        #expect(innermost == [["type": "paragraph", "inlines": [["type": "text", "text": "deepest words"]]]])
    }

    @Test func nestingUpToTheLimitIsKeptAsStructure() {
        let rendered = MarkdownRenderer.render(String(repeating: ">", count: 40) + " fine")
        #expect(rendered.removed.isEmpty)
    }

    static func onSmallStack<Result: Sendable>(_ work: @escaping @Sendable () -> Result) -> Result {
        let box = ResultBox<Result>()
        let done = DispatchSemaphore(value: 0)
        let thread = Thread {
            box.value = work()
            done.signal()
        }
        thread.stackSize = 512 * 1024
        thread.start()
        done.wait()
        return box.value!
    }

    final class ResultBox<Value>: @unchecked Sendable {
        var value: Value?  // written by the worker before the semaphore is signalled
    }

    /// How many arrays and objects deep a value goes, without recursion.
    static func depth(of value: JSONValue) -> Int {
        var deepest = 0
        var pending: [(JSONValue, Int)] = [(value, 1)]
        while let (next, level) = pending.popLast() {
            deepest = max(deepest, level)
            switch next {
            case .array(let items): pending.append(contentsOf: items.map { ($0, level + 1) })
            case .object(let object): pending.append(contentsOf: object.members.map { ($0.value, level + 1) })
            default: break
            }
        }
        return deepest
    }
}
