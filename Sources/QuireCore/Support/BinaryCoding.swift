import Foundation
import QuireModel

/// The encoding of what only Quire writes and reads back, of one format version (the restart
/// file, `RestartCache`; a PO parser child's answers, `POParseOutput`): integers as LEB128 varints (zigzag, so a negative one stays short),
/// strings and arrays with their count first, dates as their `Double`'s bits. No field names: a
/// reader reads the fields in the order the writer wrote them. At 100,000 pages its file is read
/// several times faster than the same content as JSON, which a restart waited on.
struct BinaryWriter {
    /// What was written and not spilled yet: all of it, for a writer that does not spill.
    private(set) var bytes: [UInt8] = []
    /// Takes the bytes a megabyte at a time, for a whole too large to hold (a restart file is
    /// about 250 MB at 100,000 pages): nil keeps them all in `bytes`.
    private let spill: (([UInt8]) -> Void)?
    private var spilledCount = 0
    static let spillSize = 1 << 20

    init(capacity: Int = 0) {
        spill = nil
        bytes.reserveCapacity(capacity)
    }

    /// A writer whose bytes go to `spill` as it goes: after an array's element, once it holds
    /// `spillSize`, and when the caller says `spillHeld`.
    init(spillingTo spill: @escaping ([UInt8]) -> Void) {
        self.spill = spill
        bytes.reserveCapacity(Self.spillSize * 2)
    }

    /// Every byte written, spilled or held.
    var count: Int { spilledCount + bytes.count }

    /// Hands what is held to `spill`.
    mutating func spillHeld() {
        guard let spill, !bytes.isEmpty else { return }
        spill(bytes)
        spilledCount += bytes.count
        bytes.removeAll(keepingCapacity: true)
    }

    mutating func int(_ value: Int) {
        var zigzag = UInt64(bitPattern: Int64(value) << 1 ^ Int64(value) >> 63)
        while zigzag >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: zigzag) | 0x80)
            zigzag >>= 7
        }
        bytes.append(UInt8(zigzag))
    }

    mutating func bool(_ value: Bool) { bytes.append(value ? 1 : 0) }

    mutating func byte(_ value: UInt8) { bytes.append(value) }

    mutating func string(_ value: String) {
        var value = value
        value.withUTF8 { utf8 in
            int(utf8.count)
            bytes.append(contentsOf: utf8)
        }
    }

    mutating func raw(_ buffer: UnsafeRawBufferPointer) { bytes.append(contentsOf: buffer) }

    /// A run of bytes with its count first (`BinaryReader.counted`).
    mutating func counted(_ run: [UInt8]) {
        int(run.count)
        bytes.append(contentsOf: run)
    }

    mutating func optionalString(_ value: String?) { optional(value) { $0.string($1) } }

    mutating func double(_ value: Double) { withUnsafeBytes(of: value.bitPattern.littleEndian) { bytes.append(contentsOf: $0) } }

    mutating func date(_ value: Date) { double(value.timeIntervalSince1970) }

    /// Eight bytes, little-endian: a field whose place must not depend on its value (a trailer).
    mutating func fixedWidth(_ value: Int) { withUnsafeBytes(of: Int64(value).littleEndian) { bytes.append(contentsOf: $0) } }

    mutating func optional<Value>(_ value: Value?, _ write: (inout Self, Value) -> Void) {
        bool(value != nil)
        if let value { write(&self, value) }
    }

    mutating func array<Values: Collection>(_ values: Values, _ write: (inout Self, Values.Element) -> Void) {
        int(values.count)
        for value in values {
            write(&self, value)
            if spill != nil, bytes.count >= Self.spillSize { spillHeld() }
        }
    }

    mutating func strings(_ values: some Collection<String>) { array(values) { $0.string($1) } }
}

/// Reads what `BinaryWriter` wrote; any byte out of place throws `Malformed`, and the caller
/// takes the file for no file at all.
struct BinaryReader {
    struct Malformed: Error {}

