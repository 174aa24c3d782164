import QuireModel

/// Builds an HTML document as UTF-8 bytes. Everything that came from content goes through
/// `text(_:)` or `attribute(_:_:)`, which escape `& < > " '`; only our own fixed markup goes
/// through `raw(_:)`.
///
/// Bytes, not a `String`: a preview is ~30 KB written in hundreds of small pieces, appended
/// through a pointer (`ByteSink`) without the per-append bookkeeping of a `String` or an array.
struct HTMLWriter: ~Copyable {
    private var out = ByteSink(capacity: 32 * 1024)

    init() {}

    /// The document so far.
    var bytes: [UInt8] { out.array() }

    mutating func raw(_ markup: String) { out.append(markup) }

    /// Markup already encoded (and escaped where needed), such as a filtered markdown body.
    mutating func raw(bytes markup: [UInt8]) { out.append(markup) }

    /// Markup that `write` appends straight to the document (a filtered markdown body), so it
    /// needs no buffer of its own.
    mutating func raw(writing write: (inout ByteSink) -> Void) { write(&out) }

    mutating func text(_ value: String) { Self.appendEscaped(value, to: &out) }

    /// ` name="value"`, escaped; nothing when the value is nil.
    mutating func attribute(_ name: StaticString, _ value: String?) {
        guard let value else { return }
        out.append(UInt8(ascii: " "))
        out.append(name)
        out.append("=\"" as StaticString)
        Self.appendEscaped(value, to: &out)
        out.append(UInt8(ascii: "\""))
    }

    /// `<tag class="...">text</tag>`, skipped when the text is nil or empty.
    mutating func element(_ tag: StaticString, class className: String? = nil, _ value: String?) {
        guard let value, !value.isEmpty else { return }
        out.append(UInt8(ascii: "<"))
        out.append(tag)
        attribute("class", className)
        out.append(UInt8(ascii: ">"))
        text(value)
        out.append("</" as StaticString)
        out.append(tag)
        out.append(UInt8(ascii: ">"))
    }

    static func escape(_ value: String) -> String {
        var escaped = ByteSink(capacity: value.utf8.count + 16)
        appendEscaped(value, to: &escaped)
        return String(decoding: escaped.array(), as: UTF8.self)
    }

    /// Escapes `& < > " '` and replaces NUL with U+FFFD. Works on UTF-8 bytes: these are all
    /// ASCII, and a byte below 0x80 is always a whole scalar, so bytes and scalars agree.
    static func appendEscaped(_ value: String, to out: inout ByteSink) {
        if value.utf8.withContiguousStorageIfAvailable({ appendEscaped($0, to: &out) }) != nil { return }
        var value = value
        value.withUTF8 { appendEscaped($0, to: &out) }
    }

    static func appendEscaped(_ value: UnsafeBufferPointer<UInt8>, to out: inout ByteSink) {
        var runStart = 0
        for index in value.indices {
            let replacement: StaticString
            switch value[index] {
            case UInt8(ascii: "&"): replacement = "&amp;"
            case UInt8(ascii: "<"): replacement = "&lt;"
            case UInt8(ascii: ">"): replacement = "&gt;"
            case UInt8(ascii: "\""): replacement = "&quot;"
            case UInt8(ascii: "'"): replacement = "&#39;"
            case 0: replacement = "\u{FFFD}"
            default: continue
            }
            // Plain text is copied in runs, not byte by byte.
            out.append(value[runStart..<index])
            out.append(replacement)
            runStart = index + 1
        }
        out.append(value[runStart...])
    }
}

extension JSONValue {
    /// A scalar as display text: strings as they are, numbers and booleans spelled out.
    var displayText: String? {
        switch self {
        case .string(let text): return text
        case .integer(let number): return String(number)
        case .number(let number): return String(number)
        case .bool(let flag): return flag ? "true" : "false"
        case .null, .array, .object, .encoded: return nil
        }
    }
}
