import Testing

@testable import QuireModel

@Test func writesKeysInOrderAndEscapesControlCharacters() {
    let value: JSONValue = ["b": 1, "a": ["x\"\u{1}\n", true, nil, 1.5]]
    #expect(JSONWriter(pretty: false).string(value) == #"{"b":1,"a":["x\"\u0001\n",true,null,1.5]}"#)
}

@Test(arguments: [0, 1, -1, 9, 10, -10, 1_234_567_890, Int.max, Int.min])
func writesIntegersAsSwiftPrintsThem(number: Int) {
    #expect(JSONWriter(pretty: false).string(.integer(number)) == String(number))
}

@Test func escapesEveryControlCharacterAndCopiesTheRest() {
    let text = String(decoding: (0..<0x80).map { UInt8($0) }, as: UTF8.self) + "é漢😀"
    #expect(JSONWriter(pretty: false).string(.string(text)) == referenceQuoted(text))
}

@Test(arguments: [false, true])
func embedsEncodedJSONAsItIs(pretty: Bool) {
    let encoded = EncodedJSON(Array(#"[{"type":"text","text":"a\"b"}]"#.utf8))
    let value: JSONValue = ["blocks": .encoded(encoded), "after": 1]
    let expected =
        pretty
        ? "{\n  \"blocks\": [{\"type\":\"text\",\"text\":\"a\\\"b\"}],\n  \"after\": 1\n}\n"
        : #"{"blocks":[{"type":"text","text":"a\"b"}],"after":1}"#
    #expect(JSONWriter(pretty: pretty).string(value) == expected)
    // It compares by its bytes, not by the tree they encode.
    #expect(value["blocks"] != [["type": "text", "text": "a\"b"]])
}

@Test func indentsDeepNestingPastTheSpaceRun() {
    var value: JSONValue = "x"
    for _ in 0..<70 { value = .array([value]) }
    let lines = JSONWriter(pretty: true).string(value).split(separator: "\n")
    #expect(lines[70] == Substring(String(repeating: " ", count: 140) + "\"x\""))
}

@Test func escapesFoundEightBytesAtATimeMatchByteByByte() {
    // Every position of every interesting byte inside a clean word, and pseudo-random words.
    let interesting: [UInt8] = [0x00, 0x01, 0x1F, 0x20, 0x21, 0x22, 0x23, 0x5B, 0x5C, 0x5D, 0x7E, 0x7F, 0x80, 0xC3, 0xFF]
    var words: [[UInt8]] = []
    for byte in interesting {
        for position in 0..<8 {
            var word = [UInt8](repeating: UInt8(ascii: "a"), count: 8)
            word[position] = byte
            words.append(word)
        }
    }
    var state: UInt64 = 0x9E37_79B9_7F4A_7C15
    for _ in 0..<20_000 {
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        words.append(withUnsafeBytes(of: state) { Array($0) })
    }
    for word in words {
        let packed = word.withUnsafeBytes { $0.loadUnaligned(as: UInt64.self) }
        #expect(JSONWriter.anyNeedsEscape(packed) == word.contains(where: JSONWriter.needsEscape))
    }
}

@Test func firstEscapeFoundManyBytesAtATimeIsTheFirstByteByByte() {
    // Texts with escapes at every offset, one or two per word, and runs across word and
    // sixteen-byte boundaries.
    let interesting: [UInt8] = [0x00, 0x1F, 0x20, 0x22, 0x5C, 0x7F, 0x80, 0xC3, UInt8(ascii: "a")]
    var texts: [[UInt8]] = []
    for length in Array(0..<20) + [31, 32, 33, 41] {
        for first in interesting {
            for second in interesting {
                for position in 0..<length {
                    var text = [UInt8](repeating: UInt8(ascii: "b"), count: length)
                    text[position] = first
                    if position + 1 < length { text[position + 1] = second }
                    texts.append(text)
                }
            }
        }
    }
    for text in texts {
        text.withUnsafeBufferPointer { bytes in
            for start in 0...bytes.count {
                let expected = bytes[start...].firstIndex(where: JSONWriter.needsEscape) ?? bytes.count
                #expect(JSONWriter.firstEscape(in: bytes, from: start) == expected)
            }
        }
    }
}

@Test func firstEscapeInPseudoRandomTextsIsTheFirstByteByByte() {
    // Mostly plain bytes, now and then one to escape, so escapes land anywhere in a vector.
    var state: UInt64 = 0x2545_F491_4F6C_DD1D
    for _ in 0..<2_000 {
        var text: [UInt8] = []
        for _ in 0..<64 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let byte = UInt8(truncatingIfNeeded: state >> 56)
            text.append(state & 0x1F == 0 ? byte : UInt8(truncatingIfNeeded: (state >> 40) % 95) + 0x20)
        }
        text.withUnsafeBufferPointer { bytes in
            for start in 0...bytes.count {
                let expected = bytes[start...].firstIndex(where: JSONWriter.needsEscape) ?? bytes.count
                #expect(JSONWriter.firstEscape(in: bytes, from: start) == expected)
            }
        }
    }
}

/// A string as JSON, scalar by scalar: the escapes the writer must produce.
private func referenceQuoted(_ text: String) -> String {
    var out = "\""
    for scalar in text.unicodeScalars {
        switch scalar {
        case "\"": out += "\\\""
        case "\\": out += "\\\\"
        case "\n": out += "\\n"
        case "\r": out += "\\r"
        case "\t": out += "\\t"
        case _ where scalar.value < 0x20 || scalar.value == 0x7F:
            let hex = String(scalar.value, radix: 16)
            out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
        default: out.unicodeScalars.append(scalar)
        }
    }
    return out + "\""
}

/// The writer as it was written before it worked on bytes: one `String` per piece.
private func referenceJSON(_ value: JSONValue, pretty: Bool, depth: Int = 0) -> String {
    func newline(_ depth: Int) -> String { pretty ? "\n" + String(repeating: "  ", count: depth) : "" }
    switch value {
    case .null: return "null"
    case .bool(let flag): return flag ? "true" : "false"
    case .integer(let number): return String(number)
    case .number(let number): return JSONWriter.format(number)
    case .string(let text): return referenceQuoted(text)
    case .encoded(let json): return String(decoding: json.bytes, as: UTF8.self)
    case .array(let items):
        if items.isEmpty { return "[]" }
        let inner = items.map { newline(depth + 1) + referenceJSON($0, pretty: pretty, depth: depth + 1) }
        return "[" + inner.joined(separator: ",") + newline(depth) + "]"
    case .object(let object):
        if object.isEmpty { return "{}" }
        let inner = object.members.map {
            newline(depth + 1) + referenceQuoted($0.key) + (pretty ? ": " : ":")
                + referenceJSON($0.value, pretty: pretty, depth: depth + 1)
        }
        return "{" + inner.joined(separator: ",") + newline(depth) + "}"
    }
}

@Test(arguments: [false, true])
func writerMatchesTheStringByStringWriter(pretty: Bool) {
    // Pseudo-random documents: nesting, every kind of value, texts with and without escapes,
    // long enough to outgrow the writer's first buffer.
    var state: UInt64 = 0x2545_F491_4F6C_DD1D
    func next(_ bound: Int) -> Int {
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        return Int((state >> 33) % UInt64(bound))
    }
    let pieces = ["plain words ", "é漢😀", "\"", "\\", "\n", "\t", "\u{1}", "\u{7F}", "/", "long text without escapes "]
    func text() -> String { (0..<next(12)).map { _ in pieces[next(pieces.count)] }.joined() }
    func value(_ depth: Int) -> JSONValue {
        switch next(depth > 4 ? 6 : 8) {
        case 0: return .null
        case 1: return .bool(next(2) == 0)
        case 2: return .integer(next(2_000_000) - 1_000_000)
        case 3: return .number(Double(next(1000)) / 8)
        case 4, 5: return .string(text())
        case 6: return .array((0..<next(6)).map { _ in value(depth + 1) })
        default: return .object(JSONObject((0..<next(6)).map { index in (text() + String(index), value(depth + 1)) }))
        }
    }
    for _ in 0..<300 {
        let document = JSONValue.array((0..<40).map { _ in value(0) })
        let expected = referenceJSON(document, pretty: pretty) + (pretty ? "\n" : "")
        #expect(JSONWriter(pretty: pretty).string(document) == expected)
        var appended: [UInt8] = [0x41]
        JSONWriter(pretty: pretty).append(document, depth: 2, to: &appended)
        #expect(appended == [0x41] + Array(referenceJSON(document, pretty: pretty, depth: 2).utf8))
    }
}
