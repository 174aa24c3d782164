@testable import QuireCore
import QuireModel

// libFuzzer target: any text through the markdown stage (cmark, unsafe-content removal, the
// block tree) and the JSON writer that publishes it. The output must never hold raw HTML
// elements or an unsafe link: that is checked here, so a leak is a crash the fuzzer keeps.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzMarkdown(_ data: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: count), as: UTF8.self)
    let rendered = MarkdownRenderer.render(text)
    let bytes = JSONWriter(pretty: false).bytes(["html": .string(rendered.html), "blocks": rendered.blocks])
    guard !bytes.isEmpty else { fatalError("empty JSON") }
    MarkdownSafetyCheck.verify(rendered)
    return 0
}

/// What safe output means, checked on every input.
enum MarkdownSafetyCheck {
    static func verify(_ rendered: RenderedMarkdown) {
        let html = rendered.html.lowercased()
        for needle in ["<script", "<iframe", "<object", "<embed", "<svg", "<style", "href=\"javascript:", "src=\"javascript:", "href=\"vbscript:"] where html.contains(needle) {
            fatalError("unsafe HTML reached the output: \(needle)")
        }
        walk(rendered.blocks)
    }

    private static func walk(_ value: JSONValue) {
        switch value {
        case .object(let object):
            for key in ["url", "destination", "href", "src"] {
                if let url = object[key]?.stringValue, !URLPolicy.isSafeMarkdownLink(url) {
                    fatalError("unsafe link in the block tree: \(url)")
                }
            }
            for (_, child) in object { walk(child) }
        case .array(let items):
            items.forEach(walk)
        default:
            break
        }
    }
}
