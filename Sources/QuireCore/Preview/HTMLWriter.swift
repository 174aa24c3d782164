import QuireModel

/// Builds an HTML document as UTF-8 bytes. Everything that came from content goes through
/// `text(_:)` or `attribute(_:_:)`, which escape `& < > " '`; only our own fixed markup goes
/// through `raw(_:)`.
///
/// Bytes, not a `String`: a preview is ~30 KB written in hundreds of small pieces, and
/// appending to an array skips the per-append bookkeeping a `String` does.
struct HTMLWriter {
    private(set) var bytes: [UInt8] = []

    init() { bytes.reserveCapacity(32 * 1024) }

    mutating func raw(_ markup: String) { bytes.append(contentsOf: markup.utf8) }

    /// Markup already encoded (and escaped where needed), such as a filtered markdown body.
    mutating func raw(bytes markup: [UInt8]) { bytes.append(contentsOf: markup) }

    /// Markup that `write` appends straight to the document (a filtered markdown body), so it
    /// needs no buffer of its own.
    mutating func raw(writing write: (inout [UInt8]) -> Void) { write(&bytes) }

    mutating func text(_ value: String) { Self.appendEscaped(value, to: &bytes) }

    /// ` name="value"`, escaped; nothing when the value is nil.
    mutating func attribute(_ name: String, _ value: String?) {
        guard let value else { return }
        bytes.append(UInt8(ascii: " "))
        bytes.append(contentsOf: name.utf8)
        bytes.append(contentsOf: "=\"".utf8)
        Self.appendEscaped(value, to: &bytes)
        bytes.append(UInt8(ascii: "\""))
    }

    /// `<tag class="...">text</tag>`, skipped when the text is nil or empty.
    mutating func element(_ tag: String, class className: String? = nil, _ value: String?) {
        guard let value, !value.isEmpty else { return }
        bytes.append(UInt8(ascii: "<"))
        bytes.append(contentsOf: tag.utf8)
        attribute("class", className)
        bytes.append(UInt8(ascii: ">"))
        text(value)
        bytes.append(contentsOf: "</".utf8)
        bytes.append(contentsOf: tag.utf8)
        bytes.append(UInt8(ascii: ">"))
    }

    static func escape(_ value: String) -> String {
        var escaped: [UInt8] = []
        appendEscaped(value, to: &escaped)
        return String(decoding: escaped, as: UTF8.self)
    }

    /// Escapes `& < > " '` and replaces NUL with U+FFFD. Works on UTF-8 bytes: these are all
    /// ASCII, and a byte below 0x80 is always a whole scalar, so bytes and scalars agree.
    static func appendEscaped(_ value: String, to out: inout [UInt8]) {
        var value = value
        value.withUTF8 { appendEscaped($0, to: &out) }
    }

    static func appendEscaped(_ value: UnsafeBufferPointer<UInt8>, to out: inout [UInt8]) {
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
            out.append(contentsOf: UnsafeBufferPointer(rebasing: value[runStart..<index]))
            out.append(contentsOf: UnsafeBufferPointer(start: replacement.utf8Start, count: replacement.utf8CodeUnitCount))
            runStart = index + 1
        }
        out.append(contentsOf: UnsafeBufferPointer(rebasing: value[runStart...]))
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
        case .null, .array, .object: return nil
        }
    }
}
