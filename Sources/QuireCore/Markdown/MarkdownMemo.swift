#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The markdown texts of one page, each parsed by cmark once however often the page's build
/// asks about it: the translation checks (links, what rendering removes), then every locale and
/// audience variant that renders it. A checked translation is rendered next, and every audience
/// variant renders the same fields, so most texts are asked about more than once; parsing is
/// the biggest part of rendering markdown.
///
/// Answers are exactly those of `MarkdownRenderer` (`FastPathTests` compares them). Used by one
/// thread for one page: it holds a text's cmark tree until the text is rendered.
final class MarkdownMemo {
    private final class Entry {
        /// What cleaning it took out, and every link and image destination it had.
        let cleanup: CommonMarkCleanup
        /// The cleaned tree, until the text is rendered.
        var document: CommonMarkDocument?
        var rendered: RenderedMarkdown?

        init(_ markdown: String) {
            let document = CommonMarkDocument(parsing: markdown)
            cleanup = MarkdownRenderer.cleanUp(document)
            self.document = document
        }
    }

    private var entries: [Key: Entry] = [:]

    init() {}

    private func entry(_ markdown: String) -> Entry {
        let key = Key(text: markdown)
        if let entry = entries[key] { return entry }
        let entry = Entry(markdown)
        entries[key] = entry
        return entry
    }

    /// A text by its UTF-8 bytes. `String` hashes and compares by canonical equivalence, which
    /// normalizes any non-ASCII text first: for translated markdown that cost more than the
    /// parse it saves. Bytes are what cmark reads, so texts equal as bytes render the same.
    private struct Key: Hashable {
        var text: String

        /// The length and the first and last bytes only: a page has a few texts, and hashing
        /// whole bodies (kilobytes, several lookups each) cost more than the lookups save.
        /// Texts that share them still differ by `==`.
        func hash(into hasher: inout Hasher) {
            Self.withBytes(text) { bytes in
                hasher.combine(bytes.count)
                let edge = min(bytes.count, 32)
                hasher.combine(bytes: UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: bytes[..<edge])))
                hasher.combine(bytes: UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: bytes[(bytes.count - edge)...])))
            }
        }

        static func == (lhs: Key, rhs: Key) -> Bool {
            withBytes(lhs.text) { left in
                withBytes(rhs.text) { right in
                    guard left.count == right.count else { return false }
                    guard let leftStart = left.baseAddress, let rightStart = right.baseAddress else { return true }
                    return leftStart == rightStart || memcmp(leftStart, rightStart, left.count) == 0
                }
            }
        }

        private static func withBytes<Result>(_ text: String, _ body: (UnsafeBufferPointer<UInt8>) -> Result) -> Result {
            if let result = text.utf8.withContiguousStorageIfAvailable(body) { return result }
            var copy = text
            return copy.withUTF8(body)
        }
    }

    /// `MarkdownRenderer.links(in:)`.
    func links(in markdown: String) -> [String] {
        // As `links(in:)` does: text that cannot hold a link is not parsed for it.
        guard MarkdownRenderer.mayHoldLinks(markdown) else { return [] }
        return entry(markdown).cleanup.links
    }

    /// `MarkdownRenderer.render(markdown).removed`.
    func removed(_ markdown: String) -> [String] {
        let entry = entry(markdown)
        if let rendered = entry.rendered { return rendered.removed }
        guard let document = entry.document else { return render(markdown).removed }
        return MarkdownRenderer.removed(cleaned: document, cleanup: entry.cleanup)
    }

    /// `MarkdownRenderer.render(markdown)`.
    func render(_ markdown: String) -> RenderedMarkdown {
        let entry = entry(markdown)
        if let rendered = entry.rendered { return rendered }
        let rendered =
            entry.document.map { MarkdownRenderer.render(cleaned: $0, removals: entry.cleanup.removals) }
            ?? MarkdownRenderer.render(markdown)
        entry.rendered = rendered
        // The tree is not needed any more: free it now, not when the page is done.
        entry.document = nil
        return rendered
    }
}
