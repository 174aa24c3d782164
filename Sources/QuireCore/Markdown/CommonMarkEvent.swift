/// One step of a walk over a `CommonMarkDocument`.
enum CommonMarkEvent {
    case enter(CommonMarkElement)
    case exit
    case leaf(CommonMarkElement)
}

/// A cmark node as a Swift value, with the literals and attributes the block tree needs.
enum CommonMarkElement {
    case document
    case blockQuote
    case list(ordered: Bool, start: Int, tight: Bool)
    case item
    case codeBlock(info: String, text: String)
    case htmlBlock(String)
    case paragraph
    case heading(level: Int)
    case thematicBreak
    case text(String)
    case softBreak
    case lineBreak
    case code(String)
    case htmlInline(String)
    case emphasis
    case strong
    case link(url: String, title: String)
    case image(url: String, title: String)
    case other
}
