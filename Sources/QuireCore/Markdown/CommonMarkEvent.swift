/// One step of a walk over a `CommonMarkDocument`.
enum CommonMarkEvent {
    case enter(CommonMarkElement)
    case exit
    case leaf(CommonMarkElement)
}

/// Text of a cmark node (a literal, a URL, a title, a run of text), lent for one visit: the
/// bytes belong to cmark (or to the walk) and are valid only until the visit returns. The
/// block writer copies them straight into its output; making a Swift string of every text run
/// cost an allocation each, and most of a document is text runs.
struct CommonMarkText {
    let bytes: UnsafeBufferPointer<UInt8>

    var isEmpty: Bool { bytes.isEmpty }

    /// A copy as a Swift string (`WellFormedUTF8`: cmark's text is well-formed).
    var string: String { WellFormedUTF8.string(bytes) }
}

/// A cmark node as Swift values, with the literals and attributes the block tree needs; its
/// texts are lent for the visit (`CommonMarkText`).
enum CommonMarkElement {
    case document
    case blockQuote
    case list(ordered: Bool, start: Int, tight: Bool)
    case item
    case codeBlock(info: CommonMarkText, text: CommonMarkText)
    case htmlBlock(CommonMarkText)
    case paragraph
    case heading(level: Int)
    case thematicBreak
    case text(CommonMarkText)
    case softBreak
    case lineBreak
    case code(CommonMarkText)
    case htmlInline(CommonMarkText)
    case emphasis
    case strong
    case link(url: CommonMarkText, title: CommonMarkText)
    case image(url: CommonMarkText, title: CommonMarkText)
    case other
}
