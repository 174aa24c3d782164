import Testing

@testable import QuireCore

/// Each refused input has a fixture in `Fixtures/source/errors/`; the exact diagnostic is pinned.
struct SourceParserErrorTests {
    /// `long-string.*` fixtures run with a 10-byte string limit instead of a 256 KiB fixture.
    static func limits(for fixture: String) -> SourceLimits {
        var limits = SourceLimits()
        if fixture.hasPrefix("long-string") { limits.maxStringBytes = 10 }
        return limits
    }

    @Test(arguments: [
        (#"alias.yaml"#, #"2:11: error: anchors and aliases are not allowed: write the value out in full"#),
        (#"anchor.yaml"#, #"2:7: error: anchors and aliases are not allowed: write the value out in full"#),
        (#"bad-escape.json"#, #"2:15: error: invalid escape '\w': JSON allows \" \\ \/ \b \f \n \r \t and \uXXXX"#),
        (
            #"bad-indentation.yaml"#,
            #"4:4: error: invalid YAML: did not find expected '-' indicator (while parsing a block collection at 3:3)"#
        ),
        (#"comment.json"#, #"2:3: error: expected a key in double quotes, found '/'"#),
        (#"comments-only.yaml"#, #"1:1: error: the file is empty: a page needs at least a `sections:` list"#),
        (#"complex-key.yaml"#, #"2:3: error: a key must be plain text, not a list: write the key as text"#),
        (#"control-character.json"#, #"2:18: error: control character U+0009 in a string: write it as an escape such as \n"#),
        (
            #"custom-tag.yaml"#,
            #"1:8: error: the tag '!shout' is not allowed: use plain values or !!str, !!int, !!float, !!bool, !!null, !!map, !!seq"#
        ),
        (#"deep.json"#, #"1:65: error: nesting is deeper than 64 levels (limits.max_depth in site.yaml)"#),
        (#"deep.yaml"#, #"1:71: error: nesting is deeper than 64 levels (limits.max_depth in site.yaml)"#),
        (#"duplicate-key.json"#, #"5:3: error: duplicate key 'title' (first at line 3)"#),
        (#"duplicate-key.yaml"#, #"4:1: error: duplicate key 'title' (first at line 2)"#),
        (#"empty.json"#, #"1:1: error: the file is empty: a page needs at least a `sections:` list"#),
        (#"infinity.yaml"#, #"2:8: error: '.inf' is not a finite number: write a number that fits a 64-bit float"#),
        (#"int-tag.yaml"#, #"2:8: error: 'twelve' is not an integer, but it is tagged !!int"#),
        (#"invalid-utf8.json"#, #"2:18: error: invalid UTF-8 (byte 0xff): save the file as UTF-8"#),
        (#"invalid-utf8.yaml"#, #"2:12: error: invalid UTF-8 (byte 0xe2): save the file as UTF-8"#),
        (#"leading-zero.json"#, #"2:12: error: the number '019' has a leading zero: JSON numbers do not"#),
        (#"lone-surrogate.json"#, #"2:19: error: lone surrogate '\ud83e' in a string: a \uD800-\uDFFF escape must be half of a pair"#),
        (#"long-string.json"#, #"2:12: error: the text is 18 bytes, over the 10-byte limit (limits.max_string_bytes in site.yaml)"#),
        (#"long-string.yaml"#, #"1:8: error: the text is 18 bytes, over the 10-byte limit (limits.max_string_bytes in site.yaml)"#),
        (#"missing-comma.json"#, #"3:3: error: expected ',' or '}' after an object member, found '"'"#),
        (#"not-finite.json"#, #"2:12: error: '1e999' is not a finite number: write a number that fits a 64-bit float"#),
        (#"nul.json"#, #"2:14: error: the file contains a NUL byte (0x00): remove it, source files are text"#),
        (#"nul.yaml"#, #"2:1: error: the file contains a NUL byte (0x00): remove it, source files are text"#),
        (#"single-quotes.json"#, #"2:3: error: expected a key in double quotes, found "'""#),
        (#"trailing-comma.json"#, #"4:1: error: a trailing ',' before '}' is not allowed in JSON: remove it"#),
        (#"trailing-content.json"#, #"2:1: error: unexpected '{' after the end of the JSON value: a file holds one value"#),
        (#"two-documents.yaml"#, #"2:1: error: more than one document: a source file holds one, remove this `---` and what follows"#),
        (#"unclosed-object.json"#, #"4:1: error: unexpected end of file: the object opened at 2:11 is not closed"#),
        (
            #"unclosed-string.json"#,
            #"2:18: error: the string opened at 2:12 is not closed on its line: end it with '"' or write a line break as \n"#
        ),
        (#"unquoted-value.json"#, #"2:16: error: expected a value, found 'yes'"#),
    ])
    func refusesWithPositionedDiagnostic(fixture: String, expected: String) throws {
        let failure = try SourceFixtures.failure("errors/" + fixture, limits: Self.limits(for: fixture))
        #expect(failure == "source/errors/\(fixture):\(expected)")
    }
}
