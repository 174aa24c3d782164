/// Any JSON, decoded as it is: for fields whose shape is open (markdown blocks, unknown keys).
extension JSONValue: Decodable {
    public init(from decoder: any Decoder) throws {
        if var array = try? decoder.unkeyedContainer() {
            var items: [JSONValue] = []
            while !array.isAtEnd { items.append(try array.decode(JSONValue.self)) }
            self = .array(items)
            return
        }
        if let object = try? decoder.container(keyedBy: AnyCodingKey.self) {
            // Keys in the order the container gives them; sorted so equal input decodes equal.
            self = .object(
                JSONObject(
                    try object.allKeys.sorted { $0.stringValue < $1.stringValue }
                        .map { ($0.stringValue, try object.decode(JSONValue.self, forKey: $0)) }))
            return
        }
        let single = try decoder.singleValueContainer()
        if single.decodeNil() {
            self = .null
        } else if let flag = try? single.decode(Bool.self) {
            self = .bool(flag)
        } else if let integer = try? single.decode(Int.self) {
            self = .integer(integer)
        } else if let number = try? single.decode(Double.self) {
            self = .number(number)
        } else {
            self = .string(try single.decode(String.self))
        }
    }
}

/// A coding key for any member name.
struct AnyCodingKey: CodingKey {
    var stringValue: String
    var intValue: Int?

    init(_ string: String) { stringValue = string }
    init?(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) {
        stringValue = String(intValue)
        self.intValue = intValue
    }
}
