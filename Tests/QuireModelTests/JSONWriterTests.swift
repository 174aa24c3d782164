import Testing
import QuireModel

@Test func writesKeysInOrderAndEscapesMarkup() {
    let value: JSONValue = ["b": 1, "a": ["x</script>", true, nil, 1.5]]
    #expect(JSONWriter(pretty: false).string(value) == #"{"b":1,"a":["x\u003c/script\u003e",true,null,1.5]}"#)
}
