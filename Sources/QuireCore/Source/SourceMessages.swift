/// Every message the source parsers give, in one place: lower-case, saying what is wrong and,
/// where it helps, what to write instead.
enum SourceMessages {
    // Both formats.
    static let emptyFile = "the file is empty: a page needs at least a `sections:` list"
    static func invalidUTF8(_ byte: UInt8) -> String {
        "invalid UTF-8 (byte 0x\(hex(byte).lowercased())): save the file as UTF-8"
    }
    static let nulByte = "the file contains a NUL byte (0x00): remove it, source files are text"
    static func tooDeep(limit: Int) -> String {
        "nesting is deeper than \(limit) levels (limits.max_depth in site.yaml)"
    }
    static func stringTooLong(_ length: Int, limit: Int) -> String {
        "the text is \(length) bytes, over the \(limit)-byte limit (limits.max_string_bytes in site.yaml)"
    }
    static func duplicateKey(_ key: String, firstLine: Int) -> String {
        "duplicate key '\(key)' (first at line \(firstLine))"
    }
    static func notFinite(_ text: String) -> String {
        "'\(text)' is not a finite number: write a number that fits a 64-bit float"
    }

    // JSON.
    static func expectedValue(found: String) -> String { "expected a value, found \(found)" }
    static func expectedKey(found: String) -> String { "expected a key in double quotes, found \(found)" }
    static func expectedColon(after key: String, found: String) -> String {
        "expected ':' after the key '\(key)', found \(found)"
    }
    static func expectedAfterMember(found: String) -> String {
        "expected ',' or '}' after an object member, found \(found)"
    }
    static func expectedAfterItem(found: String) -> String {
        "expected ',' or ']' after a list item, found \(found)"
    }
    static func trailingComma(before closer: String) -> String {
        "a trailing ',' before '\(closer)' is not allowed in JSON: remove it"
    }
    static func unclosed(_ what: String, openedAt position: SourcePosition) -> String {
        "unexpected end of file: the \(what) opened at \(position) is not closed"
    }
    static func trailingContent(found: String) -> String {
        "unexpected \(found) after the end of the JSON value: a file holds one value"
    }
    static func stringNotClosedOnLine(openedAt position: SourcePosition) -> String {
        "the string opened at \(position) is not closed on its line: end it with '\"' or write a line break as \\n"
    }
    static func controlCharacter(_ byte: UInt8) -> String {
        "control character U+00\(hex(byte)) in a string: write it as an escape such as \\n"
    }
    static func invalidEscape(_ text: String) -> String {
        "invalid escape '\(text)': JSON allows \\\" \\\\ \\/ \\b \\f \\n \\r \\t and \\uXXXX"
    }
    static func loneSurrogate(_ text: String) -> String {
        "lone surrogate '\(text)' in a string: a \\uD800-\\uDFFF escape must be half of a pair"
    }
    static func leadingZero(_ text: String) -> String {
        "the number '\(text)' has a leading zero: JSON numbers do not"
    }
    static func expectedDigit(after text: String) -> String {
        "expected a digit after '\(text)'"
    }

    // YAML.
    static let anchorsAndAliases = "anchors and aliases are not allowed: write the value out in full"
    static let moreThanOneDocument = "more than one document: a source file holds one, remove this `---` and what follows"
    static func complexKey(_ kind: String) -> String {
        "a key must be plain text, not \(kind): write the key as text"
    }
    static func unsupportedTag(_ tag: String) -> String {
        "the tag '\(tag)' is not allowed: use plain values or !!str, !!int, !!float, !!bool, !!null, !!map, !!seq"
    }
    static func tagDoesNotFit(_ tag: String, _ kind: String) -> String {
        "the tag '\(tag)' does not fit \(kind)"
    }
    static func notOfTag(_ text: String, _ tag: String, _ expected: String) -> String {
        "'\(text)' is not \(expected), but it is tagged \(tag)"
    }
    static func integerTooLarge(_ text: String) -> String {
        "the integer '\(text)' is too large: it must fit 64 bits"
    }
    static func yamlSyntax(_ problem: String, context: String?, at position: SourcePosition?) -> String {
        guard let context, let position else { return "invalid YAML: \(problem)" }
        return "invalid YAML: \(problem) (\(context) at \(position))"
    }

    private static func hex(_ byte: UInt8) -> String {
        let digits = String(byte, radix: 16, uppercase: true)
        return byte < 16 ? "0" + digits : digits
    }
}
