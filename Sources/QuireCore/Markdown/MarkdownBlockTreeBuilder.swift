import Foundation
import QuireModel

/// Builds the block tree native renderers walk from the events of a `CommonMarkDocument`.
///
/// It keeps its own stack instead of recursing, and nesting deeper than `maximumDepth` is kept
/// as plain text: a page of 10,000 nested `>` can neither exhaust this thread's stack nor hand
/// apps (or the recursive JSON writer) a tree thousands of levels deep.
/// Raw HTML is skipped; unsafe links must already be gone from the document.
///
/// Every page's markdown goes through here, so it allocates little: the finished children of
/// all open containers share one array (`pieces`, each frame owning the tail from its `start`),
/// so a container's children become one exactly sized array when it closes, and objects are
/// built from their members directly. `FastPathTests` compares its trees with the simple builder.
struct MarkdownBlockTreeBuilder {
    static let maximumDepth = 64

    private var frames: [Frame] = []
    /// The finished children of the open frames, outermost frame first.
    private var pieces: [JSONValue] = []
    private var blocks: [JSONValue] = []
    /// Whether some content was nested too deep and was kept as plain text.
    private(set) var flattenedDeepContent = false

    /// Builds the tree of a whole document.
    static func blocks(of document: CommonMarkDocument) -> (blocks: [JSONValue], flattenedDeepContent: Bool) {
        var builder = MarkdownBlockTreeBuilder()
        builder.frames.reserveCapacity(16)
        builder.pieces.reserveCapacity(64)
        document.walk { builder.consume($0) }
        return (builder.blocks, builder.flattenedDeepContent)
    }

    mutating func consume(_ event: CommonMarkEvent) {
        guard let top = frames.indices.last else {
            if case .enter(let element) = event { open(element) }
            return
        }
        if frames[top].content == .plainText {
            consumeAsPlainText(event, frame: top)
            return
        }
        switch event {
        case .enter(let element):
            if frames.count >= Self.maximumDepth {
                flattenedDeepContent = true
                // This container's own exit closes the frame.
                frames.append(Frame(kind: .flattened, content: .plainText, start: pieces.count))
            } else {
                open(element)
            }
        case .exit:
            close()
        case .leaf(let element):
            deliverLeaf(element)
        }
    }

    // MARK: - Frames

    /// One open container: what it is, and where its children start in `pieces`.
    private struct Frame {
        enum Kind {
            case document, quote, item, paragraph, emphasis, strong, flattened
            case list(ordered: Bool, start: Int, tight: Bool)
            case heading(level: Int)
            case link(url: String, title: String)
            case image(url: String, title: String)
        }

        enum Content {
            case blocks, items, inlines, plainText
        }

        var kind: Kind
        var content: Content
        var start: Int
        /// `.inlines`: text not yet made an inline (adjacent texts become one);
        /// `.plainText`: the text collected so far.
        var text = ""
        /// Containers open inside a plain-text frame: their exits must not close the frame.
        var nesting = 0

        init(kind: Kind, content: Content, start: Int) {
            self.kind = kind
            self.content = content
            self.start = start
        }
    }

    private mutating func open(_ element: CommonMarkElement) {
        let start = pieces.count
        let frame: Frame
        switch element {
        case .document: frame = Frame(kind: .document, content: .blocks, start: start)
        case .blockQuote: frame = Frame(kind: .quote, content: .blocks, start: start)
        case .item: frame = Frame(kind: .item, content: .blocks, start: start)
        case .list(let ordered, let listStart, let tight):
            frame = Frame(kind: .list(ordered: ordered, start: listStart, tight: tight), content: .items, start: start)
        case .paragraph: frame = Frame(kind: .paragraph, content: .inlines, start: start)
        case .heading(let level): frame = Frame(kind: .heading(level: level), content: .inlines, start: start)
        case .emphasis: frame = Frame(kind: .emphasis, content: .inlines, start: start)
        case .strong: frame = Frame(kind: .strong, content: .inlines, start: start)
        case .link(let url, let title): frame = Frame(kind: .link(url: url, title: title), content: .inlines, start: start)
        case .image(let url, let title): frame = Frame(kind: .image(url: url, title: title), content: .plainText, start: start)
        default:
            // Containers cmark's parser never makes (custom nodes): keep their text.
            frame = Frame(kind: .flattened, content: .plainText, start: start)
        }
        frames.append(frame)
    }

