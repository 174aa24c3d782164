/// Reads one SCGI request (https://python.ca/scgi/protocol.txt): a netstring
/// `<length>:<headers>,` whose headers are NUL-terminated name and value pairs, the first
/// `CONTENT_LENGTH`, one `SCGI` of value `1`; then exactly CONTENT_LENGTH bytes of body.
///
/// Everything is checked before it is used, and bounded before it is read: the length's digits,
/// the headers' size, each name, duplicates, the body's size. `next(count)` gives up to `count`
/// more bytes of the connection (none at its end), so tests feed it any split of the bytes.
public struct SCGIParser {
    public struct Limits: Sendable {
        public var maxHeaderBytes = 16 * 1024
        public var maxBodyBytes = 10 * 1024 * 1024

        public init() {}
    }

    public let limits: Limits

    public init(limits: Limits = Limits()) { self.limits = limits }

    public func read(_ next: (Int) throws(SCGIError) -> [UInt8]) throws(SCGIError) -> SCGIRequest {
        var reader = Reader()
        let length = try headerLength(&reader, next)
        var headers = try reader.exactly(next, length)
        guard try reader.exactly(next, 1) == [UInt8(ascii: ",")] else { throw .malformed("the headers' netstring does not end with ','") }
        let parameters = try Self.parameters(&headers)
        guard let lengthText = parameters.first, lengthText.name == "CONTENT_LENGTH" else {
            throw .malformed("the first header must be CONTENT_LENGTH")
        }
        guard !lengthText.value.isEmpty, lengthText.value.utf8.count <= 10, lengthText.value.utf8.allSatisfy(Self.isDigit),
            let bodyLength = Int(lengthText.value)
        else { throw .malformed("CONTENT_LENGTH must be a decimal number, not '\(lengthText.value.prefix(20))'") }
        var byName: [String: String] = [:]
        for parameter in parameters {
            guard byName.updateValue(parameter.value, forKey: parameter.name) == nil else {
                throw .malformed("the header \(parameter.name.prefix(64)) is given twice")
            }
        }
        guard byName["SCGI"] == "1" else { throw .malformed("the SCGI header must be 1") }
        guard bodyLength <= limits.maxBodyBytes else { throw .bodyTooLarge(size: bodyLength, limit: limits.maxBodyBytes) }
        let body = try reader.exactly(next, bodyLength)
        return SCGIRequest(parameters: byName, body: body)
    }

    /// The netstring's length: 1 to 7 digits, then ':'; at most `maxHeaderBytes`.
    private func headerLength(_ reader: inout Reader, _ next: (Int) throws(SCGIError) -> [UInt8]) throws(SCGIError) -> Int {
        var digits: [UInt8] = []
        while true {
            let byte = try reader.exactly(next, 1)[0]
            if byte == UInt8(ascii: ":") { break }
            guard Self.isDigit(byte) else { throw .malformed("the request must start with the headers' length, then ':'") }
            digits.append(byte)
            guard digits.count <= 7 else { throw .headersTooLarge(limit: limits.maxHeaderBytes) }
        }
        guard let length = Int(String(decoding: digits, as: UTF8.self)), length > 0 else {
            throw .malformed("the headers' length is missing or zero")
        }
        guard length <= limits.maxHeaderBytes else { throw .headersTooLarge(limit: limits.maxHeaderBytes) }
        return length
    }

    /// The NUL-terminated pairs, in order; names non-empty; every name and value UTF-8.
    private static func parameters(_ bytes: inout [UInt8]) throws(SCGIError) -> [(name: String, value: String)] {
        guard bytes.last == 0 else { throw .malformed("the headers must end with a NUL byte") }
        let fields = bytes.dropLast().split(separator: 0, omittingEmptySubsequences: false)
        guard fields.count % 2 == 0 else { throw .malformed("a header has a name and no value") }
        var pairs: [(name: String, value: String)] = []
        pairs.reserveCapacity(fields.count / 2)
        for index in stride(from: 0, to: fields.count, by: 2) {
            guard let name = String(validating: fields[index], as: UTF8.self), !name.isEmpty,
                name.utf8.allSatisfy({ isDigit($0) || (65...90).contains($0) || (97...122).contains($0) || $0 == UInt8(ascii: "_") })
            else { throw .malformed("a header name is empty or not [A-Za-z0-9_]") }
            guard let value = String(validating: fields[index + 1], as: UTF8.self) else {
                throw .malformed("the value of \(name) is not UTF-8")
            }
            pairs.append((name, value))
        }
        return pairs
    }

    static func isDigit(_ byte: UInt8) -> Bool { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) }

    /// Bytes off the connection, kept between reads.
    private struct Reader {
        var pending: [UInt8] = []
        var offset = 0

        mutating func exactly(_ next: (Int) throws(SCGIError) -> [UInt8], _ count: Int) throws(SCGIError) -> [UInt8] {
            var out: [UInt8] = []
            out.reserveCapacity(count)
            while out.count < count {
                if offset == pending.count {
                    pending = try next(max(count - out.count, 1))
                    offset = 0
                    guard !pending.isEmpty else { throw .truncated }
                }
                let take = min(count - out.count, pending.count - offset)
                out += pending[offset..<offset + take]
                offset += take
            }
            return out
        }
    }
}
