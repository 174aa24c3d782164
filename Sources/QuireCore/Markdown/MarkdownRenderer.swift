public import QuireModel

/// A markdown field pre-rendered for apps: HTML for web views and a block tree for native
/// renderers, both free of raw HTML and of links outside `URLPolicy.isSafeMarkdownLink`.
public struct RenderedMarkdown: Sendable, Hashable {
    /// cmark's HTML in safe mode.
    public var html: String
    /// The block tree native renderers walk (an array of block objects), as compact JSON: pages
    /// embed it as it is.
    public var encodedBlocks: EncodedJSON
    /// What was dropped because it was unsafe (raw HTML, `javascript:` links, ...), for warnings.
    public var removed: [String]

    init(html: String, encodedBlocks: EncodedJSON, removed: [String]) {
        self.html = html
        self.encodedBlocks = encodedBlocks
        self.removed = removed
    }

    public init(html: String, blocks: JSONValue, removed: [String]) {
        self.init(html: html, encodedBlocks: EncodedJSON(JSONWriter(pretty: false).bytes(blocks)), removed: removed)
    }

    /// The block tree as values, for readers that walk it (the build only copies the bytes).
    public var blocks: JSONValue {
        // Each container of the tree is at most three levels of JSON (a list, its items, an item).
        guard let tree = StoredJSONReader.parse(encodedBlocks.bytes, maximumDepth: 4 * MarkdownBlockWriter.maximumDepth) else {
            preconditionFailure("a block tree that is not JSON")
        }
        return tree
    }
}

/// Markdown -> `RenderedMarkdown`, with cmark (CommonMark, no extensions).
///
/// Unsafe links are taken out of the parsed tree before either output is made, so the HTML and
/// the block tree always agree: a refused link leaves its text, a refused image its alt text.
public enum MarkdownRenderer {
    public static func render(_ markdown: String) -> RenderedMarkdown {
        let document = CommonMarkDocument(parsing: markdown)
        return render(cleaned: document, removals: cleanUp(document).removals)
    }

    /// Takes the unsafe content out of `document`: the first step of rendering it.
    static func cleanUp(_ document: CommonMarkDocument) -> CommonMarkCleanup {
        document.removeUnsafeContent(refusingURL: { !URLPolicy.isSafeMarkdownLink($0) })
    }

    /// Renders a document `cleanUp` has already cleaned, which took out `removals`.
    static func render(cleaned document: CommonMarkDocument, removals: [CommonMarkRemoval]) -> RenderedMarkdown {
        let tree = MarkdownBlockWriter.blocks(of: document)
        let removed = messages(removals, flattenedDeepContent: tree.flattenedDeepContent)
        return RenderedMarkdown(html: document.html(), encodedBlocks: EncodedJSON(tree.json), removed: removed)
    }

    /// `render(markdown).removed`, without rendering: translation checks only need to know
    /// what would be dropped. The block tree is built only when nesting could be too deep.
    /// Takes the unsafe content out of `document`.
    static func removed(from document: CommonMarkDocument) -> [String] {
        removed(cleaned: document, cleanup: cleanUp(document))
    }

    /// `removed(from:)` for a document `cleanUp` has already cleaned (`cleanup` says how). The
    /// cleanup's walk tells the depth: the document is walked again only when it went that deep.
    static func removed(cleaned document: CommonMarkDocument, cleanup: CommonMarkCleanup) -> [String] {
        let limit = MarkdownBlockWriter.maximumDepth
        let flattened =
            cleanup.deepestContainerOpening >= limit && document.hasContainer(openedAtDepth: limit)
            && MarkdownBlockWriter.blocks(of: document).flattenedDeepContent
        return messages(cleanup.removals, flattenedDeepContent: flattened)
    }

    private static func messages(_ removals: [CommonMarkRemoval], flattenedDeepContent: Bool) -> [String] {
        var removed = MarkdownRemovalMessage.summarized(removals.map(MarkdownRemovalMessage.describe))
        if flattenedDeepContent {
            removed.append(MarkdownRemovalMessage.deepNesting(limit: MarkdownBlockWriter.maximumDepth))
        }
        return removed
    }

    /// The destinations of every link and image, in document order, as cmark reads them (entities
    /// decoded), safe or not: localization checks that a translation keeps its source's links.
    public static func links(in markdown: String) -> [String] {
        // Links and images need `[` (or `<` for autolinks): most text has neither.
        guard mayHoldLinks(markdown) else { return [] }
        return CommonMarkDocument(parsing: markdown).linkDestinations()
    }

    /// False when `markdown` cannot hold a link: links and images need `[`, autolinks `<`.
    static func mayHoldLinks(_ markdown: String) -> Bool {
        UTF8Scan.contains(markdown, anyOf: UInt8(ascii: "["), UInt8(ascii: "<"))
    }
}
