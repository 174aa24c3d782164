public import QuireModel

/// Writes a page source as YAML in block style, as people write it: plain scalars where the
/// YAML 1.2 core schema reads them back as the same text, literal blocks (`|`) for text of
/// several lines (markdown), double quotes (JSON's escapes, which YAML shares) for the rest.
/// Comments are not kept (the caller says so before writing over a file that has some).
///
/// The text is read back with the build's own reader before it is returned: a value the reader
/// would read otherwise is written again with every string quoted, and nil is returned if even
/// that differs, so a save never writes what the pipeline would not read as the same document.
public enum YAMLWriter {
    public static func text(_ value: JSONValue) -> String? {
        for quoteEverything in [false, true] {
            var writer = Writer(quoteEverything: quoteEverything)
            writer.document(value)
            if readsBack(writer.out, as: value) { return writer.out }
        }
        return nil
    }

    private static func readsBack(_ text: String, as value: JSONValue) -> Bool {
        guard let read = try? SourceParser.parse(Array(text.utf8), format: .yaml, file: "draft") else { return false }
        // Compared as JSON text: an integer-valued number and the integer read back are one value.
        let compact = JSONWriter(pretty: false)
        return compact.bytes(read.json) == compact.bytes(value)
    }

    private struct Writer {
        let quoteEverything: Bool
        var out = ""

        mutating func document(_ value: JSONValue) {
            switch value {
            case .object(let object) where !object.isEmpty: mapping(object, indent: 0, continuesLine: false)
            case .array(let items) where !items.isEmpty: sequence(items, indent: 0)
            default: out += scalar(value, indent: 0) + "\n"
            }
        }

        /// `continuesLine`: the first key follows a `- ` already written.
        mutating func mapping(_ object: JSONObject, indent: Int, continuesLine: Bool) {
            for (index, member) in object.members.enumerated() {
                if index > 0 || !continuesLine { out += String(repeating: " ", count: indent) }
                out += key(member.key) + ":"
                value(member.value, indent: indent)
            }
        }

        mutating func sequence(_ items: [JSONValue], indent: Int) {
            for item in items {
                out += String(repeating: " ", count: indent) + "-"
                switch item {
                case .object(let object) where !object.isEmpty:
                    out += " "
                    mapping(object, indent: indent + 2, continuesLine: true)
                case .array(let nested) where !nested.isEmpty:
                    out += "\n"
                    sequence(nested, indent: indent + 2)
                default: out += " " + scalar(item, indent: indent + 2) + "\n"
                }
            }
        }

        /// The value of a key written at `indent`, after its colon.
        mutating func value(_ value: JSONValue, indent: Int) {
            switch value {
            case .object(let object) where !object.isEmpty:
                out += "\n"
                mapping(object, indent: indent + 2, continuesLine: false)
            case .array(let items) where !items.isEmpty:
                out += "\n"
                sequence(items, indent: indent + 2)
            default: out += " " + scalar(value, indent: indent + 2) + "\n"
            }
        }

        /// A scalar (or an empty collection); a literal block's lines are indented by `indent`.
        func scalar(_ value: JSONValue, indent: Int) -> String {
            switch value {
            case .string(let text):
                if !quoteEverything, let block = literalBlock(text, indent: indent) { return block }
                return !quoteEverything && isPlain(text) ? text : quoted(text)
            case .object: return "{}"
            case .array: return "[]"
            default: return JSONWriter(pretty: false).string(value)
            }
        }

        func key(_ text: String) -> String { !quoteEverything && isPlain(text) ? text : quoted(text) }

        /// A double-quoted scalar: what is not printable is escaped (YAML reads U+2028 and
        /// U+0085 raw as line breaks, which JSON's escaping leaves as they are).
        func quoted(_ text: String) -> String {
            var out = "\""
            for scalar in text.unicodeScalars {
                switch scalar {
                case "\"": out += "\\\""
                case "\\": out += "\\\\"
                case "\n": out += "\\n"
                case "\t": out += "\\t"
                case "\r": out += "\\r"
                case _ where Self.isPrintable(scalar): out.unicodeScalars.append(scalar)
                default:
                    let hex = String(scalar.value, radix: 16, uppercase: true)
                    out += "\\u" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
                }
            }
            return out + "\""
        }

        /// Text a plain scalar writes as itself: not empty, not read as another type, no
        /// indicator that starts YAML syntax, no `: ` or ` #`, printable characters only.
        func isPlain(_ text: String) -> Bool {
            guard let first = text.unicodeScalars.first, let last = text.unicodeScalars.last else { return false }
            if "-?:,[]{}#&*!|>'\"%@`. ".unicodeScalars.contains(first) || last == " " || last == ":" { return false }
            if text.contains(": ") || text.contains(" #") { return false }
            guard text.unicodeScalars.allSatisfy(Self.isPrintable) else { return false }
            return YAMLCoreSchema.resolvePlain(text) == .value(.string(text))
        }

        /// `|`, `|-` or `|+` and the text's lines, for text of several lines that a literal
        /// block holds exactly: printable, no carriage return, its first line not indented.
        func literalBlock(_ text: String, indent: Int) -> String? {
            guard text.contains("\n"), !text.contains("\r") else { return nil }
            guard text.unicodeScalars.allSatisfy({ $0 == "\n" || $0 == "\t" || Self.isPrintable($0) }) else { return nil }
            var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            guard let firstText = lines.first(where: { !$0.isEmpty }), !firstText.hasPrefix(" "), !firstText.hasPrefix("\t") else {
                return nil
            }
            if lines.prefix(while: { !$0.contains(where: { $0 != " " }) }).contains(where: { !$0.isEmpty }) { return nil }
            var trailing = 0
            while lines.count > 1, lines.last == "" {
                lines.removeLast()
                trailing += 1
            }
            let chomping = trailing == 0 ? "|-" : trailing == 1 ? "|" : "|+"
            // Trailing empty lines beyond the last line break are kept by `|+` as empty lines.
            let body = lines + Array(repeating: "", count: max(trailing - 1, 0))
            let margin = String(repeating: " ", count: indent)
            return chomping + "\n" + body.map { $0.isEmpty ? "" : margin + $0 }.joined(separator: "\n")
        }

        static func isPrintable(_ scalar: Unicode.Scalar) -> Bool {
            switch scalar.value {
            case 0x20...0x7E, 0xA0...0xD7FF, 0xE000...0xFFFD:
                return scalar.value != 0xFEFF && scalar.value != 0x2028 && scalar.value != 0x2029
            case 0x10000...0x10FFFF: return true
            default: return false
            }
        }
    }
}
