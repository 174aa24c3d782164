internal import CCmark
internal import Foundation

/// A markdown document parsed by libcmark. The only type that sees cmark: it parses, hands the
/// tree out as a flat stream of `CommonMarkEvent`s (cmark's own iterator, so no recursion however
/// deep the nesting), removes links the caller refuses, and renders HTML in safe mode.
/// The C tree is freed in `deinit`; the document is used by one thread and never escapes a call.
final class CommonMarkDocument {
    private let root: OpaquePointer

    /// `\r\n` and lone `\r` become `\n`, on bytes (Foundation's string replacing is slow on Linux).
    static func normalizingLineEndings(_ bytes: [UInt8]) -> [UInt8] {
        guard bytes.contains(13) else { return bytes }
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            if bytes[index] == 13 {
                out.append(10)
                if index + 1 < bytes.count && bytes[index + 1] == 10 { index += 1 }
            } else {
                out.append(bytes[index])
            }
            index += 1
        }
        return out
    }

    /// Parses `markdown` as CommonMark without smart punctuation. NUL bytes become U+FFFD.
    /// `validatingUTF8` runs cmark's own UTF-8 check too, which changes nothing in a Swift
    /// string (`FastPathTests` holds it to that); it is off for builds.
    init(parsing markdown: String, validatingUTF8: Bool = false) {
        let options = validatingUTF8 ? CMARK_OPT_DEFAULT | CMARK_OPT_VALIDATE_UTF8 : CMARK_OPT_DEFAULT
        // One line-ending form, so code block text never carries `\r`. Text without `\r`
        // (nearly all) is parsed from the string's own storage, without a copy.
        var markdown = markdown
        let parsed: OpaquePointer? = markdown.withUTF8 { bytes in
            // `memchr`: the generic `contains` looks at one byte at a time.
            guard let start = bytes.baseAddress, memchr(start, 13, bytes.count) != nil else { return Self.parse(bytes, options) }
            return Self.normalizingLineEndings(Array(bytes)).withUnsafeBufferPointer { Self.parse($0, options) }
        }
        // cmark returns nil only when it cannot allocate, and then it has already aborted.
        guard let parsed else { fatalError("cmark could not allocate a document") }
        root = parsed
    }

    /// Without `CMARK_OPT_VALIDATE_UTF8`, normally: a Swift string is valid UTF-8 already
    /// (invalid bytes were replaced when it was made), cmark's check accepts exactly what Swift's
    /// does (RFC 3629), and cmark replaces NUL bytes before that check either way. The check
    /// would copy every line byte by byte and change nothing.
    private static func parse(_ bytes: UnsafeBufferPointer<UInt8>, _ options: Int32) -> OpaquePointer? {
        return bytes.withMemoryRebound(to: CChar.self) { characters in
            // An empty buffer may have no storage: give cmark a real, empty string instead.
            guard let start = characters.baseAddress, !characters.isEmpty else {
                return cmark_parse_document("", 0, options)
            }
            return cmark_parse_document(start, characters.count, options)
        }
    }

    deinit { cmark_node_free(root) }

    /// cmark's own markdown-to-HTML, nothing else (no tree walked, no filter): what the library
    /// alone costs, for `LibraryFloor`. The length of the HTML.
    static func htmlLength(of markdown: String) -> Int {
        markdown.withCString { characters in
            guard let html = cmark_markdown_to_html(characters, strlen(characters), CMARK_OPT_DEFAULT) else { return 0 }
            defer { free(html) }
            return strlen(html)
        }
    }

    /// Visits every node in document order: `.enter`/`.exit` around containers, `.leaf` for
    /// nodes without children. A run of adjacent text nodes and soft breaks arrives as one
    /// `.text` (a soft break as a space, as readers take it): cmark splits a paragraph's text
    /// at every `*`, `[` or entity, and one text per run is much cheaper than one per node.
    /// Texts are lent for the visit (`CommonMarkText`), not copied into strings. Inlined, so
    /// the block writer's visit is a direct call, not a closure call per node.
    @inline(__always)
    func walk(_ visit: (CommonMarkEvent) -> Void) {
        guard let iterator = cmark_iter_new(root) else { return }
        defer { cmark_iter_free(iterator) }
        var run: [UInt8] = []
        while true {
            let event = cmark_iter_next(iterator)
            if event == CMARK_EVENT_DONE { return }
            // Exits first: every `.enter` must get its `.exit`, or the builder's stack drifts.
            if event == CMARK_EVENT_EXIT {
                visit(.exit)
                continue
            }
            guard let node = cmark_iter_get_node(iterator) else { continue }
            if cmark_node_get_type(node) == CMARK_NODE_TEXT, let next = cmark_node_next(node), Self.isRunPart(next) {
                let last = Self.collectTextRun(from: node, into: &run)
                run.withUnsafeBufferPointer { visit(.leaf(.text(CommonMarkText(bytes: $0)))) }
                // Carry on after the run's last node, as if each had been visited.
                cmark_iter_reset(iterator, last, CMARK_EVENT_ENTER)
                continue
            }
            let element = Self.element(of: node)
            visit(Self.isLeaf(node) ? .leaf(element) : .enter(element))
        }
    }

    private static func isRunPart(_ node: OpaquePointer) -> Bool {
        let type = cmark_node_get_type(node)
        return type == CMARK_NODE_TEXT || type == CMARK_NODE_SOFTBREAK
    }

    /// Fills `run` with the text of `first` and the text nodes and soft breaks right after it;
    /// returns the run's last node.
    private static func collectTextRun(from first: OpaquePointer, into run: inout [UInt8]) -> OpaquePointer {
        run.removeAll(keepingCapacity: true)
        var last = first
        var current: OpaquePointer? = first
        while let node = current, isRunPart(node) {
            if cmark_node_get_type(node) == CMARK_NODE_TEXT {
                if let literal = cmark_node_get_literal(node) {
                    run.append(contentsOf: UnsafeRawBufferPointer(start: literal, count: strlen(literal)))
                }
            } else {
                run.append(UInt8(ascii: " "))
            }
            last = node
            current = cmark_node_next(node)
        }
        return last
    }

    /// The destinations of every link and image, in document order. Reads only those nodes:
    /// `walk` would make a Swift string of every text literal on the way.
    func linkDestinations() -> [String] {
        var links: [String] = []
        guard let iterator = cmark_iter_new(root) else { return links }
        defer { cmark_iter_free(iterator) }
        while case let event = cmark_iter_next(iterator), event != CMARK_EVENT_DONE {
            guard event == CMARK_EVENT_ENTER, let node = cmark_iter_get_node(iterator) else { continue }
            let type = cmark_node_get_type(node)
            if type == CMARK_NODE_LINK || type == CMARK_NODE_IMAGE { links.append(Self.string(cmark_node_get_url(node))) }
        }
        return links
    }

    /// Every emphasis (`*…*`) and strong emphasis (`**…**`), in document order, where cmark
    /// says it is: 1-based lines and byte columns of its first and last byte. cmark's inline
    /// positions drift on continuation lines inside containers: callers check them.
    func emphasisPositions() -> [MarkdownEmphasisPosition] {
        var found: [MarkdownEmphasisPosition] = []
        guard let iterator = cmark_iter_new(root) else { return found }
        defer { cmark_iter_free(iterator) }
        while case let event = cmark_iter_next(iterator), event != CMARK_EVENT_DONE {
            guard event == CMARK_EVENT_ENTER, let node = cmark_iter_get_node(iterator) else { continue }
            let type = cmark_node_get_type(node)
            guard type == CMARK_NODE_EMPH || type == CMARK_NODE_STRONG else { continue }
            let start = (Int(cmark_node_get_start_line(node)), Int(cmark_node_get_start_column(node)))
            let end = (Int(cmark_node_get_end_line(node)), Int(cmark_node_get_end_column(node)))
            found.append(MarkdownEmphasisPosition(isStrong: type == CMARK_NODE_STRONG, start: start, end: end))
        }
        return found
    }

    /// Whether some container (a node with children: quote, list, item, emphasis, ...) opens
    /// while `depth` containers are already open, the document counting as one. Reads node
    /// types only, so checking is cheap; taking content out never makes the tree deeper.
    func hasContainer(openedAtDepth depth: Int) -> Bool {
        guard let iterator = cmark_iter_new(root) else { return false }
        defer { cmark_iter_free(iterator) }
        var open = 0
        while case let event = cmark_iter_next(iterator), event != CMARK_EVENT_DONE {
            if event == CMARK_EVENT_EXIT {
                open -= 1
                continue
            }
            guard let node = cmark_iter_get_node(iterator), !Self.isLeaf(node) else { continue }
            if open >= depth { return true }
            open += 1
        }
        return false
    }

    /// Takes refused destinations out of the tree before anything reads or renders it: a link
    /// whose URL `isRefused` is replaced by its text, an image by its alt text (cmark's own safe
    /// mode would keep `data:image/...` and only guards its HTML). Returns what was removed, in
    /// document order, raw HTML included: that stays in the tree, because the HTML renderer
    /// already replaces it with a comment and the block tree skips it. The same pass reads every
    /// link and image destination, as `linkDestinations()` would have before the removal, and
    /// the deepest a container opens (`hasContainer(openedAtDepth:)`'s count).
    func removeUnsafeContent(refusingURL isRefused: (String) -> Bool) -> CommonMarkCleanup {
        var removals: [CommonMarkRemoval] = []
        var links: [String] = []
        var refusedNodes: [OpaquePointer] = []
        var open = 0
        var deepestOpening = -1
        if let iterator = cmark_iter_new(root) {
            defer { cmark_iter_free(iterator) }
            while case let event = cmark_iter_next(iterator), event != CMARK_EVENT_DONE {
                if event == CMARK_EVENT_EXIT {
                    open -= 1
                    continue
                }
                guard event == CMARK_EVENT_ENTER, let node = cmark_iter_get_node(iterator) else { continue }
                if !Self.isLeaf(node) {
                    deepestOpening = max(deepestOpening, open)
                    open += 1
                }
                switch cmark_node_get_type(node) {
                case CMARK_NODE_HTML_BLOCK, CMARK_NODE_HTML_INLINE:
                    removals.append(.rawHTML(Self.string(cmark_node_get_literal(node))))
                case CMARK_NODE_LINK:
                    let url = Self.string(cmark_node_get_url(node))
                    links.append(url)
                    if isRefused(url) {
                        removals.append(.link(url: url))
                        refusedNodes.append(node)
                    }
                case CMARK_NODE_IMAGE:
                    let url = Self.string(cmark_node_get_url(node))
                    links.append(url)
                    if isRefused(url) {
                        removals.append(.image(url: url))
                        refusedNodes.append(node)
                    }
                default:
                    break
                }
            }
        }
        // Reverse document order handles a node's descendants (a link inside an image's
        // description) before the node itself, so no freed node is touched again.
        for node in refusedNodes.reversed() {
            if cmark_node_get_type(node) == CMARK_NODE_IMAGE {
                replaceImageWithAltText(node)
            } else {
                unwrapLink(node)
            }
        }
        return CommonMarkCleanup(removals: removals, links: links, deepestContainerOpening: deepestOpening)
    }

    /// cmark's HTML in safe mode: raw HTML becomes a comment, unsafe URLs become empty.
    func html() -> String {
        guard let rendered = cmark_render_html(root, CMARK_OPT_DEFAULT) else { return "" }
        defer { free(rendered) }
        return WellFormedUTF8.string(cString: rendered)
    }

    // MARK: - Tree surgery

    private func unwrapLink(_ link: OpaquePointer) {
        while let child = cmark_node_first_child(link) {
            // Moves the child: cmark unlinks it from the link first.
            if cmark_node_insert_before(link, child) == 0 { break }
        }
        cmark_node_free(link)
    }

    private func replaceImageWithAltText(_ image: OpaquePointer) {
        let alt = Self.plainText(of: image)
        if !alt.isEmpty, let text = cmark_node_new(CMARK_NODE_TEXT) {
            if cmark_node_set_literal(text, alt) == 0 || cmark_node_insert_before(image, text) == 0 {
                cmark_node_free(text)
            }
        }
        cmark_node_free(image)
    }

    /// The text of a node's descendants, as an image's alt text is: literals only, breaks as spaces.
    private static func plainText(of node: OpaquePointer) -> String {
        var text = ""
        guard let iterator = cmark_iter_new(node) else { return text }
        defer { cmark_iter_free(iterator) }
        while case let event = cmark_iter_next(iterator), event != CMARK_EVENT_DONE {
            guard event == CMARK_EVENT_ENTER, let child = cmark_iter_get_node(iterator) else { continue }
            switch cmark_node_get_type(child) {
            case CMARK_NODE_TEXT, CMARK_NODE_CODE: text += string(cmark_node_get_literal(child))
            case CMARK_NODE_SOFTBREAK, CMARK_NODE_LINEBREAK: text += " "
            default: break
            }
        }
        return text
    }

    // MARK: - Reading nodes

    private static func isLeaf(_ node: OpaquePointer) -> Bool {
        switch cmark_node_get_type(node) {
        case CMARK_NODE_HTML_BLOCK, CMARK_NODE_THEMATIC_BREAK, CMARK_NODE_CODE_BLOCK, CMARK_NODE_TEXT,
            CMARK_NODE_SOFTBREAK, CMARK_NODE_LINEBREAK, CMARK_NODE_CODE, CMARK_NODE_HTML_INLINE:
            return true
        default:
            return false
        }
    }

    private static func element(of node: OpaquePointer) -> CommonMarkElement {
        switch cmark_node_get_type(node) {
        case CMARK_NODE_DOCUMENT: return .document
        case CMARK_NODE_BLOCK_QUOTE: return .blockQuote
        case CMARK_NODE_LIST:
            return .list(
                ordered: cmark_node_get_list_type(node) == CMARK_ORDERED_LIST,
                start: Int(cmark_node_get_list_start(node)),
                tight: cmark_node_get_list_tight(node) != 0)
        case CMARK_NODE_ITEM: return .item
        case CMARK_NODE_CODE_BLOCK:
            return .codeBlock(info: text(cmark_node_get_fence_info(node)), text: text(cmark_node_get_literal(node)))
        case CMARK_NODE_HTML_BLOCK: return .htmlBlock(text(cmark_node_get_literal(node)))
        case CMARK_NODE_PARAGRAPH: return .paragraph
        case CMARK_NODE_HEADING: return .heading(level: Int(cmark_node_get_heading_level(node)))
        case CMARK_NODE_THEMATIC_BREAK: return .thematicBreak
        case CMARK_NODE_TEXT: return .text(text(cmark_node_get_literal(node)))
        case CMARK_NODE_SOFTBREAK: return .softBreak
        case CMARK_NODE_LINEBREAK: return .lineBreak
        case CMARK_NODE_CODE: return .code(text(cmark_node_get_literal(node)))
        case CMARK_NODE_HTML_INLINE: return .htmlInline(text(cmark_node_get_literal(node)))
        case CMARK_NODE_EMPH: return .emphasis
        case CMARK_NODE_STRONG: return .strong
        case CMARK_NODE_LINK:
            return .link(url: text(cmark_node_get_url(node)), title: text(cmark_node_get_title(node)))
        case CMARK_NODE_IMAGE:
            return .image(url: text(cmark_node_get_url(node)), title: text(cmark_node_get_title(node)))
        default:
            // Custom nodes: cmark's parser never makes them; their children still count.
            return .other
        }
    }

    /// A node's C string, lent (cmark keeps it while the node lives); nil is empty.
    private static func text(_ pointer: UnsafePointer<CChar>?) -> CommonMarkText {
        guard let pointer else { return CommonMarkText(bytes: UnsafeBufferPointer(start: nil, count: 0)) }
        let count = strlen(pointer)
        return CommonMarkText(
            bytes: UnsafeBufferPointer(start: UnsafeRawPointer(pointer).assumingMemoryBound(to: UInt8.self), count: count))
    }

    private static func string(_ pointer: UnsafePointer<CChar>?) -> String {
        guard let pointer else { return "" }
        return WellFormedUTF8.string(cString: pointer)
    }
}

/// What `CommonMarkDocument.removeUnsafeContent(refusingURL:)` did to a document.
struct CommonMarkCleanup {
    /// What was unsafe, in document order.
    var removals: [CommonMarkRemoval]
    /// Every link and image destination the document had, safe or not, in document order.
    var links: [String]
    /// How many containers were open, at most, when one opened (the document counting as one;
    /// -1 for none), before the removal: taking content out never makes the tree deeper.
    var deepestContainerOpening: Int
}

/// Something `CommonMarkDocument.removeUnsafeContent(refusingURL:)` found unsafe in the tree.
enum CommonMarkRemoval: Equatable {
    case rawHTML(String)
    case link(url: String)
    case image(url: String)
}

/// Where cmark read an emphasis: 1-based line and byte column of its first and last byte.
struct MarkdownEmphasisPosition {
    var isStrong: Bool
    var start: (line: Int, column: Int)
    var end: (line: Int, column: Int)
}
