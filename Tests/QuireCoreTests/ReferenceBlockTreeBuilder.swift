import Foundation
import QuireModel

@testable import QuireCore

/// The block tree built the simple way, from the events of `CommonMarkDocument.walk`, one
/// dictionary literal per object, without reading cmark's nodes directly. The renderer's writer
/// must write exactly these trees (`FastPathTests`).
///
/// Builds the block tree native renderers walk from the events of a `CommonMarkDocument`.
///
/// It keeps its own stack instead of recursing, and nesting deeper than `maximumDepth` is kept
/// as plain text: a page of 10,000 nested `>` can neither exhaust this thread's stack nor hand
/// apps (or the recursive JSON writer) a tree thousands of levels deep.
/// Raw HTML is skipped; unsafe links must already be gone from the document.
struct ReferenceBlockTreeBuilder {
    static let maximumDepth = 64

    private var stack: [Frame] = []
    private var blocks: [JSONValue] = []
    /// Whether some content was nested too deep and was kept as plain text.
    private(set) var flattenedDeepContent = false

    /// Builds the tree of a whole document.
    static func blocks(of document: CommonMarkDocument) -> (blocks: [JSONValue], flattenedDeepContent: Bool) {
        var builder = ReferenceBlockTreeBuilder()
        document.walk { builder.consume($0) }
        return (builder.blocks, builder.flattenedDeepContent)
    }

    mutating func consume(_ event: CommonMarkEvent) {
        if let top = stack.indices.last, stack[top].collectsPlainText {
            consumeAsPlainText(event, frame: top)
            return
        }
        switch event {
        case .enter(let element):
            if stack.count >= Self.maximumDepth {
                flattenedDeepContent = true
                // This container's own exit closes the frame.
                stack.append(Frame(kind: .flattened, content: .plainText))
            } else {
                stack.append(Frame.opening(element))
            }
        case .exit:
            close()
        case .leaf(let element):
            if let piece = Self.piece(forLeaf: element) { deliver(piece) }
        }
    }

    // MARK: - Frames

    /// One open container. Its content lives in plain stored properties, not in an enum
    /// payload: appending to an array taken out of an enum case copies the whole array first.
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
        /// The blocks of a `.blocks` frame, the items of an `.items` frame.
        var children: [JSONValue] = []
        var run = ReferenceInlineRun()
        var plainText = ""
        /// Containers open inside a plain-text frame: their exits must not close the frame.
        var nesting = 0

        init(kind: Kind, content: Content) {
            self.kind = kind
            self.content = content
        }

        var collectsPlainText: Bool { content == .plainText }

        static func opening(_ element: CommonMarkElement) -> Frame {
            switch element {
            case .document: return Frame(kind: .document, content: .blocks)
            case .blockQuote: return Frame(kind: .quote, content: .blocks)
            case .item: return Frame(kind: .item, content: .blocks)
            case .list(let ordered, let start, let tight):
                return Frame(kind: .list(ordered: ordered, start: start, tight: tight), content: .items)
            case .paragraph: return Frame(kind: .paragraph, content: .inlines)
            case .heading(let level): return Frame(kind: .heading(level: level), content: .inlines)
            case .emphasis: return Frame(kind: .emphasis, content: .inlines)
            case .strong: return Frame(kind: .strong, content: .inlines)
            case .link(let url, let title): return Frame(kind: .link(url: url.string, title: title.string), content: .inlines)
            case .image(let url, let title): return Frame(kind: .image(url: url.string, title: title.string), content: .plainText)
            default:
                // Containers cmark's parser never makes (custom nodes): keep their text.
                return Frame(kind: .flattened, content: .plainText)
            }
        }

        /// Takes a finished child, wrapping it when this frame holds a different kind of content.
        mutating func receive(_ piece: Piece) {
            switch (content, piece) {
            case (.blocks, .block(let block)):
                children.append(block)
            case (.blocks, .text(let text)):
                children.append(ReferenceBlockTreeBuilder.paragraph([["type": "text", "text": .string(text)]]))
            case (.items, .item(let blocks)):
                children.append(.array(blocks))
            case (.items, .text(let text)):
                children.append([ReferenceBlockTreeBuilder.paragraph([["type": "text", "text": .string(text)]])])
            case (.inlines, .inline(let inline)):
                run.append(inline)
            case (.inlines, .text(let text)):
                run.appendText(text)
            case (.plainText, .text(let text)):
                plainText += text
            default:
                // Combinations CommonMark's structure rules out (a block inside a paragraph).
                break
            }
        }

