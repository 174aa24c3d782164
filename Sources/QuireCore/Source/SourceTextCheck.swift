/// The checks every source passes before a format reader sees it: a byte-order mark is skipped,
/// the text must be UTF-8 without NUL bytes, and it must hold something besides whitespace.
enum SourceTextCheck {
    static func byteOrderMarkLength(_ bytes: UnsafeBufferPointer<UInt8>) -> Int {
        bytes.count >= 3 && bytes[0] == 0xEF && bytes[1] == 0xBB && bytes[2] == 0xBF ? 3 : 0
    }

    static func validate(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int, file: String) throws(Diagnostic) {
        let count = bytes.count
        var index = start
        while index < count, bytes[index] == 0x20 || bytes[index] == 0x0A || bytes[index] == 0x0D || bytes[index] == 0x09 {
            index += 1
        }
        guard index < count, let base = bytes.baseAddress else { throw .error(file, at: .start, SourceMessages.emptyFile) }
        while index < count {
            // Eight bytes at a time while they are ASCII without NUL: the common case.
            if index + 8 <= count {
                let word = UInt64(littleEndian: UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self))
                let highBits = word & 0x8080_8080_8080_8080
                let zeroBytes = (word &- 0x0101_0101_0101_0101) & ~word & 0x8080_8080_8080_8080
                if highBits | zeroBytes == 0 {
                    index += 8
                    continue
                }
                // No NUL: the bytes before the first non-ASCII one are plain ASCII, skipped at
                // once (accented text fails the word check at every letter otherwise).
                if zeroBytes == 0 { index += highBits.trailingZeroBitCount / 8 }
            }
            let byte = bytes[index]
            if byte < 0x80 {
                if byte == 0 {
                    throw .error(file, at: position(of: index, in: bytes, origin: start), SourceMessages.nulByte)
                }
                index += 1
                continue
            }
            let length = sequenceLength(bytes, at: index)
            guard length > 0 else {
                throw .error(file, at: position(of: index, in: bytes, origin: start), SourceMessages.invalidUTF8(byte))
            }
            index += length
        }
    }

    /// The length of the well-formed UTF-8 sequence at `index` (RFC 3629: no overlong forms, no
    /// surrogates, nothing above U+10FFFF), or 0.
    static func sequenceLength(_ bytes: UnsafeBufferPointer<UInt8>, at index: Int) -> Int {
        let lead = bytes[index]
        let length: Int
        var low: UInt8 = 0x80
        var high: UInt8 = 0xBF
        switch lead {
        case 0xC2...0xDF: length = 2
        case 0xE0:
            length = 3
            low = 0xA0
        case 0xED:
            length = 3
            high = 0x9F
        case 0xE1...0xEF: length = 3
        case 0xF0:
            length = 4
            low = 0x90
        case 0xF4:
            length = 4
            high = 0x8F
        case 0xF1...0xF3: length = 4
        default: return 0
        }
        guard index + length <= bytes.count else { return 0 }
        let second = bytes[index + 1]
        guard second >= low && second <= high else { return 0 }
        for offset in 2..<length where bytes[index + offset] & 0xC0 != 0x80 { return 0 }
        return length
    }

    private static func position(of index: Int, in bytes: UnsafeBufferPointer<UInt8>, origin: Int) -> SourcePosition {
        var tracker = SourcePositionTracker(bytes, origin: origin)
        return tracker.position(at: index)
    }
}
