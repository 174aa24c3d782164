public import Foundation

/// Writes `JSONValue`s as UTF-8 JSON: keys in their stored order, two-space indentation when
/// pretty, `/` not escaped, and a trailing newline, so equal values give equal bytes.
///
/// Works on bytes throughout: strings are copied from their UTF-8 storage in runs between
/// escapes, numbers are written digit by digit, and indentation is copied from one fixed
/// run of spaces, so a page costs a few appends per value and no temporary strings.
public struct JSONWriter: Sendable {
    public var pretty: Bool

    public init(pretty: Bool = true) { self.pretty = pretty }

    public func data(_ value: JSONValue) -> Data { Data(bytes(value)) }

    public func string(_ value: JSONValue) -> String { String(decoding: bytes(value), as: UTF8.self) }

    public func bytes(_ value: JSONValue) -> [UInt8] {
        // Published pages are ~10-20 KB; starting big skips the first few regrowths.
        var sink = ByteSink(capacity: 32 * 1024)
        write(value, depth: 0, into: &sink)
        if pretty { sink.append(UInt8(ascii: "\n")) }
        return sink.array()
    }

    /// Appends `value` as it would appear nested `depth` levels deep (no trailing newline), so a
    /// document can be put together from pieces encoded once and kept.
    public func append(_ value: JSONValue, depth: Int, to out: inout [UInt8]) {
        var sink = ByteSink(capacity: 1024)
        write(value, depth: depth, into: &sink)
        sink.withBytes { out.append(contentsOf: $0) }
    }

    /// Appends the start of member `key` of an object whose members stand `depth` levels deep, as
    /// `bytes` writes it: the comma unless it is the first, the line break and indentation, the key
    /// and the colon. Its value follows with `append(_:depth:to:)` (or bytes encoded so before).
    public func appendKey(_ key: String, first: Bool, depth: Int, to out: inout [UInt8]) {
        var sink = ByteSink(capacity: key.utf8.count + 2 * depth + 8)
        if !first { sink.append(UInt8(ascii: ",")) }
        newline(depth, into: &sink)
        Self.writeString(key, into: &sink)
        if pretty { sink.append(": ") } else { sink.append(UInt8(ascii: ":")) }
        sink.withBytes { out.append(contentsOf: $0) }
    }

    private func newline(_ depth: Int, into out: inout ByteSink) {
        guard pretty else { return }
        out.append(UInt8(ascii: "\n"))
        out.append(repeating: UInt8(ascii: " "), count: depth * 2)
    }

    private func write(_ value: JSONValue, depth: Int, into out: inout ByteSink) {
        switch value {
        case .null: out.append("null")
        case .bool(let flag): out.append(flag ? "true" : "false")
        case .integer(let number): Self.writeInteger(number, into: &out)
        case .number(let number):
            var text = Self.format(number)
            text.withUTF8 { out.append($0) }
        case .string(let text): Self.writeString(text, into: &out)
        case .encoded(let json): out.append(json.bytes)
        case .array(let items):
            if items.isEmpty {
                out.append("[]")
                return
            }
            out.append(UInt8(ascii: "["))
            // Elements are read in place through the buffer: iterating the array would copy
            // (retain and release) every element on the way.
            items.withUnsafeBufferPointer { items in
                for index in items.indices {
                    if index > 0 { out.append(UInt8(ascii: ",")) }
                    newline(depth + 1, into: &out)
                    write(items[index], depth: depth + 1, into: &out)
                }
            }
            newline(depth, into: &out)
            out.append(UInt8(ascii: "]"))
        case .object(let object):
            if object.isEmpty {
                out.append("{}")
                return
            }
            out.append(UInt8(ascii: "{"))
            object.members.withUnsafeBufferPointer { members in
                for index in members.indices {
                    if index > 0 { out.append(UInt8(ascii: ",")) }
                    newline(depth + 1, into: &out)
                    Self.writeString(members[index].key, into: &out)
                    if pretty { out.append(": ") } else { out.append(UInt8(ascii: ":")) }
                    write(members[index].value, depth: depth + 1, into: &out)
                }
            }
            newline(depth, into: &out)
            out.append(UInt8(ascii: "}"))
        }
    }

    /// Finite numbers only: sources with NaN or infinity are refused before they get here.
    static func format(_ number: Double) -> String {
        if number == number.rounded(), abs(number) < 1e15 { return String(Int(number)) }
        return "\(number)"
    }

