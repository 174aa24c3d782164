import Testing
import QuireModel

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
