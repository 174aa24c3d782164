import QuireDashboard
import Testing

/// The SCGI reader against the protocol's text: every request is bytes as nginx would send
/// them (or as an attacker on the socket could), fed in every split.
struct SCGIParserTests {
    /// A netstring of `pairs` (each `name\0value\0`) and `body`.
    static func request(_ pairs: [(String, String)], body: String = "") -> [UInt8] {
        netstring(pairs.flatMap { Array($0.0.utf8) + [0] + Array($0.1.utf8) + [0] }) + Array(body.utf8)
    }

    static func netstring(_ headers: [UInt8]) -> [UInt8] { Array("\(headers.count):".utf8) + headers + Array(",".utf8) }

    static let good = request(
        [("CONTENT_LENGTH", "5"), ("SCGI", "1"), ("REQUEST_METHOD", "PUT"), ("REQUEST_URI", "/api/sites/trex/pages/x?base=ab%20c")],
        body: "hello")

    /// Feeds `bytes` `chunk` bytes at a time.
    static func parse(_ bytes: [UInt8], chunk: Int = 4096, limits: SCGIParser.Limits = .init()) throws(SCGIError) -> SCGIRequest {
        var offset = 0
        return try SCGIParser(limits: limits).read { (count) throws(SCGIError) -> [UInt8] in
            let end = min(offset + min(count, chunk), bytes.count)
            defer { offset = end }
            return Array(bytes[offset..<end])
        }
    }

    @Test(arguments: [1, 3, 4096])
    func readsARequestInAnySplit(_ chunk: Int) throws {
        let request = try Self.parse(Self.good, chunk: chunk)
        #expect(request.method == "PUT")
        #expect(request.path == "/api/sites/trex/pages/x")
        #expect(request.query["base"] == "ab c")
        #expect(request.body == Array("hello".utf8))
    }

    @Test func readsNoMoreThanTheBody() throws {
        var offset = 0
        let bytes = Self.good + Array("trailing".utf8)
        _ = try SCGIParser().read { (count) throws(SCGIError) -> [UInt8] in
            let end = min(offset + count, bytes.count)
            defer { offset = end }
            return Array(bytes[offset..<end])
        }
        #expect(offset == Self.good.count)
    }

    static let malformed: [(String, [UInt8])] = [
        ("no length", Array(":,".utf8)),
        ("letters for a length", Array("abc:".utf8)),
        ("a zero length", Array("0:,".utf8)),
        ("a semicolon for the comma", Array(request([("CONTENT_LENGTH", "0"), ("SCGI", "1")]).dropLast()) + Array(";".utf8)),
        ("no NUL at the end", netstring(Array("CONTENT_LENGTH\u{0}0".utf8))),
        ("a name without a value", netstring(Array("CONTENT_LENGTH\u{0}".utf8))),
        ("CONTENT_LENGTH not first", request([("SCGI", "1"), ("CONTENT_LENGTH", "0")])),
        ("CONTENT_LENGTH negative", request([("CONTENT_LENGTH", "-1"), ("SCGI", "1")])),
        ("CONTENT_LENGTH hex", request([("CONTENT_LENGTH", "0x10"), ("SCGI", "1")])),
        ("CONTENT_LENGTH empty", request([("CONTENT_LENGTH", ""), ("SCGI", "1")])),
        ("CONTENT_LENGTH too many digits", request([("CONTENT_LENGTH", "99999999999999999999"), ("SCGI", "1")])),
        ("no SCGI header", request([("CONTENT_LENGTH", "0")])),
        ("SCGI 2", request([("CONTENT_LENGTH", "0"), ("SCGI", "2")])),
        ("a header twice", request([("CONTENT_LENGTH", "0"), ("SCGI", "1"), ("HTTP_HOST", "a"), ("HTTP_HOST", "b")])),
        ("an empty name", request([("CONTENT_LENGTH", "0"), ("SCGI", "1"), ("", "x")])),
        ("a name with a space", request([("CONTENT_LENGTH", "0"), ("SCGI", "1"), ("HTTP X", "x")])),
        (
            "a value that is not UTF-8",
            netstring(Array("CONTENT_LENGTH\u{0}0\u{0}SCGI\u{0}1\u{0}HTTP_X\u{0}".utf8) + [0xFF, 0xFE, 0])
        ),
    ]

    @Test(arguments: malformed.map(\.0))
    func refusesMalformed(_ name: String) {
        let bytes = Self.malformed.first { $0.0 == name }!.1
        #expect(throws: SCGIError.self) { _ = try Self.parse(bytes) }
        do {
            _ = try Self.parse(bytes)
        } catch {
            if case .malformed = error {} else { Issue.record("\(name): \(error), expected malformed") }
            #expect(error.status.code == 400)
        }
    }

    @Test func refusesTooLongAHeaderBeforeReadingIt() {
        var limits = SCGIParser.Limits()
        limits.maxHeaderBytes = 100
        let bytes = Self.request([("CONTENT_LENGTH", "0"), ("SCGI", "1"), ("HTTP_X", String(repeating: "a", count: 200))])
        var read = 0
        #expect(throws: SCGIError.headersTooLarge(limit: 100)) {
            _ = try SCGIParser(limits: limits).read { (count) throws(SCGIError) -> [UInt8] in
                let end = min(read + count, bytes.count)
                defer { read = end }
                return Array(bytes[read..<end])
            }
        }
        #expect(read < 10)
        #expect(throws: SCGIError.headersTooLarge(limit: 16 * 1024)) { _ = try Self.parse(Array("12345678:".utf8)) }
    }

    @Test func refusesTooLargeABodyBeforeReadingIt() {
        var limits = SCGIParser.Limits()
        limits.maxBodyBytes = 10
        let bytes = Self.request([("CONTENT_LENGTH", "11"), ("SCGI", "1")], body: "01234567890")
        #expect(throws: SCGIError.bodyTooLarge(size: 11, limit: 10)) { _ = try Self.parse(bytes, limits: limits) }
        #expect(SCGIError.bodyTooLarge(size: 11, limit: 10).status.code == 413)
    }

    @Test(arguments: [1, 10, 20])
    func aRequestCutShortIsTruncated(_ cut: Int) {
        #expect(throws: SCGIError.truncated) { _ = try Self.parse(Array(Self.good.dropLast(cut))) }
    }

    @Test func anEmptyConnectionIsTruncated() {
        #expect(throws: SCGIError.truncated) { _ = try Self.parse([]) }
        #expect(throws: SCGIError.truncated) {
            _ = try Self.parse(Array(Self.request([("CONTENT_LENGTH", "0"), ("SCGI", "1")]).dropLast()))
        }
    }
}
