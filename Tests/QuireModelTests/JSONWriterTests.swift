import Testing
import QuireModel

@Test func writesKeysInOrderAndEscapesControlCharacters() {
    let value: JSONValue = ["b": 1, "a": ["x\"\u{1}\n", true, nil, 1.5]]
    #expect(JSONWriter(pretty: false).string(value) == #"{"b":1,"a":["x\"\u0001\n",true,null,1.5]}"#)
}
