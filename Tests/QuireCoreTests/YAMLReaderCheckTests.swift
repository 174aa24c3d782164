import Foundation
import QuireTestSupport
import Testing

@testable import QuireCore

/// Text put straight into libyaml's character buffer must parse exactly as text its reader
/// decoded, and the check that lets text through must refuse what the reader refuses. Both
/// paths run only on the libyaml preloading was checked against; any other gets the reader.
@Suite struct YAMLReaderCheckTests {
    static let otherLibYAML: Comment =
        "buffer preloading is checked against libyaml 0.2.5 only; this one reads every text through its reader"

    /// Every event, or the error, as one comparable line each.
    static func trace(_ text: [UInt8], input: LibYAMLEventReader.Input) -> [String] {
        var lines: [String] = []
        do {
            try text.withUnsafeBufferPointer { (buffer) throws(Diagnostic) in
                try LibYAMLEventReader.forEachEvent(in: buffer, file: "t.yaml", input: input) { event in
                    lines.append("\(event.kind) \(event.anchor ?? "-") \(event.tag ?? "-") \(event.position)")
                }
            }
        } catch {
            lines.append("error: \(error)")
        }
        return lines
    }

    /// The reader's rule, one Unicode scalar at a time: nil unless well-formed UTF-8 of YAML's
    /// printable set.
    static func scalarCount(_ text: [UInt8]) -> Int? {
        guard let string = String(validating: text, as: UTF8.self) else { return nil }
        for scalar in string.unicodeScalars {
            switch scalar.value {
            case 0x09, 0x0A, 0x0D, 0x20...0x7E, 0x85, 0xA0...0xD7FF, 0xE000...0xFFFD, 0x10000...0x10FFFF: continue
            default: return nil
            }
        }
        return string.unicodeScalars.count
    }

    static func count(_ text: [UInt8]) -> Int? {
        text.withUnsafeBufferPointer { YAMLReaderCheck.characterCount($0) }
    }

    static let samples: [String] = [
        "", "a", "key: value\n", "- a\n- b\n", "title: \"Été\"\nbody: |\n  ### Título ñ\n  línea — “x” ✓ 😀\n",
        "a: b\n---\nc: d\n", "\u{FEFF}bom: after\n", "nel: a\u{85}b\n", "tab:\tx\r\nnext: y\r\n", "a: [1, {b: c}]",
        "a: b\nc", "- -\n", "'unclosed", "a: \"\\u00e9 \\x41\"\n", "a: &x 1\nb: *x\n", "? a\n: b\n",
        "a: b\n  c: d\n", "key: \u{7}bell\n", "del: \u{7F}\n", "c1: \u{80}\n", "c1: \u{9F}\n", "nbsp: \u{A0}\n",
        "last: \u{FFFD}\n", "nonchar: \u{FFFE}\n", "nonchar: \u{FFFF}\n", "astral: \u{10FFFF}\n", "nul: \u{0}\n",
        String(repeating: "k: v\n", count: 40), String(repeating: "é", count: 33),
    ]

    /// Both paths give the same events, the same scalars and the same errors at the same places.
    static func sameTraces(_ text: [UInt8]) -> Bool {
        trace(text, input: .preloaded) == trace(text, input: .reader)
    }

    /// The YAML files under `folder`, found from this file's place in the checkout.
    static func yamlFiles(under folder: String) throws -> [URL] {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(folder).standardized
        return try #require(FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil))
            .compactMap { $0 as? URL }.filter { ["yaml", "yml"].contains($0.pathExtension) }
    }

    /// The version the reader asks libyaml for is the one pkg-config names for the library it
    /// builds against, and only libyaml 0.2.5 gets its buffer preloaded.
    @Test func onlyTheCheckedLibYAMLIsPreloaded() throws {
        let pkgConfig = Process()
        pkgConfig.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        pkgConfig.arguments = ["pkg-config", "--modversion", "yaml-0.1"]
        let output = Pipe()
        pkgConfig.standardOutput = output
        try pkgConfig.run()
        pkgConfig.waitUntilExit()
        let named = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(pkgConfig.terminationStatus == 0)
        #expect(LibYAMLEventReader.libraryVersion == named)
        #expect(LibYAMLEventReader.defaultInput == (named == "0.2.5" ? .preloaded : .reader))
    }

    @Test(arguments: samples)
    func theCheckCountsAsTheReaderDoes(sample: String) {
        let bytes = Array(sample.utf8)
        #expect(Self.count(bytes) == Self.scalarCount(bytes))
    }

