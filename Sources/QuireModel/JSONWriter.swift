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

    /// `append(_:depth:to:)` into a sink: a document written piece by piece in place.
    package func append(_ value: JSONValue, depth: Int, to out: inout ByteSink) {
        write(value, depth: depth, into: &out)
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
    /// Sixteen bytes at a time, then eight; a tail shorter than eight is read as the last eight
    /// bytes of the text, the lanes before `index` dropped (a text shorter than eight bytes is
    /// read byte by byte). Lanes are flagged exactly (`laneEscapes`), so no byte is looked at
    /// twice for an answer and none outside the text is read.
    static func firstEscape(in bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Int {
        guard let base = bytes.baseAddress else { return bytes.count }
        let count = bytes.count
        var index = start
        while index + 16 <= count {
            let mask = laneEscapes(UnsafeRawPointer(base + index).loadUnaligned(as: SIMD16<UInt8>.self))
            let low = UInt64(littleEndian: mask[0])
            let high = UInt64(littleEndian: mask[1])
            if low | high != 0 { return index + (low != 0 ? low.trailingZeroBitCount : 64 + high.trailingZeroBitCount) / 8 }
            index += 16
        }
        if index + 8 <= count {
            let mask = laneEscapes(UnsafeRawPointer(base + index).loadUnaligned(as: SIMD8<UInt8>.self))
            if mask != 0 { return index + mask.trailingZeroBitCount / 8 }
            index += 8
        }
        guard index < count else { return count }
        if count >= 8 {
            let skipped = 8 - (count - index)
            let mask = laneEscapes(UnsafeRawPointer(base + count - 8).loadUnaligned(as: SIMD8<UInt8>.self)) >> (8 * skipped)
            return mask != 0 ? index + mask.trailingZeroBitCount / 8 : count
        }
        while index < count, !needsEscape(base[index]) { index += 1 }
        return index
    }

    /// The high bit of each byte lane set where the byte needs an escape ("has less than" and
    /// "has zero byte" from Bit Twiddling Hacks, lane by lane: lanes cannot borrow from one
    /// another, so every flag is exact). Wrapping arithmetic and bit operations only, which
    /// compile to a few SSE2 or NEON instructions; Swift's SIMD comparisons (`.<`, `.==`) compile
    /// to a loop over the lanes.
    @inline(__always)
    static func flaggedLanes<Lanes: SIMD>(_ bytes: Lanes) -> Lanes where Lanes.Scalar == UInt8 {
        let ones = Lanes(repeating: 1)
        let quote = bytes ^ Lanes(repeating: 0x22)
        let backslash = bytes ^ Lanes(repeating: 0x5C)
        let delete = bytes ^ Lanes(repeating: 0x7F)
        let flagged =
            ((bytes &- Lanes(repeating: 0x20)) & ~bytes) | ((quote &- ones) & ~quote)
            | ((backslash &- ones) & ~backslash) | ((delete &- ones) & ~delete)
        return flagged & Lanes(repeating: 0x80)
    }

    /// `flaggedLanes` of sixteen bytes, read as two little-endian words.
    @inline(__always)
    static func laneEscapes(_ bytes: SIMD16<UInt8>) -> SIMD2<UInt64> {
        unsafeBitCast(flaggedLanes(bytes), to: SIMD2<UInt64>.self)
    }

    /// `flaggedLanes` of eight bytes, as one word read little-endian.
    @inline(__always)
    static func laneEscapes(_ bytes: SIMD8<UInt8>) -> UInt64 {
        UInt64(littleEndian: unsafeBitCast(flaggedLanes(bytes), to: UInt64.self))
    }

    /// Whether any of the eight bytes of `word` (in memory order) needs an escape.
    static func anyNeedsEscape(_ word: UInt64) -> Bool { laneEscapes(unsafeBitCast(word, to: SIMD8<UInt8>.self)) != 0 }

    @inline(__always)
    static func needsEscape(_ byte: UInt8) -> Bool {
        byte < 0x20 || byte == 0x7F || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\")
    }
}
