/// A strict RFC 8259 JSON reader that keeps the position of every value, which Foundation's
/// parser cannot give. It works on bytes (the text is already checked as UTF-8) and keeps its
/// nesting on explicit stacks, so depth is bounded by the limit, not by the thread stack.
struct JSONSourceReader {
    private let bytes: UnsafeBufferPointer<UInt8>
    private var index: Int
    /// Where line 1 starts (after a byte-order mark).
    private let origin: Int
    // Line breaks only occur between tokens (a JSON string cannot hold one), so skipping
    // whitespace counts lines, and scanning strings counts the UTF-8 continuation bytes that
    // make a column differ from a byte offset.
    private var line = 1
    private var lineStart: Int
    private var continuationBytesOnLine = 0
    private var tree: SourceTreeBuilder
    private let file: String

    static func read(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int, file: String, limits: SourceLimits) throws(Diagnostic)
        -> SourceNode
    {
        var reader = JSONSourceReader(bytes: bytes, start: start, file: file, limits: limits)
        return try reader.readDocument()
    }

    private init(bytes: UnsafeBufferPointer<UInt8>, start: Int, file: String, limits: SourceLimits) {
        self.bytes = bytes
        self.index = start
        self.origin = start
        self.lineStart = start
        self.tree = SourceTreeBuilder(file: file, limits: limits)
        self.file = file
    }

    // MARK: Structure

    private mutating func readDocument() throws(Diagnostic) -> SourceNode {
        var expectsValue = true
        while true {
            skipWhitespace()
            if expectsValue {
                try readValue()
                // A freshly opened, non-empty container wants its first value next.
                expectsValue = pendingValue
                pendingValue = false
            } else {
                guard let isObject = tree.innermostIsObject else { break }
                guard index < bytes.count else { throw unclosedInnermost() }
                let byte = bytes[index]
                if byte == 0x2C {  // ,
                    index += 1
                    skipWhitespace()
                    if isObject {
                        if isNext(0x7D) { throw error(SourceMessages.trailingComma(before: "}")) }
                        try readKey()
                    } else if isNext(0x5D) {
                        throw error(SourceMessages.trailingComma(before: "]"))
                    }
                    expectsValue = true
                } else if byte == (isObject ? 0x7D : 0x5D) {  // } or ]
                    index += 1
                    tree.close()
                } else if isObject {
                    throw error(SourceMessages.expectedAfterMember(found: describeNext()))
                } else {
                    throw error(SourceMessages.expectedAfterItem(found: describeNext()))
                }
            }
            if tree.isComplete, let root = tree.root {
                skipWhitespace()
                guard index >= bytes.count else { throw error(SourceMessages.trailingContent(found: describeNext())) }
                return root
            }
        }
        throw error(SourceMessages.expectedValue(found: describeNext()))
    }

    /// Set by `readValue` when it opened a container that has a first child to read.
    private var pendingValue = false

    private mutating func readValue() throws(Diagnostic) {
        guard index < bytes.count else {
            if tree.innermostIsObject != nil { throw unclosedInnermost() }
            throw error(SourceMessages.expectedValue(found: describeNext()))
        }
        let start = index
        switch bytes[index] {
        case 0x7B:  // {
            try tree.open(object: true, at: position(start))
            index += 1
            skipWhitespace()
            if isNext(0x7D) {
                index += 1
                tree.close()
            } else {
                try readKey()
                pendingValue = true
            }
        case 0x5B:  // [
            try tree.open(object: false, at: position(start))
            index += 1
            skipWhitespace()
            if isNext(0x5D) {
                index += 1
                tree.close()
            } else {
                pendingValue = true
            }
        case 0x22:  // "
            let at = position(start)
            let text = try readString()
            try tree.string(text, at: at)
        case 0x74 where matches("true"):
            index += 4
            tree.value(SourceNode(.bool(true), at: position(start)))
        case 0x66 where matches("false"):
            index += 5
            tree.value(SourceNode(.bool(false), at: position(start)))
        case 0x6E where matches("null"):
            index += 4
            tree.value(SourceNode(.null, at: position(start)))
        case 0x2D, 0x30...0x39:  // - 0-9
            let at = position(start)
            tree.value(SourceNode(try readNumber(), at: at))
        default:
            throw error(SourceMessages.expectedValue(found: describeNext()))
        }
    }

    /// Reads `"key"` and the `:` after it; the index is at the opening quote.
    private mutating func readKey() throws(Diagnostic) {
        guard isNext(0x22) else {
            if index >= bytes.count { throw unclosedInnermost() }
            throw error(SourceMessages.expectedKey(found: describeNext()))
        }
        let at = position(index)
        let key = try readString()
        try tree.key(key, at: at)
        skipWhitespace()
        guard isNext(0x3A) else { throw error(SourceMessages.expectedColon(after: key, found: describeNext())) }
        index += 1
    }

