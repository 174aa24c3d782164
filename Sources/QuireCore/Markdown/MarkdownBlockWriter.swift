import Foundation
import QuireModel

/// Writes the block tree native renderers walk, as compact JSON, from the events of a
/// `CommonMarkDocument`.
///
/// It keeps its own stack instead of recursing, and nesting deeper than `maximumDepth` is kept
/// as plain text: a page of 10,000 nested `>` can neither exhaust this thread's stack nor hand
/// apps a tree thousands of levels deep. Raw HTML is skipped; unsafe links must already be gone
/// from the document.
///
/// Every page's markdown goes through here, so it writes bytes as the events come instead of
/// building `JSONValue`s to encode and free (most of a page's values are its blocks). A
/// container's opening is written when it opens and its close when it closes; one its parent
/// does not take (an empty paragraph; a block where CommonMark allows none) is cut back out of
/// the output. `FastPathTests` holds it to the trees `ReferenceBlockTreeBuilder` builds.
struct MarkdownBlockWriter: ~Copyable {
    static let maximumDepth = 64

    private var out = ByteSink(capacity: 4096)
    private var frames: [Frame] = []
    /// Whether some content was nested too deep and was kept as plain text.
    private var flattenedDeepContent = false
    /// The text of the plain-text frame (an image's alt text, or content nested too deep) and
    /// how many containers are open inside it, whose exits must not close it. At most one frame
    /// is plain text, the innermost: nothing inside it opens a frame. Kept here, not in the
    /// frame, so frames hold no references and are pushed and popped without retains.
    private var plainText: [UInt8] = []
    private var plainTextNesting = 0
    /// The open image's destination and title (written when it closes, after its alt text).
    private var imageURL: [UInt8] = []
    private var imageTitle: [UInt8] = []

    /// The tree of a whole document: a JSON array of blocks.
    static func blocks(of document: CommonMarkDocument) -> (json: [UInt8], flattenedDeepContent: Bool) {
        var writer = MarkdownBlockWriter()
        writer.frames.reserveCapacity(16)
        document.walk { writer.consume($0) }
        // A document always closes its frame; an empty walk still gives an empty array.
        if writer.out.count == 0 { writer.out.append("[]") }
        return (writer.out.array(), writer.flattenedDeepContent)
    }