    private mutating func close() {
        guard let frame = frames.popLast() else { return }
        if frame.content == .inlines, !frame.text.isEmpty { pieces.append(Self.textInline(frame.text)) }
        let children = Array(pieces[frame.start...])
        pieces.removeSubrange(frame.start...)
        switch frame.kind {
        case .document:
            blocks = children
        case .quote:
            deliverBlock(Self.object([("type", "quote"), ("blocks", .array(children))]))
        case .item:
            deliverItem(children)
        case .list(let ordered, let start, let tight):
            let list: JSONValue = if ordered {
                Self.object([("type", "list"), ("ordered", .bool(ordered)), ("start", .integer(start)), ("tight", .bool(tight)),
                             ("items", .array(children))])
            } else {
                Self.object([("type", "list"), ("ordered", .bool(ordered)), ("tight", .bool(tight)), ("items", .array(children))])
            }
            deliverBlock(list)
        case .paragraph:
            if !children.isEmpty { deliverBlock(Self.paragraph(children)) }
        case .heading(let level):
            deliverBlock(Self.object([("type", "heading"), ("level", .integer(level)), ("inlines", .array(children))]))
        case .emphasis:
            deliverInline(Self.object([("type", "emphasis"), ("inlines", .array(children))]))
        case .strong:
            deliverInline(Self.object([("type", "strong"), ("inlines", .array(children))]))
        case .link(let url, let title):
            deliverInline(title.isEmpty
                ? Self.object([("type", "link"), ("url", .string(url)), ("inlines", .array(children))])
                : Self.object([("type", "link"), ("url", .string(url)), ("title", .string(title)), ("inlines", .array(children))]))
        case .image(let url, let title):
            deliverInline(title.isEmpty
                ? Self.object([("type", "image"), ("url", .string(url)), ("alt", .string(frame.text))])
                : Self.object([("type", "image"), ("url", .string(url)), ("alt", .string(frame.text)), ("title", .string(title))]))
        case .flattened:
            let trimmed = frame.text.trimmingCharacters(in: .newlines)
            if !trimmed.isEmpty { deliverText(trimmed) }
        }
    }

    // MARK: - Handing finished pieces to the innermost open frame

    private mutating func deliverLeaf(_ element: CommonMarkElement) {
        switch element {
        case .text(let text): if !text.isEmpty { deliverText(text) }
        case .softBreak: deliverText(" ")
        case .lineBreak: deliverInline(Self.object([("type", "line_break")]))
        case .code(let text): deliverInline(Self.object([("type", "code"), ("text", .string(text))]))
        case .thematicBreak: deliverBlock(Self.object([("type", "thematic_break")]))
        case .codeBlock(let info, let text):
            // Like cmark's HTML renderer, the language is the info string's first word.
            if let language = info.split(whereSeparator: { $0 == " " || $0 == "\t" }).first {
                deliverBlock(Self.object([("type", "code"), ("language", .string(String(language))), ("text", .string(text))]))
            } else {
                deliverBlock(Self.object([("type", "code"), ("text", .string(text))]))
            }
        default:
            // Raw HTML is dropped (and reported by the renderer); containers are not leaves.
            break
        }
    }

    private mutating func deliverBlock(_ block: JSONValue) {
        guard let top = frames.indices.last else { return }
        // Only block containers take blocks (CommonMark's structure rules out the rest).
        if frames[top].content == .blocks { pieces.append(block) }
    }

    private mutating func deliverItem(_ blocks: [JSONValue]) {
        guard let top = frames.indices.last else { return }
        if frames[top].content == .items { pieces.append(.array(blocks)) }
    }

    private mutating func deliverInline(_ inline: JSONValue) {
        guard let top = frames.indices.last, frames[top].content == .inlines else { return }
        if !frames[top].text.isEmpty {
            pieces.append(Self.textInline(frames[top].text))
            frames[top].text = ""
        }
        pieces.append(inline)
    }

    /// Text joins the pending text of inlines and plain text; blocks and items wrap it.
    private mutating func deliverText(_ text: String) {
        guard let top = frames.indices.last else { return }
        switch frames[top].content {
        case .inlines, .plainText:
            frames[top].text += text
        case .blocks:
            pieces.append(Self.paragraph([Self.textInline(text)]))
        case .items:
            pieces.append(.array([Self.paragraph([Self.textInline(text)])]))
        }
    }

    /// Inside an image (its alt text) or content nested too deep: only the text counts.
    private mutating func consumeAsPlainText(_ event: CommonMarkEvent, frame index: Int) {
        switch event {
        case .enter(let element):
            frames[index].nesting += 1
            if Self.isBlock(element), !frames[index].text.isEmpty, !frames[index].text.hasSuffix("\n") {
                frames[index].text += "\n"
            }
        case .exit:
            if frames[index].nesting > 0 {
                frames[index].nesting -= 1
            } else {
                close()
            }
        case .leaf(let element):
            let isAltText = if case .image = frames[index].kind { true } else { false }
            switch element {
            case .text(let text), .code(let text): frames[index].text += text
            case .softBreak: frames[index].text += " "
            case .lineBreak: frames[index].text += isAltText ? " " : "\n"
            case .codeBlock(_, let text): frames[index].text += "\n" + text
            default: break
            }
        }
    }

    private static func isBlock(_ element: CommonMarkElement) -> Bool {
        switch element {
        case .document, .blockQuote, .list, .item, .paragraph, .heading: return true
        default: return false
        }
    }

    // MARK: - Objects

    private static func object(_ members: [(key: String, value: JSONValue)]) -> JSONValue {
        .object(JSONObject(distinctKeys: members))
    }

    private static func paragraph(_ inlines: [JSONValue]) -> JSONValue {
        object([("type", "paragraph"), ("inlines", .array(inlines))])
    }

    private static func textInline(_ text: String) -> JSONValue {
        object([("type", "text"), ("text", .string(text))])
    }
}
