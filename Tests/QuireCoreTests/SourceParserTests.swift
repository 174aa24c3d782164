import QuireModel
import Testing

@testable import QuireCore

struct SourceParserTests {
    private func parse(_ text: String, _ format: SourceFormat, limits: SourceLimits = .default) throws(Diagnostic) -> SourceNode {
        try SourceParser.parse(Array(text.utf8), format: format, file: "test.\(format.rawValue)", limits: limits)
    }

    private func failure(_ text: String, _ format: SourceFormat, limits: SourceLimits = .default) -> String? {
        do {
            _ = try parse(text, format, limits: limits)
            return nil
        } catch {
            return error.description
        }
    }

    @Test func jsonAndYAMLFixturesReadToTheSameValues() throws {
        let json = try SourceFixtures.parse("page.json")
        let yaml = try SourceFixtures.parse("page.yaml")
        #expect(json.json == yaml.json)
        #expect(json["title"]?.string == "T.REX ARMS Store — “Essentials” 🦖")
        let hero = try #require(json["sections"]?.array?.first)
        #expect(hero["title"]?.string == "Training\tEssentials\n")
        #expect(hero["subtitle"]?.string == "Everything \"you\" need é 🦖")
        let mag = try #require(json["sections"]?.array?[1]["items"]?.array?.first)
        #expect(mag["price"]?.value == .number(19.5))
        #expect(mag["stock"]?.value == .integer(12))
        #expect(mag["rating"]?.value == .number(-0.425))
        #expect(mag["big"]?.value == .number(1.2345678901234567e19))
        #expect(json["published"]?.value == .bool(true))
        #expect(json["note"]?.value == .null)
    }

    @Test func jsonPositionsPointAtNestedValuesAndKeys() throws {
        let page = try SourceFixtures.parse("page.json")
        #expect(page.position == SourcePosition(line: 1, column: 1))
        let sections = try #require(page.member("sections"))
        #expect(sections.keyPosition == SourcePosition(line: 7, column: 3))
        #expect(sections.value.position == SourcePosition(line: 7, column: 15))
        let grid = try #require(sections.value.array?[1])
        #expect(grid.position == SourcePosition(line: 15, column: 5))
        let belt = try #require(grid["items"]?.array?[1])
        #expect(belt.position == SourcePosition(line: 19, column: 9))
        #expect(belt.member("stock")?.keyPosition == SourcePosition(line: 19, column: 36))
        #expect(belt["tags"]?.array?[2].position == SourcePosition(line: 19, column: 71))
    }

    @Test func yamlPositionsPointAtNestedValuesAndKeys() throws {
        let page = try SourceFixtures.parse("page.yaml")
        #expect(page.position == SourcePosition(line: 2, column: 1))
        let sections = try #require(page.member("sections"))
        #expect(sections.keyPosition == SourcePosition(line: 7, column: 1))
        #expect(sections.value.position == SourcePosition(line: 8, column: 3))
        let grid = try #require(sections.value.array?[1])
        #expect(grid.position == SourcePosition(line: 13, column: 5))
        let mag = try #require(grid["items"]?.array?[0])
        #expect(mag.position == SourcePosition(line: 15, column: 9))
        #expect(mag.member("price")?.value.position == SourcePosition(line: 15, column: 26))
        let belt = try #require(grid["items"]?.array?[1])
        #expect(belt.member("stock")?.keyPosition == SourcePosition(line: 18, column: 9))
        #expect(belt["tags"]?.array?[2].position == SourcePosition(line: 19, column: 25))
    }