    private mutating func consume(_ event: CommonMarkEvent) {
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
                beginPlainText(.flattened)
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

    /// One open container: what it is, where its output starts, and what it holds so far.
    private struct Frame {
        enum Kind {
            case document, quote, item, list, paragraph, heading, emphasis, strong, link, flattened, image
        }

        enum Content {
            case blocks, items, inlines, plainText
        }

        var kind: Kind
        var content: Content
        /// Where its output starts (before its comma): cut back to here when it is not taken.
        var start: Int
        /// Whether its parent takes it (CommonMark's structure decides).
        var taken: Bool
        /// Children written so far (each after the first is preceded by a comma).
        var children = 0
        /// `.inlines`: a text inline is open in the output, its string not yet closed, so the
        /// next text joins it (adjacent texts become one inline).
        var textIsOpen = false
    }

    private mutating func open(_ element: CommonMarkElement) {
        let parent = frames.last?.content
        switch element {
        case .document:
            begin(.document, .blocks, taken: parent == nil)
            out.append(UInt8(ascii: "["))
        case .blockQuote:
            begin(.quote, .blocks, taken: parent == .blocks)
            out.append(#"{"type":"quote","blocks":["#)
        case .item:
            begin(.item, .blocks, taken: parent == .items)
            out.append(UInt8(ascii: "["))
        case .list(let ordered, let listStart, let tight):
            begin(.list, .items, taken: parent == .blocks)
            if ordered {
                out.append(#"{"type":"list","ordered":true,"start":"#)
                JSONWriter.writeInteger(listStart, into: &out)
            } else {
                out.append(#"{"type":"list","ordered":false"#)
            }
            out.append(tight ? #","tight":true,"items":["# as StaticString : #","tight":false,"items":["#)
        case .paragraph:
            begin(.paragraph, .inlines, taken: parent == .blocks)
            out.append(#"{"type":"paragraph","inlines":["#)
        case .heading(let level):
            begin(.heading, .inlines, taken: parent == .blocks)
            out.append(#"{"type":"heading","level":"#)
            JSONWriter.writeInteger(level, into: &out)
            out.append(#","inlines":["#)
        case .emphasis:
            begin(.emphasis, .inlines, taken: parent == .inlines)
            out.append(#"{"type":"emphasis","inlines":["#)
        case .strong:
            begin(.strong, .inlines, taken: parent == .inlines)
            out.append(#"{"type":"strong","inlines":["#)
        case .link(let url, let title):
            begin(.link, .inlines, taken: parent == .inlines)
            out.append(#"{"type":"link","url":"#)
            JSONWriter.writeString(url.bytes, into: &out)
            if !title.isEmpty {
                out.append(#","title":"#)
                JSONWriter.writeString(title.bytes, into: &out)
            }
            out.append(#","inlines":["#)
        case .image(let url, let title):
            // Written whole when it closes: its alt text comes before its title.
            imageURL.removeAll(keepingCapacity: true)
            imageURL.append(contentsOf: url.bytes)
            imageTitle.removeAll(keepingCapacity: true)
            imageTitle.append(contentsOf: title.bytes)
            beginPlainText(.image)
        default:
            // Containers cmark's parser never makes (custom nodes): keep their text.
            beginPlainText(.flattened)
        }
    }

    private mutating func beginPlainText(_ kind: Frame.Kind) {
        plainText.removeAll(keepingCapacity: true)
        plainTextNesting = 0
        frames.append(Frame(kind: kind, content: .plainText, start: out.count, taken: true))
    }

    /// Pushes a container whose opening the caller writes next: the parent's pending text goes
    /// first (it precedes this inline), then the comma. One its parent does not take is written
    /// all the same, and cut back out when it closes.
    private mutating func begin(_ kind: Frame.Kind, _ content: Frame.Content, taken: Bool) {
        if taken { flushText() }
        let start = out.count
        if taken, let parent = frames.indices.last, frames[parent].children > 0 { out.append(UInt8(ascii: ",")) }
        frames.append(Frame(kind: kind, content: content, start: start, taken: taken))
    }

    private mutating func close() {
        guard let top = frames.indices.last else { return }
        switch frames[top].kind {
        case .image:
            frames.removeLast()
            let (url, alt, title) = (imageURL, plainText, imageTitle)
            deliverInline { out in
                out.append(#"{"type":"image","url":"#)
                url.withUnsafeBufferPointer { JSONWriter.writeString($0, into: &out) }
                out.append(#","alt":"#)
                alt.withUnsafeBufferPointer { JSONWriter.writeString($0, into: &out) }
                if !title.isEmpty {
                    out.append(#","title":"#)
                    title.withUnsafeBufferPointer { JSONWriter.writeString($0, into: &out) }
                }
                out.append(UInt8(ascii: "}"))
            }
        case .flattened:
            frames.removeLast()
            let trimmed = String(decoding: plainText, as: UTF8.self).trimmingCharacters(in: .newlines)
            if !trimmed.isEmpty { deliverText(trimmed) }
        default:
            // A container whose opening is written: its close, or it is cut out.
            flushText()
            let frame = frames.removeLast()
            let isEmptyParagraph = if case .paragraph = frame.kind { frame.children == 0 } else { false }
            guard frame.taken, !isEmptyParagraph else {
                out.truncate(to: frame.start)
                return
            }
            switch frame.kind {
            case .document, .item: out.append(UInt8(ascii: "]"))
            default: out.append("]}")
            }
            if let parent = frames.indices.last { frames[parent].children += 1 }
        }
    }

    // MARK: - Handing finished pieces to the innermost open frame

    private mutating func deliverLeaf(_ element: CommonMarkElement) {
        switch element {
        case .text(let text): if !text.isEmpty { deliverText(text.bytes) }
        case .softBreak: deliverText(Self.space)
        case .lineBreak: deliverInline { $0.append(#"{"type":"line_break"}"#) }
        case .code(let text):
            deliverInline { out in
                out.append(#"{"type":"code","text":"#)
                JSONWriter.writeString(text.bytes, into: &out)
                out.append(UInt8(ascii: "}"))
            }
        case .thematicBreak: deliverBlock { $0.append(#"{"type":"thematic_break"}"#) }
        case .codeBlock(let info, let text):
            deliverBlock { out in
                out.append(#"{"type":"code","#)
                // Like cmark's HTML renderer, the language is the info string's first word.
                if let language = info.string.split(whereSeparator: { $0 == " " || $0 == "\t" }).first {
                    out.append(#""language":"#)
                    JSONWriter.writeString(String(language), into: &out)
                    out.append(UInt8(ascii: ","))
                }
                out.append(#""text":"#)
                JSONWriter.writeString(text.bytes, into: &out)
                out.append(UInt8(ascii: "}"))
            }
        default:
            // Raw HTML is dropped (and reported by the renderer); containers are not leaves.
            break
        }
    }

    /// Only block containers take blocks (CommonMark's structure rules out the rest).
    private mutating func deliverBlock(_ write: (inout ByteSink) -> Void) {
        guard let top = frames.indices.last, frames[top].content == .blocks else { return }
        writeChild(of: top, write)
    }

    private mutating func deliverInline(_ write: (inout ByteSink) -> Void) {
        guard let top = frames.indices.last, frames[top].content == .inlines else { return }
        flushText()
        writeChild(of: top, write)
    }

    private mutating func deliverText(_ text: String) {
        var text = text
        text.withUTF8 { deliverText($0) }
    }

    private mutating func deliverText(_ text: StaticString) {
        deliverText(UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    private static let space: StaticString = " "

    /// Text joins the open text inline of inlines (written escaped as it comes: escaping is byte
    /// by byte, so the pieces escaped one by one are the whole escaped at once) and the text of
    /// plain text; blocks and items wrap it.
    private mutating func deliverText(_ text: UnsafeBufferPointer<UInt8>) {
        guard let top = frames.indices.last else { return }
        switch frames[top].content {
        case .inlines:
            if !frames[top].textIsOpen {
                startChild(of: top)
                out.append(Self.textInlineStart)
                out.append(UInt8(ascii: "\""))
                frames[top].textIsOpen = true
            }
            JSONWriter.writeStringContent(text, into: &out)
        case .plainText:
            plainText.append(contentsOf: text)
        case .blocks:
            writeChild(of: top) { out in Self.writeTextParagraph(text, into: &out) }
        case .items:
            writeChild(of: top) { out in
                out.append(UInt8(ascii: "["))
                Self.writeTextParagraph(text, into: &out)
                out.append(UInt8(ascii: "]"))
            }
        }
    }

    /// Closes the innermost frame's open text inline, when it has one.
    private mutating func flushText() {
        guard let top = frames.indices.last, frames[top].textIsOpen else { return }
        out.append(#""}"#)
        frames[top].textIsOpen = false
    }

    private mutating func writeChild(of index: Int, _ write: (inout ByteSink) -> Void) {
        startChild(of: index)
        write(&out)
    }

    /// Counts a child of the frame at `index`, after the comma when it is not the first.
    private mutating func startChild(of index: Int) {
        if frames[index].children > 0 { out.append(UInt8(ascii: ",")) }
        frames[index].children += 1
    }

    /// Inside an image (its alt text) or content nested too deep: only the text counts.
    private mutating func consumeAsPlainText(_ event: CommonMarkEvent, frame index: Int) {
        switch event {
        case .enter(let element):
            plainTextNesting += 1
            if Self.isBlock(element), !plainText.isEmpty, !Self.endsWithLineFeed(plainText) {
                plainText.append(UInt8(ascii: "\n"))
            }
        case .exit:
            if plainTextNesting > 0 {
                plainTextNesting -= 1
            } else {
                close()
            }
        case .leaf(let element):
            let isAltText = frames[index].kind == .image
            switch element {
            case .text(let text), .code(let text): plainText.append(contentsOf: text.bytes)
            case .softBreak: plainText.append(UInt8(ascii: " "))
            case .lineBreak: plainText.append(UInt8(ascii: isAltText ? " " : "\n"))
            case .codeBlock(_, let text):
                plainText.append(UInt8(ascii: "\n"))
                plainText.append(contentsOf: text.bytes)
            default: break
            }
        }
    }

    /// Whether the text's last character is a line feed, as `String.hasSuffix("\n")` tells:
    /// a `\r\n` at the end is one character, and not a line feed.
    private static func endsWithLineFeed(_ text: [UInt8]) -> Bool {
        guard text.last == UInt8(ascii: "\n") else { return false }
        return text.count < 2 || text[text.count - 2] != UInt8(ascii: "\r")
    }

    private static func isBlock(_ element: CommonMarkElement) -> Bool {
        switch element {
        case .document, .blockQuote, .list, .item, .paragraph, .heading: return true
        default: return false
        }
    }

    // MARK: - Objects

    /// A text inline up to its string.
    private static let textInlineStart: StaticString = #"{"type":"text","text":"#

    private static func writeTextInline(_ text: UnsafeBufferPointer<UInt8>, into out: inout ByteSink) {
        out.append(textInlineStart)
        JSONWriter.writeString(text, into: &out)
        out.append(UInt8(ascii: "}"))
    }

    private static func writeTextParagraph(_ text: UnsafeBufferPointer<UInt8>, into out: inout ByteSink) {
        out.append(#"{"type":"paragraph","inlines":["#)
        writeTextInline(text, into: &out)
        out.append("]}")
    }
}