    /// A slice shares its array's storage: a part of a file is read where it is. With `part`,
    /// the bytes read from it and not read past yet.
    private var bytes: ArraySlice<UInt8>
    /// An index of `bytes`, not a count from its start.
    private var offset: Int
    /// Where the rest of the bytes come from, a chunk at a time; nil when all are in `bytes`.
    private let part: FilePart?
    private static let chunkSize = 1 << 20

    /// The strings `sharedString` has read so far.
    private var shared: InternedStrings?

    init(_ bytes: [UInt8]) { self.init(bytes[...]) }

    init(_ bytes: ArraySlice<UInt8>) { (self.bytes, offset, part) = (bytes, bytes.startIndex, nil) }

    /// The bytes of `part`, read as they are needed.
    init(_ part: FilePart) { (bytes, offset, self.part) = ([], 0, part) }

    var isAtEnd: Bool { offset == bytes.endIndex && part?.remaining ?? 0 == 0 }

    /// Bytes not read past yet, here and in `part`.
    private var bytesLeft: Int { bytes.endIndex - offset + (part?.remaining ?? 0) }

    /// Makes the next `count` bytes readable in `bytes`, from `part` where they are not there yet.
    private mutating func ensure(_ count: Int) throws(Malformed) {
        guard bytes.endIndex - offset < count else { return }
        guard let part, count <= bytesLeft else { throw Malformed() }
        var window = Array(bytes[offset...])
        let wanted = count - window.count
        guard let more = try? part.next(max(wanted, Self.chunkSize)), more.count >= wanted else { throw Malformed() }
        window += more
        (bytes, offset) = (window[...], 0)
    }

    mutating func int() throws(Malformed) -> Int {
        var value: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            if offset == bytes.endIndex { try ensure(1) }
            guard shift < 64 else { throw Malformed() }
            let byte = bytes[offset]
            offset += 1
            value |= UInt64(byte & 0x7f) << shift
            if byte < 0x80 { break }
            shift += 7
        }
        return Int(Int64(bitPattern: value >> 1) ^ -Int64(bitPattern: value & 1))
    }

    /// A count of things each at least one byte long: never more than the bytes left.
    mutating func count() throws(Malformed) -> Int {
        let count = try int()
        guard count >= 0, count <= bytesLeft else { throw Malformed() }
        return count
    }

    mutating func bool() throws(Malformed) -> Bool {
        switch try byte() {
        case 0: false
        case 1: true
        default: throw Malformed()
        }
    }

    mutating func byte() throws(Malformed) -> UInt8 {
        if offset == bytes.endIndex { try ensure(1) }
        defer { offset += 1 }
        return bytes[offset]
    }

    /// Only well-formed UTF-8 is a string.
    mutating func string() throws(Malformed) -> String {
        // The range first: `stringBytes` may read more into `bytes`, which `string(at:)` reads.
        let range = try stringBytes()
        return try string(at: range)
    }

    /// A string of a kind that repeats (an image's URL, a page's id in each locale's listing, a
    /// date every page of a publish shares): equal ones too long to be held inline (over 15
    /// bytes) come back as one string, as they often were when written, not a copy each. Looked
    /// up by its bytes first, so a repeat is neither validated nor allocated.
    mutating func sharedString() throws(Malformed) -> String {
        let range = try stringBytes()
        guard range.count > 15 else { return try string(at: range) }
        if shared == nil { shared = InternedStrings() }
        let string = bytes.withUnsafeBufferPointer { buffer in
            shared!.string(UnsafeBufferPointer(rebasing: buffer[range]), making: WellFormedUTF8.validated)
        }
        guard let string else { throw Malformed() }
        return string
    }

    mutating func optionalSharedString() throws(Malformed) -> String? {
        try optional { reader throws(Malformed) in try reader.sharedString() }
    }

    mutating func sharedStrings() throws(Malformed) -> [String] { try array { reader throws(Malformed) in try reader.sharedString() } }

    private func string(at utf8: Range<Int>) throws(Malformed) -> String {
        guard let string = bytes.withUnsafeBufferPointer({ WellFormedUTF8.validated(UnsafeBufferPointer(rebasing: $0[utf8])) })
        else { throw Malformed() }
        return string
    }

    /// Where the next string's bytes are in `bytes`' buffer, read past.
    private mutating func stringBytes() throws(Malformed) -> Range<Int> {
        let count = try count()
        try ensure(count)
        let start = offset - bytes.startIndex
        offset += count
        return start..<start + count
    }

    /// The next `count` bytes, lent to `body`.
    mutating func raw<Result>(_ count: Int, _ body: (UnsafeRawBufferPointer) -> Result) throws(Malformed) -> Result {
        guard count >= 0 else { throw Malformed() }
        try ensure(count)
        defer { offset += count }
        let start = offset - bytes.startIndex
        return bytes.withUnsafeBytes { body(UnsafeRawBufferPointer(rebasing: $0[start..<start + count])) }
    }

    /// A run of bytes `BinaryWriter.counted` wrote.
    mutating func counted() throws(Malformed) -> [UInt8] { try raw(try count()) { Array($0) } }

    mutating func optionalString() throws(Malformed) -> String? { try optional { reader throws(Malformed) in try reader.string() } }

    mutating func double() throws(Malformed) -> Double {
        Double(bitPattern: UInt64(littleEndian: try raw(8) { $0.loadUnaligned(as: UInt64.self) }))
    }

    mutating func date() throws(Malformed) -> Date { Date(timeIntervalSince1970: try double()) }

    mutating func fixedWidth() throws(Malformed) -> Int {
        Int(Int64(littleEndian: try raw(8) { $0.loadUnaligned(as: Int64.self) }))
    }

    mutating func optional<Value>(_ read: (inout Self) throws(Malformed) -> Value) throws(Malformed) -> Value? {
        try bool() ? try read(&self) : nil
    }

    mutating func array<Value>(_ read: (inout Self) throws(Malformed) -> Value) throws(Malformed) -> [Value] {
        let count = try count()
        var values: [Value] = []
        values.reserveCapacity(count)
        for _ in 0..<count { values.append(try read(&self)) }
        return values
    }

    mutating func strings() throws(Malformed) -> [String] { try array { reader throws(Malformed) in try reader.string() } }
}