    /// Decimal digits, as `String(number)` writes them.
    package static func writeInteger(_ number: Int, into out: inout ByteSink) {
        if number < 0 { out.append(UInt8(ascii: "-")) }
        // The magnitude as unsigned, so `Int.min` needs no special case.
        var magnitude = number.magnitude
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)  // 24 bytes: enough for 20 digits
        withUnsafeMutableBytes(of: &digits) { buffer in
            var start = buffer.count
            repeat {
                start -= 1
                buffer[start] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
            } while magnitude > 0
            UnsafeRawBufferPointer(rebasing: buffer[start...]).withMemoryRebound(to: UInt8.self) { out.append($0) }
        }
    }

    package static func writeString(_ text: String, into out: inout ByteSink) {
        // Native strings hand out their storage as is; only others are copied first.
        if text.utf8.withContiguousStorageIfAvailable({ writeString($0, into: &out) }) != nil { return }
        var copy = text
        copy.withUTF8 { writeString($0, into: &out) }
    }

    package static func writeString(_ bytes: UnsafeBufferPointer<UInt8>, into out: inout ByteSink) {
        out.append(UInt8(ascii: "\""))
        writeStringContent(bytes, into: &out)
        out.append(UInt8(ascii: "\""))
    }

    /// A string's content, escaped, without its quotes.
    package static func writeStringContent(_ bytes: UnsafeBufferPointer<UInt8>, into out: inout ByteSink) {
        // Text is copied in runs between escapes: a string without any (most of them) is one
        // scan and one copy.
        var runStart = 0
        while true {
            let found = firstEscape(in: bytes, from: runStart)
            out.append(UnsafeBufferPointer(rebasing: bytes[runStart..<found]))
            guard found < bytes.count else { break }
            let byte = bytes[found]
            switch byte {
            case UInt8(ascii: "\""): out.append("\\\"")
            case UInt8(ascii: "\\"): out.append("\\\\")
            case 0x0A: out.append("\\n")
            case 0x0D: out.append("\\r")
            case 0x09: out.append("\\t")
            default:
                let digits: StaticString = "0123456789abcdef"
                let hex = UnsafeBufferPointer(start: digits.utf8Start, count: digits.utf8CodeUnitCount)
                out.append("\\u00")
                out.append(hex[Int(byte >> 4)])
                out.append(hex[Int(byte & 0x0F)])
            }
            runStart = found + 1
        }
    }

    /// The index of the first byte at or after `start` that needs an escape, or `bytes.count`.
    /// Eight bytes at a time: the lowest flagged byte of `escapeMask` is exactly the first one,
    /// so no byte is looked at twice.
    static func firstEscape(in bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Int {
        guard let base = bytes.baseAddress else { return bytes.count }
        var index = start
        while index + 8 <= bytes.count {
            let word = UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self)
            let mask = escapeMask(UInt64(littleEndian: word))
            if mask != 0 { return index + mask.trailingZeroBitCount / 8 }
            index += 8
        }
        while index < bytes.count, !needsEscape(base[index]) { index += 1 }
        return index
    }

    /// The high bit of each byte of `word` (read little-endian) set where it may need an escape
    /// ("has less than" and "has zero byte" from Bit Twiddling Hacks). A borrow can only flag
    /// a byte above one that truly needs an escape, so the lowest flagged byte is exact and zero
    /// means none does. Bytes of multi-byte characters (0x80 and up) never match.
    @inline(__always)
    static func escapeMask(_ word: UInt64) -> UInt64 {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highBits: UInt64 = 0x8080_8080_8080_8080
        func zeroBytes(_ value: UInt64) -> UInt64 { (value &- ones) & ~value }
        let control = (word &- ones &* 0x20) & ~word
        return
            (control | zeroBytes(word ^ (ones &* 0x22)) | zeroBytes(word ^ (ones &* 0x5C))
            | zeroBytes(word ^ (ones &* 0x7F))) & highBits
    }

    /// Whether any of the eight bytes of `word` needs an escape.
    static func anyNeedsEscape(_ word: UInt64) -> Bool { escapeMask(word) != 0 }

    @inline(__always)
    static func needsEscape(_ byte: UInt8) -> Bool {
        byte < 0x20 || byte == 0x7F || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\")
    }
}
