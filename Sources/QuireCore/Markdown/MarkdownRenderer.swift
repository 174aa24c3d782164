public import QuireModel

/// A markdown field pre-rendered for apps: HTML for web views and a block tree for native
/// renderers, both free of raw HTML and of links outside `URLPolicy.isSafeMarkdownLink`.
public struct RenderedMarkdown: Sendable, Hashable {
    /// cmark's HTML in safe mode.
    public var html: String
    /// The block tree native renderers walk (an array of block objects).
    public var blocks: JSONValue
    /// What was dropped because it was unsafe (raw HTML, `javascript:` links, ...), for warnings.
    public var removed: [String]

    public init(html: String, blocks: JSONValue, removed: [String]) {
        self.html = html
        self.blocks = blocks
        self.removed = removed
    }
}

/// Markdown -> `RenderedMarkdown`, with cmark (CommonMark, no extensions).
///
/// Unsafe links are taken out of the parsed tree before either output is made, so the HTML and
/// the block tree always agree: a refused link leaves its text, a refused image its alt text.
public enum MarkdownRenderer {
    public static func render(_ markdown: String) -> RenderedMarkdown {
        let document = CommonMarkDocument(parsing: markdown)
        let removals = document.removeUnsafeContent(refusingURL: { !URLPolicy.isSafeMarkdownLink($0) })
        let tree = MarkdownBlockTreeBuilder.blocks(of: document)
        var removed = MarkdownRemovalMessage.summarized(removals.map(MarkdownRemovalMessage.describe))
        if tree.flattenedDeepContent {
            removed.append(MarkdownRemovalMessage.deepNesting(limit: MarkdownBlockTreeBuilder.maximumDepth))
        }
        return RenderedMarkdown(html: document.html(), blocks: .array(tree.blocks), removed: removed)
    }

    /// The destinations of every link and image, in document order, as cmark reads them (entities
    /// decoded), safe or not: localization checks that a translation keeps its source's links.
    public static func links(in markdown: String) -> [String] {
        // Links and images need `[` (or `<` for autolinks): most text has neither.
        guard markdown.utf8.contains(where: { $0 == UInt8(ascii: "[") || $0 == UInt8(ascii: "<") }) else { return [] }
        var links: [String] = []
        CommonMarkDocument(parsing: markdown).walk { event in
            switch event {
            case .enter(.link(let url, _)), .enter(.image(let url, _)): links.append(url)
            default: break
            }
        }
        return links
    }
}