/// A JSON value in the same file (a file's metadata in a tree manifest): a tag byte, then what
/// the case holds. An object keeps its members' order, which its bytes in a manifest follow.
extension JSONValue {
    private enum Tag: UInt8 { case null, `false`, `true`, integer, number, string, array, object, encoded }

    func write(to writer: inout BinaryWriter) {
        switch self {
        case .null: writer.byte(Tag.null.rawValue)
        case .bool(let value): writer.byte((value ? Tag.true : Tag.false).rawValue)
        case .integer(let value):
            writer.byte(Tag.integer.rawValue)
            writer.int(value)
        case .number(let value):
            writer.byte(Tag.number.rawValue)
            writer.double(value)
        case .string(let value):
            writer.byte(Tag.string.rawValue)
            writer.string(value)
        case .array(let values):
            writer.byte(Tag.array.rawValue)
            writer.array(values) { $1.write(to: &$0) }
        case .object(let object):
            writer.byte(Tag.object.rawValue)
            writer.array(object.members) { writer, member in
                writer.string(member.key)
                member.value.write(to: &writer)
            }
        case .encoded(let encoded):
            writer.byte(Tag.encoded.rawValue)
            writer.counted(encoded.bytes)
        }
    }

    init(reading reader: inout BinaryReader) throws(BinaryReader.Malformed) {
        typealias Malformed = BinaryReader.Malformed
        guard let tag = Tag(rawValue: try reader.byte()) else { throw Malformed() }
        switch tag {
        case .null: self = .null
        case .false: self = .bool(false)
        case .true: self = .bool(true)
        case .integer: self = .integer(try reader.int())
        case .number: self = .number(try reader.double())
        case .string: self = .string(try reader.sharedString())
        case .array: self = .array(try reader.array { reader throws(Malformed) in try JSONValue(reading: &reader) })
        case .object:
            self = .object(
                JSONObject(
                    members: try reader.array { reader throws(Malformed) in
                        (key: try reader.string(), value: try JSONValue(reading: &reader))
                    }))
        case .encoded: self = .encoded(EncodedJSON(try reader.counted()))
        }
    }
}
