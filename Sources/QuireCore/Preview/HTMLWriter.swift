import QuireModel

/// Builds an HTML document as text. Everything that came from content goes through `text(_:)`
/// or `attribute(_:_:)`, which escape `& < > " '`; only our own fixed markup goes through `raw(_:)`.
struct HTMLWriter {
    private(set) var output = ""

    init() { output.reserveCapacity(16 * 1024) }

    mutating func raw(_ markup: String) { output += markup }

    mutating func text(_ value: String) { output += Self.escape(value) }

    /// ` name="value"`, escaped; nothing when the value is nil.
    mutating func attribute(_ name: String, _ value: String?) {
        guard let value else { return }
        output += " \(name)=\"\(Self.escape(value))\""
    }

    /// `<tag class="...">text</tag>`, skipped when the text is nil or empty.
    mutating func element(_ tag: String, class className: String? = nil, _ value: String?) {
        guard let value, !value.isEmpty else { return }
        output += "<\(tag)"
        attribute("class", className)
        output += ">"
        text(value)
        output += "</\(tag)>"
    }

    var bytes: [UInt8] { Array(output.utf8) }

    static func escape(_ value: String) -> String {
        var escaped = ""
        escaped.reserveCapacity(value.utf8.count)
        for character in value.unicodeScalars {
            switch character {
            case "&": escaped += "&amp;"
            case "<": escaped += "&lt;"
            case ">": escaped += "&gt;"
            case "\"": escaped += "&quot;"
            case "'": escaped += "&#39;"
            case "\0": escaped += "\u{FFFD}"
            default: escaped.unicodeScalars.append(character)
            }
        }
        return escaped
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