    @Test func columnsCountCharactersNotBytes() throws {
        let json = try parse(#"{"é🦖": [1, "x"]}"#, .json)
        #expect(json.member("é🦖")?.keyPosition == SourcePosition(line: 1, column: 2))
        #expect(json["é🦖"]?.position == SourcePosition(line: 1, column: 8))
        #expect(json["é🦖"]?.array?[1].position == SourcePosition(line: 1, column: 12))
        let yaml = try parse("é🦖: [1, x]\n", .yaml)
        #expect(yaml["é🦖"]?.array?[1].position == SourcePosition(line: 1, column: 9))
    }

    @Test func crlfLineEndsCountAsOneLine() throws {
        let json = try parse("{\r\n  \"a\": 1,\r\n  \"b\": 2\r\n}\r\n", .json)
        #expect(json["b"]?.position == SourcePosition(line: 3, column: 8))
        let yaml = try parse("a: 1\r\nb: 2\r\n", .yaml)
        #expect(yaml["b"]?.position == SourcePosition(line: 2, column: 4))
    }

    @Test(arguments: ["bom.json", "bom.yaml"])
    func byteOrderMarkIsSkipped(fixture: String) throws {
        let page = try SourceFixtures.parse(fixture)
        #expect(page["title"]?.string == "Store")
        #expect(page.member("title")?.keyPosition.column == (fixture.hasSuffix("json") ? 2 : 1))
    }

    @Test(arguments: [
        ("no", JSONValue.string("no")), ("yes", "yes"), ("on", "on"), ("off", "off"), ("y", "y"),
        ("true", true), ("True", true), ("FALSE", false), ("tRUE", "tRUE"),
        ("null", nil), ("~", nil), ("", nil), ("NULL", nil), ("nULL", "nULL"),
        ("12", 12), ("-3", -3), ("+7", 7), ("012", 12), ("0o17", 15), ("0x1F", 31), ("0b11", "0b11"), ("1_000", "1_000"),
        ("1.5", 1.5), (".5", 0.5), ("-1.", -1.0), ("2e3", 2000.0), ("1.5E-1", 0.15), ("1.2.3", "1.2.3"),
        ("'true'", "true"), ("\"12\"", "12"), ("!!str 12", "12"), ("!!float 1", 1.0), ("!!int 0x10", 16),
        ("!!bool True", true), ("!!null ''", nil), ("! 12", "12"), ("|\n  12\n", "12\n"),
    ])
    func yamlScalarsFollowTheCoreSchema(written: String, meaning: JSONValue) throws {
        let node = try parse("value: \(written)\n", .yaml)
        #expect(node["value"]?.json == meaning)
    }

    @Test(arguments: [".inf", "-.Inf", ".NaN", "1e400", "!!float .nan"])
    func yamlRefusesNonFiniteNumbers(written: String) {
        #expect(failure("value: \(written)\n", .yaml)?.contains("is not a finite number") == true)
    }

    @Test func yamlMappingKeysAreTheirText() throws {
        let node = try parse("1: one\ntrue: yes\nnull: nothing\n", .yaml)
        #expect(node.members?.map(\.key) == ["1", "true", "null"])
    }

    @Test func yamlRefusesTagsThatDoNotFit() {
        #expect(failure("value: !!map x\n", .yaml) == "test.yaml:1:8: error: the tag '!!map' does not fit a scalar")
        #expect(failure("value: !!seq {a: 1}\n", .yaml) == "test.yaml:1:8: error: the tag '!!seq' does not fit a mapping")
        #expect(failure("value: !!binary aGk=\n", .yaml)?.contains("the tag '!!binary' is not allowed") == true)
        #expect(failure("? {a: 1}\n: x\n", .yaml) == "test.yaml:1:3: error: a key must be plain text, not a mapping: write the key as text")
    }

    @Test func jsonNumbers() throws {
        let node = try parse("[0, -0, 9223372036854775807, -9223372036854775808, 9223372036854775808, 1.0, -2.5e3, 1E2]", .json)
        #expect(
            node.array?.map(\.value) == [
                .integer(0), .integer(0), .integer(.max), .integer(.min), .number(9_223_372_036_854_775_808),
                .number(1), .number(-2500), .number(100),
            ])
        #expect(failure("[1.]", .json) == "test.json:1:4: error: expected a digit after '1.'")
        #expect(failure("[-]", .json) == "test.json:1:3: error: expected a digit after '-'")
        #expect(failure("[1e+]", .json) == "test.json:1:5: error: expected a digit after '1e+'")
        #expect(failure("[+1]", .json) == "test.json:1:2: error: expected a value, found '+1'")
        #expect(failure("[NaN]", .json) == "test.json:1:2: error: expected a value, found 'NaN'")
    }

