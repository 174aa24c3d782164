/// Writes a unit's `InlinePiece`s as XLIFF inline markup. Codes are numbered in the source; a
/// target's code that copies a source code carries that code's id, so a CAT tool pairs them.
///
/// | piece | XLIFF 1.2 | XLIFF 2.0 |
/// |---|---|---|
/// | `{name}` | `<ph id ctype="x-placeholder">{name}</ph>` | `<ph id dataRef/>` |
/// | autolink `<https://…>` | `<ph id ctype="x-link">…</ph>` | `<ph id dataRef/>` |
/// | `[text](url)` | `<bpt id ctype="link">[</bpt>text<ept id>](url)</ept>` | `<pc id type="link" dataRefStart dataRefEnd>text</pc>` |
///
/// 1.2 keeps the original code as the element's content, 2.0 in the unit's `<originalData>`:
/// `XLIFFInlineMarkup` reads both back to the same text.
struct XLIFFInlineCodes {
    enum Version { case v12, v20 }

    let version: Version
    /// 2.0 `<data>` elements: (id, original code), in order of first use.
    private(set) var originalData: [(id: String, text: String)] = []
    private var dataIDs: [String: String] = [:]
    private var sourceCodes: [(signature: String, id: Int)] = []
    private var usedSourceIDs: Set<Int> = []
    private var nextID = 1

    init(_ version: Version) { self.version = version }

    /// The source text's markup; call before `target`.
    mutating func source(_ text: String, isMarkdown: Bool) -> String {
        markup(InlineCodeScanner.pieces(of: text, isMarkdown: isMarkdown), isSource: true)
    }

    mutating func target(_ text: String, isMarkdown: Bool) -> String {
        usedSourceIDs = []
        return markup(InlineCodeScanner.pieces(of: text, isMarkdown: isMarkdown), isSource: false)
    }

    /// `<originalData>…</originalData>` for 2.0 (empty when the unit has no codes).
    func originalDataElement(indent: String) -> String {
        guard !originalData.isEmpty else { return "" }
        let items = originalData.map { "\(indent)  <data id=\"\($0.id)\">\(XMLText.content($0.text))</data>\n" }.joined()
        return "\(indent)<originalData>\n\(items)\(indent)</originalData>\n"
    }

    private mutating func markup(_ pieces: [InlinePiece], isSource: Bool) -> String {
        var out = ""
        for piece in pieces {
            switch piece {
            case .text(let text):
                out += XMLText.content(text)
            case .code(let code, let kind):
                let id = codeID("c\u{0}" + code, isSource: isSource)
                switch version {
                case .v12: out += "<ph id=\"\(id)\" ctype=\"x-\(kind.rawValue)\">\(XMLText.content(code))</ph>"
                case .v20: out += "<ph id=\"\(id)\" dataRef=\"\(dataID(code))\" canDelete=\"no\"/>"
                }
            case .span(let start, let end, let kind, let content):
                let id = codeID("s\u{0}" + start + "\u{0}" + end, isSource: isSource)
                let startRef = version == .v20 ? dataID(start) : ""
                let inner = markup(content, isSource: isSource)
                let endRef = version == .v20 ? dataID(end) : ""
                switch version {
                case .v12:
                    out +=
                        "<bpt id=\"\(id)\" ctype=\"\(kind.rawValue)\">\(XMLText.content(start))</bpt>\(inner)"
                        + "<ept id=\"\(id)\">\(XMLText.content(end))</ept>"
                case .v20:
                    // 2.0's types: link and image are its own; bold and italic are formatting, which
                    // a translation may leave out (a link may not).
                    let isLink = kind == .link || kind == .image
                    out +=
                        "<pc id=\"\(id)\" type=\"\(isLink ? kind.rawValue : "fmt")\" dataRefStart=\"\(startRef)\" dataRefEnd=\"\(endRef)\""
                        + (isLink ? " canDelete=\"no\"" : "") + ">\(inner)</pc>"
                }
            }
        }
        return out
    }

    /// A new id for a source code; for a target code, the id of the first source code it copies
    /// that no earlier target code took, else a new one.
    private mutating func codeID(_ signature: String, isSource: Bool) -> Int {
        if !isSource, let match = sourceCodes.first(where: { $0.signature == signature && !usedSourceIDs.contains($0.id) }) {
            usedSourceIDs.insert(match.id)
            return match.id
        }
        let id = nextID
        nextID += 1
        if isSource { sourceCodes.append((signature, id)) }
        return id
    }

    private mutating func dataID(_ text: String) -> String {
        if let known = dataIDs[text] { return known }
        let id = "d\(originalData.count + 1)"
        dataIDs[text] = id
        originalData.append((id, text))
        return id
    }
}
