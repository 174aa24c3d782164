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
        var out: [UInt8] = []
        // Published pages are ~10 KB; starting big skips the first few regrowths.
        out.reserveCapacity(16 * 1024)
        write(value, depth: 0, into: &out)
        if pretty { out.append(UInt8(ascii: "\n")) }
        return out
    }

    /// Appends `value` as it would appear nested `depth` levels deep (no trailing newline), so a
    /// document can be put together from pieces encoded once and kept.
    public func append(_ value: JSONValue, depth: Int, to out: inout [UInt8]) {
        write(value, depth: depth, into: &out)
    }

    private static let spaces = [UInt8](repeating: UInt8(ascii: " "), count: 128)

    private func newline(_ depth: Int, into out: inout [UInt8]) {
        guard pretty else { return }
        out.append(UInt8(ascii: "\n"))
        var remaining = depth * 2
        while remaining > 0 {
            let count = min(remaining, Self.spaces.count)
            out.append(contentsOf: Self.spaces[0..<count])
            remaining -= count
        }
    }

    private func write(_ value: JSONValue, depth: Int, into out: inout [UInt8]) {
        switch value {
        case .null: Self.append("null", to: &out)
        case .bool(let flag): Self.append(flag ? "true" : "false", to: &out)
        case .integer(let number): Self.writeInteger(number, into: &out)
        case .number(let number): out.append(contentsOf: Self.format(number).utf8)
        case .string(let text): Self.writeString(text, into: &out)
        case .array(let items):
            if items.isEmpty { Self.append("[]", to: &out); return }
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
            if object.isEmpty { Self.append("{}", to: &out); return }
            out.append(UInt8(ascii: "{"))
            object.members.withUnsafeBufferPointer { members in
                for index in members.indices {
                    if index > 0 { out.append(UInt8(ascii: ",")) }
                    newline(depth + 1, into: &out)
                    Self.writeString(members[index].key, into: &out)
                    out.append(UInt8(ascii: ":"))
                    if pretty { out.append(UInt8(ascii: " ")) }
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

    private static func append(_ text: StaticString, to out: inout [UInt8]) {
        out.append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    /// Decimal digits, as `String(number)` writes them.
    static func writeInteger(_ number: Int, into out: inout [UInt8]) {
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
            out.append(contentsOf: UnsafeRawBufferPointer(rebasing: buffer[start...]))
        }
    }

    static func writeString(_ text: String, into out: inout [UInt8]) {
        // Native strings hand out their storage as is; only others are copied first.
        if text.utf8.withContiguousStorageIfAvailable({ writeString($0, into: &out) }) != nil { return }
        var copy = text
        copy.withUTF8 { writeString($0, into: &out) }
    }

    private static func writeString(_ bytes: UnsafeBufferPointer<UInt8>, into out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        // Text is copied in runs; only the bytes that need an escape are handled one by one.
        var runStart = 0
        var index = 0
        while index < bytes.count {
            // Eight bytes at a time while none of them needs an escape (most of any text).
            if index + 8 <= bytes.count, let start = bytes.baseAddress {
                let word = UnsafeRawPointer(start + index).loadUnaligned(as: UInt64.self)
                if !anyNeedsEscape(word) {
                    index += 8
                    continue
                }
            }
            let byte = bytes[index]
            guard needsEscape(byte) else { index += 1; continue }
            out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<index]))
            switch byte {
            case UInt8(ascii: "\""): append("\\\"", to: &out)
            case UInt8(ascii: "\\"): append("\\\\", to: &out)
            case 0x0A: append("\\n", to: &out)
            case 0x0D: append("\\r", to: &out)
            case 0x09: append("\\t", to: &out)
            default:
                let digits: StaticString = "0123456789abcdef"
                let hex = UnsafeBufferPointer(start: digits.utf8Start, count: digits.utf8CodeUnitCount)
                append("\\u00", to: &out)
                out.append(hex[Int(byte >> 4)])
                out.append(hex[Int(byte & 0x0F)])
            }
            index += 1
            runStart = index
        }
        out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<bytes.count]))
        out.append(UInt8(ascii: "\""))
    }

    /// Whether any of the eight bytes of `word` needs an escape, without looking at them one
    /// by one ("has less than" and "has zero byte" from Bit Twiddling Hacks; both exact as
    /// yes/no answers). Bytes of multi-byte characters (0x80 and up) never match.
    @inline(__always)
    static func anyNeedsEscape(_ word: UInt64) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highBits: UInt64 = 0x8080_8080_8080_8080
        func hasZeroByte(_ value: UInt64) -> Bool { (value &- ones) & ~value & highBits != 0 }
        let hasControl = (word &- ones &* 0x20) & ~word & highBits != 0
        return hasControl || hasZeroByte(word ^ (ones &* 0x22)) || hasZeroByte(word ^ (ones &* 0x5C))
            || hasZeroByte(word ^ (ones &* 0x7F))
    }

    @inline(__always)
    static func needsEscape(_ byte: UInt8) -> Bool {
        byte < 0x20 || byte == 0x7F || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\")
    }
}
