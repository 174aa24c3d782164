// STUB: replaced by the markdown work. Signatures are the contract.
public import QuireModel

public struct RenderedMarkdown: Sendable, Hashable {
    /// cmark's HTML in safe mode.
    public var html: String
    /// The block tree native renderers walk (an array of block objects).
    public var blocks: JSONValue
    /// What was dropped because it was unsafe (raw HTML, `javascript:` links, ...), for warnings.
    public var removed: [String]
}

public enum MarkdownRenderer {
    public static func render(_ markdown: String) -> RenderedMarkdown {
        fatalError("stub")
    }
}

extension MarkdownRenderer {
    public static func links(in markdown: String) -> [String] { fatalError("stub") }
}