    // MARK: Scalars

    private mutating func readString() throws(Diagnostic) -> String {
        let open = index
        index += 1
        var runStart = index
        var decoded: [UInt8] = []
        var hasEscapes = false
        while true {
            guard index < bytes.count else {
                throw error(SourceMessages.unclosed("string", openedAt: exactPosition(open)))
            }
            let byte = bytes[index]
            if byte >= 0x20 && byte < 0x80 && byte != 0x22 && byte != 0x5C {
                index += 1
                continue
            }
            if byte >= 0x80 {
                if byte & 0xC0 == 0x80 { continuationBytesOnLine += 1 }
                index += 1
                continue
            }
            if byte == 0x22 { break }
            if byte == 0x5C {  // backslash
                if !hasEscapes {
                    hasEscapes = true
                    decoded.reserveCapacity(index - runStart + 16)
                }
                decoded.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<index]))
                try readEscape(into: &decoded)
                runStart = index
                continue
            }
            if byte == 0x0A || byte == 0x0D {
                throw error(SourceMessages.stringNotClosedOnLine(openedAt: exactPosition(open)))
            }
            throw error(SourceMessages.controlCharacter(byte))
        }
        let run = UnsafeBufferPointer(rebasing: bytes[runStart..<index])
        index += 1
        guard hasEscapes else { return String(decoding: run, as: UTF8.self) }
        decoded.append(contentsOf: run)
        return String(decoding: decoded, as: UTF8.self)
    }

    /// Decodes one escape; the index is at the backslash and ends after the escape.
    private mutating func readEscape(into decoded: inout [UInt8]) throws(Diagnostic) {
        let start = index
        guard index + 1 < bytes.count else {
            throw error(SourceMessages.unclosed("string", openedAt: exactPosition(start)))
        }
        let letter = bytes[index + 1]
        index += 2
        switch letter {
        case 0x22, 0x5C, 0x2F: decoded.append(letter)
        case 0x62: decoded.append(0x08)
        case 0x66: decoded.append(0x0C)
        case 0x6E: decoded.append(0x0A)
        case 0x72: decoded.append(0x0D)
        case 0x74: decoded.append(0x09)
        case 0x75:  // u
            let unit = try readHexUnit(escapeStart: start)
            var scalarValue = UInt32(unit)
            if (0xD800...0xDBFF).contains(unit) {
                guard index + 1 < bytes.count, bytes[index] == 0x5C, bytes[index + 1] == 0x75 else {
                    throw error(SourceMessages.loneSurrogate(text(start, start + 6)), at: start)
                }
                let lowStart = index
                index += 2
                let low = try readHexUnit(escapeStart: lowStart)
                guard (0xDC00...0xDFFF).contains(low) else {
                    throw error(SourceMessages.loneSurrogate(text(start, start + 6)), at: start)
                }
                scalarValue = 0x10000 + ((UInt32(unit) - 0xD800) << 10) + (UInt32(low) - 0xDC00)
            } else if (0xDC00...0xDFFF).contains(unit) {
                throw error(SourceMessages.loneSurrogate(text(start, start + 6)), at: start)
            }
            if let scalar = Unicode.Scalar(scalarValue) { decoded.append(contentsOf: scalar.utf8) }
        default:
            throw error(SourceMessages.invalidEscape(text(start, min(start + 2, bytes.count))), at: start)
        }
    }

    /// Reads the four hex digits after `\u`.
    private mutating func readHexUnit(escapeStart: Int) throws(Diagnostic) -> UInt16 {
        var unit: UInt16 = 0
        for offset in 0..<4 {
            guard index + offset < bytes.count, let digit = hexValue(bytes[index + offset]) else {
                let end = min(index + offset + 1, bytes.count)
                throw error(SourceMessages.invalidEscape(text(escapeStart, end)), at: escapeStart)
            }
            unit = unit << 4 | UInt16(digit)
        }
        index += 4
        return unit
    }

    private mutating func readNumber() throws(Diagnostic) -> SourceNode.Value {
        let start = index
        var isInteger = true
        if bytes[index] == 0x2D { index += 1 }
        guard index < bytes.count, isDigit(bytes[index]) else {
            throw error(SourceMessages.expectedDigit(after: text(start, index)))
        }
        if bytes[index] == 0x30 {
            index += 1
            if index < bytes.count, isDigit(bytes[index]) {
                skipDigits()
                throw error(SourceMessages.leadingZero(text(start, index)), at: start)
            }
        } else {
            skipDigits()
        }
        if isNext(0x2E) {  // .
            isInteger = false
            index += 1
            guard index < bytes.count, isDigit(bytes[index]) else {
                throw error(SourceMessages.expectedDigit(after: text(start, index)))
            }
            skipDigits()
        }
        if index < bytes.count, bytes[index] | 0x20 == 0x65 {  // e or E
            isInteger = false
            index += 1
            if index < bytes.count, bytes[index] == 0x2B || bytes[index] == 0x2D { index += 1 }
            guard index < bytes.count, isDigit(bytes[index]) else {
                throw error(SourceMessages.expectedDigit(after: text(start, index)))
            }
            skipDigits()
        }
        if isInteger, let integer = parseInteger(start, index) { return .integer(integer) }
        let literal = text(start, index)
        guard let number = Double(literal), number.isFinite else {
            throw error(SourceMessages.notFinite(literal), at: start)
        }
        return .number(number)
    }

    /// The integer in `bytes[start..<end]`, or nil when it does not fit `Int`.
    private func parseInteger(_ start: Int, _ end: Int) -> Int? {
        let negative = bytes[start] == 0x2D
        var value = 0
        for position in (negative ? start + 1 : start)..<end {
            let digit = Int(bytes[position] &- 0x30)
            let (shifted, overflowA) = value.multipliedReportingOverflow(by: 10)
            // Accumulate negatively so Int.min fits.
            let (next, overflowB) = shifted.subtractingReportingOverflow(digit)
            if overflowA || overflowB { return nil }
            value = next
        }
        if negative { return value }
        let (positive, overflow) = (0).subtractingReportingOverflow(value)
        return overflow ? nil : positive
    }

    // MARK: Bytes

    private mutating func skipWhitespace() {
        while index < bytes.count {
            let byte = bytes[index]
            if byte == 0x20 || byte == 0x09 {
                index += 1
            } else if byte == 0x0A || byte == 0x0D {
                index += 1
                // CR LF is one break, counted at the LF; a lone CR breaks the line too.
                if byte == 0x0D && index < bytes.count && bytes[index] == 0x0A { continue }
                line += 1
                lineStart = index
                continuationBytesOnLine = 0
            } else {
                return
            }
        }
    }

    private mutating func skipDigits() {
        while index < bytes.count, isDigit(bytes[index]) { index += 1 }
    }

    private func isDigit(_ byte: UInt8) -> Bool { byte &- 0x30 < 10 }

    private func isNext(_ byte: UInt8) -> Bool { index < bytes.count && bytes[index] == byte }

    private func matches(_ word: StaticString) -> Bool {
        let length = word.utf8CodeUnitCount
        guard index + length <= bytes.count else { return false }
        let pointer = word.utf8Start
        for offset in 0..<length where bytes[index + offset] != pointer[offset] { return false }
        // `trueish` is not `true`: the word must end here.
        return index + length == bytes.count || !isWordByte(bytes[index + length])
    }

    private func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case 0x30...0x39: return byte - 0x30
        case 0x41...0x46: return byte - 0x41 + 10
        case 0x61...0x66: return byte - 0x61 + 10
        default: return nil
        }
    }

    private func isWordByte(_ byte: UInt8) -> Bool {
        (byte | 0x20) &- 0x61 < 26 || isDigit(byte) || byte == 0x5F || byte == 0x2D || byte == 0x2E || byte == 0x2B
    }

    private func text(_ start: Int, _ end: Int) -> String {
        String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<min(end, bytes.count)]), as: UTF8.self)
    }

    /// What is at the index, as a message quotes it: a whole word, one character, or the end.
    private func describeNext() -> String {
        guard index < bytes.count else { return "the end of the file" }
        let byte = bytes[index]
        if isWordByte(byte) {
            var end = index
            while end < bytes.count, end - index < 40, isWordByte(bytes[end]) { end += 1 }
            return "'\(text(index, end))'"
        }
        if byte < 0x20 || byte == 0x7F {
            return "a control character (U+00\(byte < 16 ? "0" : "")\(String(byte, radix: 16, uppercase: true)))"
        }
        if byte == 0x27 { return "\"'\"" }
        var end = index + 1
        while end < bytes.count, bytes[end] & 0xC0 == 0x80 { end += 1 }
        return "'\(text(index, end))'"
    }

    // MARK: Diagnostics

    /// The position of a token that starts at `offset`, on the current line, with nothing but
    /// ASCII scanned after it.
    private func position(_ offset: Int) -> SourcePosition {
        SourcePosition(line: line, column: offset - lineStart - continuationBytesOnLine + 1)
    }

    /// The position of any offset, counted from the start: for diagnostics, off the fast path.
    private func exactPosition(_ offset: Int) -> SourcePosition {
        var tracker = SourcePositionTracker(bytes, origin: origin)
        return tracker.position(at: offset)
    }

    private func error(_ message: String, at offset: Int? = nil) -> Diagnostic {
        .error(file, at: exactPosition(offset ?? index), message)
    }

    private func unclosedInnermost() -> Diagnostic {
        guard let frame = tree.innermost else { return error(SourceMessages.expectedValue(found: describeNext())) }
        return error(SourceMessages.unclosed(frame.isObject ? "object" : "list", openedAt: frame.start))
    }
}
