public import Foundation

/// Writes `JSONValue`s as UTF-8 JSON: keys in their stored order, two-space indentation when
/// pretty, `/` not escaped, and a trailing newline, so equal values give equal bytes.
public struct JSONWriter: Sendable {
    public var pretty: Bool

    public init(pretty: Bool = true) { self.pretty = pretty }

    public func data(_ value: JSONValue) -> Data { Data(bytes(value)) }

    public func string(_ value: JSONValue) -> String { String(decoding: bytes(value), as: UTF8.self) }

    public func bytes(_ value: JSONValue) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(1024)
        write(value, depth: 0, into: &out)
        if pretty { out.append(UInt8(ascii: "\n")) }
        return out
    }

    private func newline(_ depth: Int, into out: inout [UInt8]) {
        guard pretty else { return }
        out.append(UInt8(ascii: "\n"))
        out.append(contentsOf: repeatElement(UInt8(ascii: " "), count: depth * 2))
    }

    private func write(_ value: JSONValue, depth: Int, into out: inout [UInt8]) {
        switch value {
        case .null: out.append(contentsOf: Array("null".utf8))
        case .bool(let flag): out.append(contentsOf: Array((flag ? "true" : "false").utf8))
        case .integer(let number): out.append(contentsOf: Array(String(number).utf8))
        case .number(let number): out.append(contentsOf: Array(Self.format(number).utf8))
        case .string(let text): Self.writeString(text, into: &out)
        case .array(let items):
            if items.isEmpty { out.append(contentsOf: Array("[]".utf8)); return }
            out.append(UInt8(ascii: "["))
            for (index, item) in items.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                newline(depth + 1, into: &out)
                write(item, depth: depth + 1, into: &out)
            }
            newline(depth, into: &out)
            out.append(UInt8(ascii: "]"))
        case .object(let object):
            if object.isEmpty { out.append(contentsOf: Array("{}".utf8)); return }
            out.append(UInt8(ascii: "{"))
            for (index, member) in object.members.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                newline(depth + 1, into: &out)
                Self.writeString(member.key, into: &out)
                out.append(UInt8(ascii: ":"))
                if pretty { out.append(UInt8(ascii: " ")) }
                write(member.value, depth: depth + 1, into: &out)
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

    static func writeString(_ text: String, into out: inout [UInt8]) {
        var text = text
        text.withUTF8 { bytes in
            out.append(UInt8(ascii: "\""))
            defer { out.append(UInt8(ascii: "\"")) }
            // Most strings need no escape: copy them whole.
            guard bytes.contains(where: needsEscape) else {
                out.append(contentsOf: bytes)
                return
            }
            for byte in bytes {
                switch byte {
                case UInt8(ascii: "\""): out.append(92); out.append(34)
                case UInt8(ascii: "\\"): out.append(92); out.append(92)
                case 0x0A: out.append(92); out.append(UInt8(ascii: "n"))
                case 0x0D: out.append(92); out.append(UInt8(ascii: "r"))
                case 0x09: out.append(92); out.append(UInt8(ascii: "t"))
                case 0x00..<0x20, 0x7F:
                    let digits = Array("0123456789abcdef".utf8)
                    out.append(contentsOf: [92, UInt8(ascii: "u"), 48, 48, digits[Int(byte >> 4)], digits[Int(byte & 0x0F)]])
                default: out.append(byte)
                }
            }
        }
    }

    private static func needsEscape(_ byte: UInt8) -> Bool {
        byte < 0x20 || byte == 0x7F || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\")
    }
}
