import QuireModel

/// A digest as Quire holds it in memory: a SHA-256 in lower-case hex (nearly every digest and
/// input key) as its 32 bytes, anything else (a preview shell's or a part's input key) as its
/// text. A watcher on 100,000 pages holds about a million of them; as strings each was a
/// 64-character allocation besides its reference. Written out, it is the same text again.
public struct Digest: Hashable, Sendable, CustomStringConvertible, ExpressibleByStringLiteral {
    private enum Storage: Hashable, Sendable {
        /// The 32 bytes in their order, loaded as words.
        case sha256(UInt64, UInt64, UInt64, UInt64)
        case text(String)
    }

    private let storage: Storage

    /// Exactly 64 lower-case hex digits are held as bytes, so equal texts give equal digests.
    public init(_ text: String) {
        var text = text
        storage = text.withUTF8 { Self.packed(hex: $0) } ?? .text(text)
    }

    public init(stringLiteral text: String) { self.init(text) }

    /// A finished SHA-256 (`SHA256.finalizeDigest`).
    init(sha256 bytes: UnsafeRawBufferPointer) {
        precondition(bytes.count == 32, "a SHA-256 is 32 bytes")
        storage = .sha256(
            bytes.loadUnaligned(fromByteOffset: 0, as: UInt64.self), bytes.loadUnaligned(fromByteOffset: 8, as: UInt64.self),
            bytes.loadUnaligned(fromByteOffset: 16, as: UInt64.self), bytes.loadUnaligned(fromByteOffset: 24, as: UInt64.self))
    }

    /// The text it was made from: hex for a SHA-256.
    public var text: String {
        switch storage {
        case .text(let text): text
        case .sha256: withUTF8 { String(decoding: $0, as: UTF8.self) }
        }
    }

    public var description: String { text }

    /// Whether it is a SHA-256 (not other text).
    var isSHA256: Bool {
        if case .sha256 = storage { true } else { false }
    }

    /// 64 of its bits, as a short key for a table that checks what it finds (`FileIndex`): a
    /// SHA-256's first eight bytes, other text's hash.
    var leadingBits: UInt64 {
        switch storage {
        case .sha256(let first, _, _, _): first
        case .text(let text): UInt64(truncatingIfNeeded: text.hashValue)
        }
    }

    /// The text's bytes, lent to `body`; a SHA-256's hex is written on the stack.
    func withUTF8<Result>(_ body: (UnsafeBufferPointer<UInt8>) -> Result) -> Result {
        switch storage {
        case .text(var text): return text.withUTF8(body)
        case .sha256(let a, let b, let c, let d):
            return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 64) { hex in
                _ = withUnsafeBytes(of: (a, b, c, d)) { SHA256.writeHex($0, into: hex) }
                return body(UnsafeBufferPointer(hex))
            }
        }
    }

    /// As a JSON string, without making its text: a full publish writes a million of them.
    func writeJSON(into out: inout ByteSink) {
        withUTF8 { JSONWriter.writeString($0, into: &out) }
    }

    /// For a binary file (`BinaryWriter`): a SHA-256 as its 32 bytes, other text as a string.
    func write(to writer: inout BinaryWriter) {
        switch storage {
        case .sha256(let a, let b, let c, let d):
            writer.bool(true)
            withUnsafeBytes(of: (a, b, c, d)) { writer.raw($0) }
        case .text(let text):
            writer.bool(false)
            writer.string(text)
        }
    }

    init(reading reader: inout BinaryReader) throws(BinaryReader.Malformed) {
        if try reader.bool() {
            self = try reader.raw(32) { Self(sha256: $0) }
        } else {
            self.init(try reader.string())
        }
    }

    /// Without a branch out per digit: a file index reads two of these an entry, 1.2 million at
    /// 100,000 pages.
    private static func packed(hex: UnsafeBufferPointer<UInt8>) -> Storage? {
        guard hex.count == 64, let digits = hex.baseAddress else { return nil }
        var invalid = false
        func value(_ digit: UInt8) -> UInt8 {
            guard let value = nibble(digit) else {
                invalid = true
                return 0
            }
            return value
        }
        /// The 8 bytes 16 digits from `start` spell, in their order in memory.
        func word(at start: Int) -> UInt64 {
            var word: UInt64 = 0
            for index in 0..<8 {
                let byte = value(digits[start + 2 * index]) << 4 | value(digits[start + 2 * index + 1])
                word |= UInt64(byte) << (8 * UInt64(index))
            }
            return UInt64(littleEndian: word)
        }
        let words = (word(at: 0), word(at: 16), word(at: 32), word(at: 48))
        return invalid ? nil : .sha256(words.0, words.1, words.2, words.3)
    }

    /// Lower-case only, as `SHA256.hex` writes: an upper-case digest stays text, unequal to it.
    private static func nibble(_ digit: UInt8) -> UInt8? {
        let (decimal, letter) = (digit &- UInt8(ascii: "0"), digit &- UInt8(ascii: "a"))
        return decimal < 10 ? decimal : letter < 6 ? letter &+ 10 : nil
    }
}
