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
    var expected = "\""
    for scalar in text.unicodeScalars {
        switch scalar {
        case "\"": expected += "\\\""
        case "\\": expected += "\\\\"
        case "\n": expected += "\\n"
        case "\r": expected += "\\r"
        case "\t": expected += "\\t"
        case _ where scalar.value < 0x20 || scalar.value == 0x7F:
            let hex = String(scalar.value, radix: 16)
            expected += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
        default: expected.unicodeScalars.append(scalar)
        }
    }
    expected += "\""
    #expect(JSONWriter(pretty: false).string(.string(text)) == expected)
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