    @Test(.enabled(if: LibYAMLEventReader.canPreload, otherLibYAML), arguments: samples)
    func preloadedTextParsesAsTheReadersText(sample: String) {
        #expect(Self.sameTraces(Array(sample.utf8)))
    }

    /// The test fixtures (hostile input included) and the sample sites' sources.
    @Test(.enabled(if: LibYAMLEventReader.canPreload, otherLibYAML))
    func everyYAMLFixtureAndSampleSiteParsesAsTheReadersText() throws {
        let fixtures = try Self.yamlFiles(under: "Fixtures")
        let sites = try Self.yamlFiles(under: "../../pages")
        #expect(fixtures.count > 100)
        #expect(sites.count > 5)
        for file in fixtures + sites {
            let bytes = Array(try Data(contentsOf: file))
            #expect(Self.sameTraces(bytes), "\(file.path)")
        }
    }

    /// Larger than the character buffer libyaml allocates (48 KiB): the buffer is replaced.
    @Test(.enabled(if: LibYAMLEventReader.canPreload, otherLibYAML))
    func textLargerThanTheReadersBufferParsesTheSame() {
        let body = (0..<3000).map { "  line \($0): ünïcödé text and more\n" }.joined()
        let bytes = Array("title: big\nbody: |\n\(body)tail: [a, b]\n".utf8)
        #expect(bytes.count > 100_000)
        let preloaded = Self.trace(bytes, input: .preloaded)
        #expect(preloaded == Self.trace(bytes, input: .reader))
        #expect(preloaded.count == 14)
    }

    /// One byte the reader refuses, or a multi-byte character, at each place around the
    /// sixteen-byte steps and the tail.
    static let oddTexts: [(bytes: [UInt8], place: Int, text: [UInt8])] = {
        let odd: [[UInt8]] = [
            [0x00], [0x07], [0x1F], [0x7F], [0x80], [0xC2, 0x80], [0xC2, 0x85], [0xC2, 0x9F], [0xC2, 0xA0], [0xC0, 0xAF],
            [0xED, 0xA0, 0x80], [0xEF, 0xBF, 0xBD], [0xEF, 0xBF, 0xBE], [0xF4, 0x8F, 0xBF, 0xBF], [0xF4, 0x90, 0x80, 0x80],
            [0xE2, 0x82], [0xFF], [0x09], [0x0D],
        ]
        return odd.flatMap { bytes in
            (0..<40).map { place in
                (bytes, place, Array("k: ".utf8) + Array(repeating: UInt8(ascii: "x"), count: place) + bytes + Array(" y\n".utf8))
            }
        }
    }()

    @Test func oddBytesAnywhereAreCountedAsTheReaderCountsThem() {
        for odd in Self.oddTexts {
            #expect(Self.count(odd.text) == Self.scalarCount(odd.text), "\(odd.bytes) at \(odd.place)")
        }
    }

    @Test(.enabled(if: LibYAMLEventReader.canPreload, otherLibYAML))
    func oddBytesAnywhereAreFoundAsTheReaderFindsThem() {
        for odd in Self.oddTexts {
            #expect(Self.sameTraces(odd.text), "\(odd.bytes) at \(odd.place)")
        }
    }

    /// Mostly clean text, as sources are: one piece in eight from the whole list.
    static let randomTexts: [[UInt8]] = {
        var generator = SeededGenerator(seed: 41)
        let pieces: [[UInt8]] = [
            Array("a".utf8), Array(" ".utf8), Array("\n".utf8), Array(": ".utf8), Array("- ".utf8), Array("é".utf8),
            Array("漢".utf8), Array("😀".utf8), [0x09], [0x0D], [0x01], [0x7F], [0xC2, 0x85], [0xC2, 0x90], [0xBF], [0xF0, 0x9F],
        ]
        return (0..<2000).map { _ in
            let length = Int.random(in: 0...60, using: &generator)
            return (0..<length).flatMap { _ in
                pieces[Int.random(in: 0..<(Int.random(in: 0..<8, using: &generator) == 0 ? pieces.count : 8), using: &generator)]
            }
        }
    }()

    @Test func randomTextIsCountedAsScalarByScalar() {
        for text in Self.randomTexts {
            #expect(Self.count(text) == Self.scalarCount(text), "\(text)")
        }
    }

    @Test(.enabled(if: LibYAMLEventReader.canPreload, otherLibYAML))
    func randomTextParsesAsTheReadersText() {
        for text in Self.randomTexts {
            #expect(Self.sameTraces(text), "\(text)")
        }
    }
}