        /// The finished frame as a piece of its parent, nil when it leaves nothing.
        mutating func finished() -> Piece? {
            switch (kind, content) {
            case (.quote, .blocks):
                return .block(["type": "quote", "blocks": .array(children)])
            case (.item, .blocks):
                return .item(children)
            case (.list(let ordered, let start, let tight), .items):
                var list = JSONObject([("type", "list"), ("ordered", .bool(ordered))])
                if ordered { list["start"] = .integer(start) }
                list["tight"] = .bool(tight)
                list["items"] = .array(children)
                return .block(.object(list))
            case (.paragraph, .inlines):
                let inlines = run.finish()
                return inlines.isEmpty ? nil : .block(ReferenceBlockTreeBuilder.paragraph(inlines))
            case (.heading(let level), .inlines):
                return .block(["type": "heading", "level": .integer(level), "inlines": .array(run.finish())])
            case (.emphasis, .inlines):
                return .inline(["type": "emphasis", "inlines": .array(run.finish())])
            case (.strong, .inlines):
                return .inline(["type": "strong", "inlines": .array(run.finish())])
            case (.link(let url, let title), .inlines):
                var link = JSONObject([("type", "link"), ("url", .string(url))])
                if !title.isEmpty { link["title"] = .string(title) }
                link["inlines"] = .array(run.finish())
                return .inline(.object(link))
            case (.image(let url, let title), .plainText):
                var image = JSONObject([("type", "image"), ("url", .string(url)), ("alt", .string(plainText))])
                if !title.isEmpty { image["title"] = .string(title) }
                return .inline(.object(image))
            case (.flattened, .plainText):
                let trimmed = plainText.trimmingCharacters(in: .newlines)
                return trimmed.isEmpty ? nil : .text(trimmed)
            default:
                return nil
            }
        }
    }

    /// What a finished node hands its parent.
    private enum Piece {
        case block(JSONValue)
        case item([JSONValue])
        case inline(JSONValue)
        case text(String)
    }

    private static func paragraph(_ inlines: [JSONValue]) -> JSONValue {
        ["type": "paragraph", "inlines": .array(inlines)]
    }

    private static func piece(forLeaf element: CommonMarkElement) -> Piece? {
        switch element {
        case .text(let text): return text.isEmpty ? nil : .text(text.string)
        case .softBreak: return .text(" ")
        case .lineBreak: return .inline(["type": "line_break"])
        case .code(let text): return .inline(["type": "code", "text": .string(text.string)])
        case .thematicBreak: return .block(["type": "thematic_break"])
        case .codeBlock(let info, let text):
            var code = JSONObject([("type", "code")])
            // Like cmark's HTML renderer, the language is the info string's first word.
            if let language = info.string.split(whereSeparator: { $0 == " " || $0 == "\t" }).first {
                code["language"] = .string(String(language))
            }
            code["text"] = .string(text.string)
            return .block(.object(code))
        default:
            // Raw HTML is dropped (and reported by the renderer); containers are not leaves.
            return nil
        }
    }

    private mutating func close() {
        guard var frame = stack.popLast() else { return }
        if case .document = frame.kind, frame.content == .blocks {
            blocks = frame.children
            return
        }
        if let piece = frame.finished() { deliver(piece) }
    }

    private mutating func deliver(_ piece: Piece) {
        guard let top = stack.indices.last else { return }
        stack[top].receive(piece)
    }

    /// Inside an image (its alt text) or content nested too deep: only the text counts.
    private mutating func consumeAsPlainText(_ event: CommonMarkEvent, frame index: Int) {
        switch event {
        case .enter(let element):
            stack[index].nesting += 1
            if Self.isBlock(element), stack[index].collectsPlainText, !stack[index].plainText.isEmpty,
                !stack[index].plainText.hasSuffix("\n")
            {
                stack[index].receive(.text("\n"))
            }
        case .exit:
            if stack[index].nesting > 0 {
                stack[index].nesting -= 1
            } else {
                close()
            }
        case .leaf(let element):
            let isAltText = if case .image = stack[index].kind { true } else { false }
            switch element {
            case .text(let text), .code(let text): stack[index].receive(.text(text.string))
            case .softBreak: stack[index].receive(.text(" "))
            case .lineBreak: stack[index].receive(.text(isAltText ? " " : "\n"))
            case .codeBlock(_, let text): stack[index].receive(.text("\n" + text.string))
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
}

/// The inlines of one paragraph, heading, emphasis or link, as they are built: adjacent text
/// (text nodes, soft breaks, text left by removed links) becomes one `text` inline.
struct ReferenceInlineRun {
    private var inlines: [JSONValue] = []
    private var pendingText = ""

    mutating func appendText(_ text: String) {
        pendingText += text
    }

    mutating func append(_ inline: JSONValue) {
        flushText()
        inlines.append(inline)
    }

    var isEmpty: Bool { inlines.isEmpty && pendingText.isEmpty }

    mutating func finish() -> [JSONValue] {
        flushText()
        return inlines
    }

    private mutating func flushText() {
        guard !pendingText.isEmpty else { return }
        inlines.append(["type": "text", "text": .string(pendingText)])
        pendingText = ""
    }
}
