import Testing

@testable import QuireCore
@testable import QuireModel

/// The forms a watcher keeps for every page and file between builds: smaller than what they
/// stand for, and giving back the same answers.
@Suite struct WatcherStateTests {
    @Test func anOutputKeyIsTheDigestOfItsInputsInOrder() {
        let key = OutputKey(settingsDigest: "s", inputs: ["a", "b"])
        #expect(key == OutputKey(settingsDigest: "s", inputs: ["a", "b"]))
        #expect(key != OutputKey(settingsDigest: "t", inputs: ["a", "b"]))
        #expect(key != OutputKey(settingsDigest: "s", inputs: ["b", "a"]))
        #expect(key != OutputKey(settingsDigest: "s", inputs: ["ab"]))
        #expect(key.digest == Digest(SHA256.hash("s|a|b")))
    }

    @Test func theRestartFileFormOfAKeyReadsBackAndNothingElseDoes() throws {
        let key = OutputKey(settingsDigest: "settings", inputs: ["source", "true", "live", "links", "fr0123"])
        var writer = BinaryWriter()
        key.write(to: &writer)
        var reader = BinaryReader(writer.bytes)
        #expect(try OutputKey(reading: &reader) == key && reader.isAtEnd)
        var truncated = BinaryReader(writer.bytes.dropLast())
        #expect(throws: BinaryReader.Malformed.self) { try OutputKey(reading: &truncated) }
        for text in [String(key.digest.text.dropLast()), String(repeating: "g", count: 64), "|source|true|live|links|fr0123"] {
            var other = BinaryWriter()
            Digest(text).write(to: &other)
            var otherReader = BinaryReader(other.bytes)
            #expect(throws: BinaryReader.Malformed.self) { try OutputKey(reading: &otherReader) }
        }
    }

    /// A file's metadata in the restart file's copy of a file index: every kind of value reads
    /// back as it was, members in their order (a manifest's bytes follow it), and a cut or
    /// unknown tag is no value.
    @Test func theRestartFileFormOfAJSONValueReadsBackInOrder() throws {
        let value: JSONValue = [
            "page_id": "news/é-1", "ttl": 300, "parts": -2, "score": 0.1, "big": 1e300, "draft": false, "live": true,
            "none": .null, "tags": ["a", "b \"quoted\"", [], ["nested": [1, 2.5]]], "raw": .encoded(EncodedJSON(Array("[1,2]".utf8))),
            "empty": .object(JSONObject()),
        ]
        var writer = BinaryWriter()
        value.write(to: &writer)
        var reader = BinaryReader(writer.bytes)
        let read = try JSONValue(reading: &reader)
        #expect(read == value && reader.isAtEnd)
        #expect(read.objectValue?.members.map(\.key) == value.objectValue?.members.map(\.key))
        #expect(JSONWriter(pretty: true).bytes(read) == JSONWriter(pretty: true).bytes(value))
        var truncated = BinaryReader(writer.bytes.dropLast())
        #expect(throws: BinaryReader.Malformed.self) { try JSONValue(reading: &truncated) }
        var unknown = BinaryReader([42])
        #expect(throws: BinaryReader.Malformed.self) { try JSONValue(reading: &unknown) }
    }

    @Test func aCachedTranslationGivesBackWhatItsParseSaid() throws {
        let clean = CachedTranslation(digest: "d1", parsed: .success(TranslationSummary(locale: "fr", warnings: [])))
        let summary = try clean.parsed.get()
        #expect(summary.locale == "fr" && summary.warnings.isEmpty && clean.digest == "d1")

        let warning = Diagnostic(.warning, file: "l10n/fr/a.yaml", keyPath: "title", "not in the page")
        let warned = CachedTranslation(digest: "d2", parsed: .success(TranslationSummary(locale: nil, warnings: [warning])))
        let kept = try warned.parsed.get()
        #expect(kept.locale == nil && kept.warnings == [warning])

        let failure = Diagnostic(.error, file: "l10n/fr/b.yaml", "not YAML")
        let failed = CachedTranslation(digest: "d3", parsed: .failure(failure))
        #expect(throws: failure) { try failed.parsed.get() }
    }

    @Test func aCompactedObjectHasTheSameMembersInTheRoomTheyTake() {
        var object = JSONObject()
        for (index, key) in ["page_id", "locale", "ttl", "audience", "title", "image_url"].enumerated() {
            object[key] = .integer(index)
        }
        #expect(object.members.capacity > object.count)
        let compacted = object.compacted
        #expect(compacted == object && compacted.members.map(\.key) == object.members.map(\.key))
        #expect(compacted.members.capacity < object.members.capacity)
        #expect(JSONValue.object(object).compacted == .object(object) && JSONValue.integer(3).compacted == .integer(3))
    }

    @Test func aDigestHoldsAHexSHA256AsBytesAndGivesBackItsText() throws {
        let bytes = Array("page bytes".utf8)
        let digest = SHA256.digest(bytes)
        #expect(digest.isSHA256 && digest.text == SHA256.hash(bytes))
        #expect(Digest(digest.text) == digest && Digest(digest.text).isSHA256)
        // Anything but 64 lower-case hex digits is text: kept as it is, unequal to the bytes' form.
        for text in [digest.text.uppercased(), String(digest.text.dropLast()), digest.text + "@members", "", "d"] {
            let other = Digest(text)
            #expect(!other.isSHA256 && other.text == text && other != digest)
        }
        #expect(MemoryLayout<Digest>.size < MemoryLayout<String>.size + 64)

        var out = ByteSink(capacity: 8)
        digest.writeJSON(into: &out)
        Digest("a\"b").writeJSON(into: &out)
        #expect(String(decoding: out.array(), as: UTF8.self) == "\"\(digest.text)\"\"a\\\"b\"")

        var hasher = SHA256()
        hasher.update(digest)
        #expect(hasher.finalize() == SHA256.hash(digest.text))
    }
}
