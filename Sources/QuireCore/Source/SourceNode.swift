public import QuireModel

/// A value read from a page source (JSON or YAML) that remembers where it was written, so every
/// diagnostic can point at `file:line:col`.
public struct SourceNode: Sendable, Hashable {
    public enum Value: Sendable, Hashable {
        case null
        case bool(Bool)
        case integer(Int)
        /// Finite only: the parsers refuse NaN and infinities.
        case number(Double)
        case string(String)
        case array([SourceNode])
        case object([SourceMember])
    }

    public var value: Value
    public var position: SourcePosition

    public init(_ value: Value, at position: SourcePosition) {
        self.value = value
        self.position = position
    }

    public subscript(key: String) -> SourceNode? {
        if case .object(let members) = value { return members.first { $0.key == key }?.value }
        return nil
    }

    public func member(_ key: String) -> SourceMember? {
        if case .object(let members) = value { return members.first { $0.key == key } }
        return nil
    }

    public var string: String? {
        if case .string(let text) = value { return text }
        return nil
    }

    public var array: [SourceNode]? {
        if case .array(let items) = value { return items }
        return nil
    }

    public var members: [SourceMember]? {
        if case .object(let members) = value { return members }
        return nil
    }

    /// What the value is, as diagnostics name it ("a number", "a list", ...).
    public var kindDescription: String {
        // Read off the value itself: converting a whole subtree to JSON only to name its kind
        // cost as much as the subtree.
        switch value {
        case .null: return JSONValue.null.kindDescription
        case .bool(let flag): return JSONValue.bool(flag).kindDescription
        case .integer(let number): return JSONValue.integer(number).kindDescription
        case .number(let number): return JSONValue.number(number).kindDescription
        case .string: return JSONValue.string("").kindDescription
        case .array: return JSONValue.array([]).kindDescription
        case .object: return JSONValue.object(JSONObject()).kindDescription
        }
    }

    /// The value without positions, as it is published.
    public var json: JSONValue {
        switch value {
        case .null: return .null
        case .bool(let flag): return .bool(flag)
        case .integer(let number): return .integer(number)
        case .number(let number): return .number(number)
        case .string(let text): return .string(text)
        case .array(let items): return .array(items.map(\.json))
        case .object(let members): return .object(JSONObject(members.map { ($0.key, $0.value.json) }))
        }
    }
}

public struct SourceMember: Sendable, Hashable {
    public var key: String
    public var keyPosition: SourcePosition
    public var value: SourceNode

    public init(key: String, keyPosition: SourcePosition, value: SourceNode) {
        self.key = key
        self.keyPosition = keyPosition
        self.value = value
    }
}
