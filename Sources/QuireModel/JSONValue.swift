import Foundation

/// A JSON value whose objects keep their keys in the order they were written, so published
/// files are byte-for-byte reproducible (equal input, equal bytes, equal hash).
///
/// Not `indirect`: arrays and objects already keep their elements on the heap, and an indirect
/// enum boxes every value (each string, number and object a heap allocation of its own: five
/// for a markdown `{"type": "text", "text": ...}` inline).
public enum JSONValue: Sendable, Hashable {
    case null
    case bool(Bool)
    case integer(Int)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object(JSONObject)
    /// JSON already encoded, written as it is (see `EncodedJSON`).
    case encoded(EncodedJSON)

    public subscript(key: String) -> JSONValue? {
        if case .object(let object) = self { return object[key] }
        return nil
    }

    public var stringValue: String? {
        if case .string(let text) = self { return text }
        return nil
    }

    public var arrayValue: [JSONValue]? {
        if case .array(let items) = self { return items }
        return nil
    }

    /// An object in storage of its size (`JSONObject.compacted`); any other value as it is.
    public var compacted: JSONValue {
        guard case .object(let object) = self else { return self }
        return .object(object.compacted)
    }

    public var objectValue: JSONObject? {
        if case .object(let object) = self { return object }
        return nil
    }

    public var intValue: Int? {
        switch self {
        case .integer(let value): return value
        case .number(let value) where value == value.rounded() && abs(value) < 1e15: return Int(value)
        default: return nil
        }
    }

    public var boolValue: Bool? {
        if case .bool(let value) = self { return value }
        return nil
    }

    /// What the value is, as diagnostics name it ("a number", "a list", ...).
    public var kindDescription: String {
        switch self {
        case .null: return "null"
        case .bool: return "a boolean"
        case .integer, .number: return "a number"
        case .string: return "text"
        case .array: return "a list"
        case .object: return "a mapping"
        case .encoded: return "encoded JSON"
        }
    }
}

/// Compact JSON text encoded once and embedded as it is: a markdown field's block tree, which
/// the renderer writes straight to bytes, so a page's largest part never becomes thousands of
/// small values to build, encode and free. The writer copies it in pretty output too, unindented.
/// It compares by its bytes: it never equals the tree it encodes (parse it to compare).
public struct EncodedJSON: Sendable, Hashable {
    public let bytes: [UInt8]

    /// `bytes` must be one complete JSON value; nothing checks it.
    public init(_ bytes: [UInt8]) { self.bytes = bytes }
}

/// An object with ordered, unique keys. Small objects (most of them) search their few keys;
/// large ones (status files, indexes of big sites) keep a key index so lookups stay O(1).
public struct JSONObject: Sendable, Hashable, Sequence {
    public private(set) var members: [(key: String, value: JSONValue)] = []
    /// Built once an object grows past `indexThreshold` keys.
    private var index: [String: Int]?
    private static let indexThreshold = 16

    public init() {}

    /// Dictionary literals: see `init(members:)`.
    public init(_ members: [(String, JSONValue)]) {
        self.init(members: members.map { (key: $0.0, value: $0.1) })
    }

    /// An object of these members, in this order; a repeated key keeps its first position and
    /// its last value. Nearly every object built this way has a few distinct keys: those are
    /// taken in one go, without a key search and an optional copy per member (the markdown
    /// block tree and the page renderer build thousands a page).
    public init(members: [(key: String, value: JSONValue)]) {
        if members.count <= Self.indexThreshold && Self.keysAreDistinct(members) {
            self.members = members
            return
        }
        self.members.reserveCapacity(members.count)
        for (key, value) in members { self[key] = value }
    }

    /// `init(members:)` for members whose keys are distinct by construction (fixed keys, as in
    /// the markdown block tree), without searching for repeats: checked only in debug builds.
    public init(distinctKeys members: [(key: String, value: JSONValue)]) {
        assert(Self.keysAreDistinct(members), "repeated keys in \(members.map(\.key))")
        self.members = members
        if members.count > Self.indexThreshold {
            index = Dictionary(uniqueKeysWithValues: members.enumerated().map { ($1.key, $0) })
        }
    }

    private static func keysAreDistinct(_ members: [(key: String, value: JSONValue)]) -> Bool {
        members.withUnsafeBufferPointer { members in
            for later in members.indices {
                for earlier in 0..<later where members[earlier].key == members[later].key { return false }
            }
            return true
        }
    }

    public var keys: [String] { members.map(\.key) }
    /// The same object in storage of its size, not of the doubling that grew it: for an object
    /// kept long, once per file of a site (a file's metadata read back from a manifest).
    public var compacted: JSONObject {
        guard members.capacity > members.count else { return self }
        var copy = self
        copy.members = members.map { $0 }
        return copy
    }

    public var isEmpty: Bool { members.isEmpty }
    public var count: Int { members.count }

    private func position(of key: String) -> Int? {
        if let index { return index[key] }
        return members.firstIndex { $0.key == key }
    }

    public subscript(key: String) -> JSONValue? {
        get { position(of: key).map { members[$0].value } }
        set {
            if let position = position(of: key) {
                if let newValue {
                    members[position].value = newValue
                } else {
                    members.remove(at: position)
                    if index != nil { index = Dictionary(uniqueKeysWithValues: members.enumerated().map { ($1.key, $0) }) }
                }
            } else if let newValue {
                members.append((key, newValue))
                if index != nil {
                    index?[key] = members.count - 1
                } else if members.count > Self.indexThreshold {
                    index = Dictionary(uniqueKeysWithValues: members.enumerated().map { ($1.key, $0) })
                }
            }
        }
    }

    public func makeIterator() -> IndexingIterator<[(key: String, value: JSONValue)]> {
        members.makeIterator()
    }

    public static func == (lhs: JSONObject, rhs: JSONObject) -> Bool {
        lhs.members.count == rhs.members.count
            && zip(lhs.members, rhs.members).allSatisfy { $0.key == $1.key && $0.value == $1.value }
    }

    public func hash(into hasher: inout Hasher) {
        for member in members {
            hasher.combine(member.key)
            hasher.combine(member.value)
        }
    }
}

extension JSONValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByBooleanLiteral,
    ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral, ExpressibleByNilLiteral, ExpressibleByFloatLiteral
{
    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int) { self = .integer(value) }
    public init(floatLiteral value: Double) { self = .number(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    public init(dictionaryLiteral elements: (String, JSONValue)...) { self = .object(JSONObject(elements)) }
    public init(nilLiteral: ()) { self = .null }
}

extension JSONObject: ExpressibleByDictionaryLiteral {
    public init(dictionaryLiteral elements: (String, JSONValue)...) { self.init(elements) }
}
