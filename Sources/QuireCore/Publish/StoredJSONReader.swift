import QuireModel

/// Reads the JSON the store wrote itself (manifests, pin, history) back into `JSONValue`s,
/// keeping key order so a value re-written gives the same bytes. Strict RFC 8259, no positions:
/// a damaged file is reported by path, and the source reader is for editors' files.
struct StoredJSONReader {
    private let bytes: [UInt8]
    private let maximumDepth: Int
    private var index = 0

    /// Nil for anything but one JSON value nested at most `maximumDepth` levels deep.
    static func parse(_ bytes: [UInt8], maximumDepth: Int = 128) -> JSONValue? {
        var reader = StoredJSONReader(bytes: bytes, maximumDepth: maximumDepth)
        guard let value = reader.value(depth: 0) else { return nil }
        reader.skipSpace()
        return reader.index == bytes.count ? value : nil
    }

    private init(bytes: [UInt8], maximumDepth: Int) {
        self.bytes = bytes
        self.maximumDepth = maximumDepth
    }

    // Byte by byte, without a temporary array: a folder manifest of 10,000 entries is about
    // 100,000 values, and a watcher reads several when it starts.
    private mutating func skipSpace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x0A, 0x0D, 0x09: index += 1
            default: return
            }
        }
    }

    private mutating func take(_ byte: UInt8) -> Bool {
        guard index < bytes.count, bytes[index] == byte else { return false }
        index += 1
        return true
    }

    private mutating func take(_ literal: StaticString) -> Bool {
        let expected = UnsafeBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount)
        guard bytes.count - index >= expected.count, bytes[index..<index + expected.count].elementsEqual(expected) else { return false }
        index += expected.count
        return true
    }

    private mutating func value(depth: Int) -> JSONValue? {
        guard depth < maximumDepth else { return nil }
        skipSpace()
        guard index < bytes.count else { return nil }
        switch bytes[index] {
        case UInt8(ascii: "{"): return object(depth: depth)
        case UInt8(ascii: "["): return array(depth: depth)
        case UInt8(ascii: "\""): return string().map(JSONValue.string)
        case UInt8(ascii: "t"): return take("true") ? .bool(true) : nil
        case UInt8(ascii: "f"): return take("false") ? .bool(false) : nil
        case UInt8(ascii: "n"): return take("null") ? .null : nil
        default: return number()
        }
    }

    private mutating func object(depth: Int) -> JSONValue? {
        index += 1
        var object = JSONObject()
        skipSpace()
        if take(UInt8(ascii: "}")) { return .object(object) }
        while true {
            skipSpace()
            guard let key = string() else { return nil }
            skipSpace()
            guard take(UInt8(ascii: ":")), let member = value(depth: depth + 1), object[key] == nil else { return nil }
            object[key] = member
            skipSpace()
            if take(UInt8(ascii: "}")) { return .object(object) }
            guard take(UInt8(ascii: ",")) else { return nil }
        }
    }

    private mutating func array(depth: Int) -> JSONValue? {
        index += 1
        var items: [JSONValue] = []
        skipSpace()
        if take(UInt8(ascii: "]")) { return .array(items) }
        while true {
            guard let item = value(depth: depth + 1) else { return nil }
            items.append(item)
            skipSpace()
            if take(UInt8(ascii: "]")) { return .array(items) }
            guard take(UInt8(ascii: ",")) else { return nil }
        }
    }

    private mutating func string() -> String? {
        guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { return nil }
        index += 1
        // Most strings (digests, paths, ids) have no escape: one copy, straight from the input.
        let start = index
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                index += 1
                return bytes.withUnsafeBufferPointer { WellFormedUTF8.validated(UnsafeBufferPointer(rebasing: $0[start..<index - 1])) }
            }
            if byte == UInt8(ascii: "\\") || byte < 0x20 { break }
            index += 1
        }
        index = start
        var out: [UInt8] = []
        while index < bytes.count {
            let byte = bytes[index]
            index += 1
            switch byte {
            case UInt8(ascii: "\""): return out.withUnsafeBufferPointer(WellFormedUTF8.validated)
            case UInt8(ascii: "\\"):
                guard index < bytes.count else { return nil }
                let escape = bytes[index]
                index += 1
                switch escape {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): out.append(escape)
                case UInt8(ascii: "b"): out.append(0x08)
                case UInt8(ascii: "f"): out.append(0x0C)
                case UInt8(ascii: "n"): out.append(0x0A)
                case UInt8(ascii: "r"): out.append(0x0D)
                case UInt8(ascii: "t"): out.append(0x09)
                case UInt8(ascii: "u"):
                    guard var scalar = hex4() else { return nil }
                    if (0xD800..<0xDC00).contains(scalar) {
                        guard take("\\u"), let low = hex4(), (0xDC00..<0xE000).contains(low) else { return nil }
                        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    }
                    guard let unicode = Unicode.Scalar(scalar) else { return nil }
                    out.append(contentsOf: Array(String(Character(unicode)).utf8))
                default: return nil
                }
            case 0x00..<0x20: return nil
            default: out.append(byte)
            }
        }
        return nil
    }

    private mutating func hex4() -> UInt32? {
        guard bytes.count - index >= 4 else { return nil }
        let text = String(decoding: bytes[index..<index + 4], as: UTF8.self)
        index += 4
        return UInt32(text, radix: 16)
    }

    private mutating func number() -> JSONValue? {
        let start = index
        var isInteger = true
        while index < bytes.count {
            let byte = bytes[index]
            if (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "+") {
                index += 1
            } else if byte == UInt8(ascii: ".") || byte == UInt8(ascii: "e") || byte == UInt8(ascii: "E") {
                isInteger = false
                index += 1
            } else {
                break
            }
        }
        let text = String(decoding: bytes[start..<index], as: UTF8.self)
        if isInteger, let integer = Int(text) { return .integer(integer) }
        guard let number = Double(text), number.isFinite else { return nil }
        return .number(number)
    }
}
