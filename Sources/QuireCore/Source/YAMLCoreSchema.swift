/// What a YAML scalar means under the YAML 1.2 core schema, so `no`, `yes`, `on` and `off` stay
/// text (YAML 1.1 made them booleans, the "Norway problem"). Quoted and block scalars are text;
/// plain ones are matched here; the standard tags force a meaning.
enum YAMLCoreSchema {
    enum Meaning: Equatable {
        case value(SourceNode.Value)
        /// `.inf`, `.nan`, or a float too large for a Double.
        case notFinite
        /// An octal or hex integer beyond 64 bits.
        case integerTooLarge
        /// The text does not fit the explicit tag.
        case mismatch(expected: String)
    }

    static let tagPrefix = "tag:yaml.org,2002:"

    /// The meaning of a plain (unquoted, untagged) scalar.
    static func resolvePlain(_ text: String) -> Meaning {
        // Most plain scalars are words. Only text starting with one of these bytes can be null
        // (`~`, `null`, ...), a boolean (`t`, `f`, ...) or a number (a sign, a digit, `.`);
        // anything else is text, without the checks below (each copies the text's bytes).
        guard let first = text.utf8.first else { return .value(.null) }
        if !Self.mayStartNonText(first) { return .value(.string(text)) }
        // A letter or `~` may start a null or a boolean, never a number (a sign, a digit or `.`):
        // words like `navigate` skip the number checks, which copy the text's bytes.
        if !Self.mayStartNumber(first) {
            if isNull(text) { return .value(.null) }
            if let flag = bool(text) { return .value(.bool(flag)) }
            return .value(.string(text))
        }
        return resolvePlainFully(text)
    }

    static func mayStartNumber(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: "+") || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".")
            || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
    }

    /// `resolvePlain` without its shortcut (`FastPathTests` compares the two).
    static func resolvePlainFully(_ text: String) -> Meaning {
        if isNull(text) { return .value(.null) }
        if let flag = bool(text) { return .value(.bool(flag)) }
        if let integer = integer(text) { return integer }
        if let number = float(text) { return number }
        return .value(.string(text))
    }

    /// The meaning of a scalar under an explicit standard tag (`str`, `int`, ... without prefix),
    /// or nil when the tag is not one a scalar can carry.
    static func resolve(_ text: String, tag name: String) -> Meaning? {
        switch name {
        case "str":
            return .value(.string(text))
        case "null":
            return isNull(text) ? .value(.null) : .mismatch(expected: "null")
        case "bool":
            return bool(text).map { .value(.bool($0)) } ?? .mismatch(expected: "a boolean")
        case "int":
            return integer(text) ?? .mismatch(expected: "an integer")
        case "float":
            if let number = float(text) { return number }
            if case .value(.integer(let integer))? = integer(text) { return .value(.number(Double(integer))) }
            return integer(text) ?? .mismatch(expected: "a number")
        default:
            return nil
        }
    }

    /// Whether a plain scalar starting with `byte` may be something other than text.
    static func mayStartNonText(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "~"), UInt8(ascii: "n"), UInt8(ascii: "N"), UInt8(ascii: "t"), UInt8(ascii: "T"),
            UInt8(ascii: "f"), UInt8(ascii: "F"), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."),
            UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        default:
            return false
        }
    }

    private static func isNull(_ text: String) -> Bool {
        text.isEmpty || text == "~" || text == "null" || text == "Null" || text == "NULL"
    }

    private static func bool(_ text: String) -> Bool? {
        switch text {
        case "true", "True", "TRUE": return true
        case "false", "False", "FALSE": return false
        default: return nil
        }
    }

    /// `[-+]?[0-9]+`, `0o[0-7]+`, `0x[0-9a-fA-F]+`. A decimal beyond 64 bits becomes a Double, as
    /// in JSON.
    private static func integer(_ text: String) -> Meaning? {
        let utf8 = Array(text.utf8)
        guard let first = utf8.first else { return nil }
        if utf8.count > 2, first == 0x30, utf8[1] == 0x6F || utf8[1] == 0x78 {  // 0o or 0x
            let radix = utf8[1] == 0x6F ? 8 : 16
            let digits = String(decoding: utf8[2...], as: UTF8.self)
            guard digits.utf8.allSatisfy({ isDigit($0, radix: radix) }) else { return nil }
            return Int(digits, radix: radix).map { .value(.integer($0)) } ?? .integerTooLarge
        }
        let unsigned = first == 0x2B || first == 0x2D ? utf8.dropFirst() : utf8[...]
        guard !unsigned.isEmpty, unsigned.allSatisfy({ isDigit($0, radix: 10) }) else { return nil }
        if let integer = Int(text) { return .value(.integer(integer)) }
        guard let number = Double(text), number.isFinite else { return .notFinite }
        return .value(.number(number))
    }

    /// `[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?`, and the refused `.inf` / `.nan`.
    private static func float(_ text: String) -> Meaning? {
        let utf8 = Array(text.utf8)
        var index = 0
        if index < utf8.count, utf8[index] == 0x2B || utf8[index] == 0x2D { index += 1 }
        let special = String(decoding: utf8[index...], as: UTF8.self)
        if [".inf", ".Inf", ".INF"].contains(special) { return .notFinite }
        if index == 0, [".nan", ".NaN", ".NAN"].contains(special) { return .notFinite }

        func digits() -> Int {
            let start = index
            while index < utf8.count, isDigit(utf8[index], radix: 10) { index += 1 }
            return index - start
        }
        if index < utf8.count, utf8[index] == 0x2E {  // .5
            index += 1
            guard digits() > 0 else { return nil }
        } else {
            guard digits() > 0 else { return nil }
            if index < utf8.count, utf8[index] == 0x2E {
                index += 1
                _ = digits()
            }
        }
        if index < utf8.count, utf8[index] | 0x20 == 0x65 {  // e or E
            index += 1
            if index < utf8.count, utf8[index] == 0x2B || utf8[index] == 0x2D { index += 1 }
            guard digits() > 0 else { return nil }
        }
        guard index == utf8.count else { return nil }
        // Swift's parser wants a digit before the point.
        var normalized = text
        if let dot = normalized.firstIndex(of: "."), dot == normalized.startIndex || !(normalized[normalized.index(before: dot)].isNumber) {
            normalized.insert("0", at: dot)
        }
        guard let number = Double(normalized), number.isFinite else { return .notFinite }
        return .value(.number(number))
    }

    private static func isDigit(_ byte: UInt8, radix: Int) -> Bool {
        switch radix {
        case 8: return byte &- 0x30 < 8
        case 16: return byte &- 0x30 < 10 || (byte | 0x20) &- 0x61 < 6
        default: return byte &- 0x30 < 10
        }
    }
}