    @Test func jsonStrings() throws {
        let node = try parse(#"["\"\\\/\b\f\n\r\t", "\u0041\u00e9\u20ac\ud83e\udd96", ""]"#, .json)
        #expect(node.array?.map(\.string) == ["\"\\/\u{8}\u{c}\n\r\t", "Aé€🦖", ""])
        #expect(
            failure(#"["\udd96"]"#, .json)
                == #"test.json:1:3: error: lone surrogate '\udd96' in a string: a \uD800-\uDFFF escape must be half of a pair"#)
        #expect(failure(#"["\ud83e\u0041"]"#, .json)?.contains("lone surrogate '\\ud83e'") == true)
        #expect(
            failure(#"["\u12G4"]"#, .json)
                == #"test.json:1:3: error: invalid escape '\u12G': JSON allows \" \\ \/ \b \f \n \r \t and \uXXXX"#)
    }

    @Test func jsonStructureErrors() {
        #expect(failure("[1, 2,]", .json) == "test.json:1:7: error: a trailing ',' before ']' is not allowed in JSON: remove it")
        #expect(failure("[1 2]", .json) == "test.json:1:4: error: expected ',' or ']' after a list item, found '2'")
        #expect(failure("{\"a\" 1}", .json) == "test.json:1:6: error: expected ':' after the key 'a', found '1'")
        #expect(failure("[\n  [1,\n", .json) == "test.json:3:1: error: unexpected end of file: the list opened at 2:3 is not closed")
        #expect(failure("{\"a\": tru}", .json) == "test.json:1:7: error: expected a value, found 'tru'")
        #expect(failure("[truex]", .json) == "test.json:1:2: error: expected a value, found 'truex'")
        #expect(failure("{} x", .json) == "test.json:1:4: error: unexpected 'x' after the end of the JSON value: a file holds one value")
    }

    @Test func emptyContainersAndScalarRoots() throws {
        #expect(try parse(" {} ", .json).value == .object([]))
        #expect(try parse("[[], {}]", .json).json == [[], [:]])
        #expect(try parse("\"x\"", .json).value == .string("x"))
        #expect(try parse("{}\n", .yaml).value == .object([]))
    }

    @Test func duplicateKeysAreFoundInLargeObjects() {
        let members = (0..<40).map { "\"key\($0)\": \($0)" }.joined(separator: ",\n")
        #expect(failure("{\n\(members),\n\"key30\": 1}", .json) == "test.json:42:1: error: duplicate key 'key30' (first at line 32)")
        let yaml = (0..<40).map { "key\($0): \($0)" }.joined(separator: "\n")
        #expect(failure("\(yaml)\nkey30: 1\n", .yaml) == "test.yaml:41:1: error: duplicate key 'key30' (first at line 31)")
    }

    @Test(arguments: [SourceFormat.json, .yaml])
    func tenThousandDeepNestingIsRefusedWithoutCrashing(format: SourceFormat) {
        let deep = String(repeating: "[", count: 10_000) + String(repeating: "]", count: 10_000)
        #expect(
            failure(deep, format) == "test.\(format.rawValue):1:65: error: nesting is deeper than 64 levels (limits.max_depth in site.yaml)"
        )
    }

    @Test func deepNestingWithinARaisedLimitDoesNotUseTheStack() throws {
        var limits = SourceLimits()
        limits.maxDepth = 20_000
        let deep = String(repeating: "[", count: 10_000) + String(repeating: "]", count: 10_000)
        var node = try parse(deep, .json, limits: limits)
        var depth = 1
        while let inner = node.array?.first {
            node = inner
            depth += 1
        }
        #expect(depth == 10_000)
    }
}
