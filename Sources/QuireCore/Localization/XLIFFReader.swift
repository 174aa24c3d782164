import Foundation

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// Reads XLIFF 1.2 and 2.0 files, as Crowdin, Lokalise, Phrase and translate-toolkit write them.
///
/// Hostile XML is refused before libxml2 sees it: no DOCTYPE, no entity declarations (XXE,
/// billion laughs), UTF-8 only (so the check cannot be dodged through another encoding).
/// Keys: 1.2 `resname`, else a translate-toolkit msgctxt context, else a `key: …` developer note
/// (Quire's PO export writes one, and `po2xliff` keeps it), else the unit `id`.
enum XLIFFReader {
    static func read(_ bytes: [UInt8], file: String) throws(Diagnostic) -> (TranslationCatalog, [Diagnostic]) {
        let positions = TextPositions(bytes)
        try refuseUnsafeDocument(bytes, positions: positions, file: file)

        let handler = XLIFFDocumentHandler(file: file, positions: positions)
        let parser = XMLParser(data: Data(bytes))
        parser.shouldProcessNamespaces = true
        parser.shouldResolveExternalEntities = false
        parser.delegate = handler
        let finished = parser.parse()
        if let error = handler.error { throw error }
        // libxml2 can report success with an error recorded, so both are checked.
        if !finished || parser.parserError != nil {
            let place = handler.syntaxErrorPosition ?? SourcePosition(line: max(parser.lineNumber, 1), column: max(parser.columnNumber, 1))
            let reason = (parser.parserError as? NSError).map { XMLParserErrorText.describe(code: $0.code) } ?? "unknown error"
            throw Diagnostic.error(file, at: place, "the file is not well-formed XML (\(reason)); fix the markup or export it again")
        }
        return try handler.finish()
    }

    /// DTDs are where XXE and entity-expansion attacks live, and translation files never need one.
    private static func refuseUnsafeDocument(_ bytes: [UInt8], positions: TextPositions, file: String) throws(Diagnostic) {
        if bytes.starts(with: [0xFE, 0xFF]) || bytes.starts(with: [0xFF, 0xFE]) || bytes.contains(0) {
            throw Diagnostic.error(file, "the file is not UTF-8 (it looks like UTF-16); save the XLIFF file as UTF-8")
        }
        guard String(validating: bytes, as: UTF8.self) != nil else {
            throw Diagnostic.error(file, "the file is not valid UTF-8; save the XLIFF file as UTF-8")
        }
        for construct in ["<!DOCTYPE", "<!ENTITY"] {
            if let offset = positions.firstOccurrence(ofCaseInsensitive: construct) {
                throw Diagnostic.error(
                    file, at: positions.position(ofByte: offset),
                    "\(construct) is refused in translation files (document type declarations and entities allow XXE and entity-expansion attacks); remove it"
                )
            }
        }
        // Foundation's XMLParser calls strlen on the NULL data libxml2 passes for a processing
        // instruction without data (`<?name?>`): a crash, found by fuzz/translations.
        if let offset = emptyProcessingInstruction(bytes) {
            throw Diagnostic.error(
                file, at: positions.position(ofByte: offset),
                "a processing instruction without data ('<?name?>') is refused in translation files; remove it")
        }
        if let declared = declaredEncoding(bytes), !["utf-8", "utf8", "us-ascii", "ascii"].contains(declared.lowercased()) {
            throw Diagnostic.error(
                file, "the XML declaration names encoding \"\(declared)\"; only UTF-8 is accepted, save the file as UTF-8")
        }
    }

    /// The byte offset of the first `<?name?>` (optionally with blanks before `?>`), if any.
    private static func emptyProcessingInstruction(_ bytes: [UInt8]) -> Int? {
        let question = UInt8(ascii: "?")
        let less = UInt8(ascii: "<")
        let greater = UInt8(ascii: ">")
        var index = 0
        while index + 1 < bytes.count {
            defer { index += 1 }
            guard bytes[index] == less, bytes[index + 1] == question else { continue }
            var cursor = index + 2
            let nameStart = cursor
            while cursor < bytes.count, !Self.isBlank(bytes[cursor]), bytes[cursor] != question { cursor += 1 }
            guard cursor > nameStart else { continue }
            while cursor < bytes.count, Self.isBlank(bytes[cursor]) { cursor += 1 }
            if cursor + 1 < bytes.count, bytes[cursor] == question, bytes[cursor + 1] == greater { return index }
        }
        return nil
    }

    private static func isBlank(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D }

    /// The `encoding="…"` of the XML declaration, if there is one.
    private static func declaredEncoding(_ bytes: [UInt8]) -> String? {
        let head = String(decoding: bytes.prefix(200), as: UTF8.self)
        guard head.hasPrefix("<?xml") || head.hasPrefix("\u{FEFF}<?xml"), let end = head.range(of: "?>") else { return nil }
        let declaration = head[..<end.lowerBound]
        guard let key = declaration.range(of: "encoding") else { return nil }
        let rest = declaration[key.upperBound...].drop { $0 == " " || $0 == "=" || $0 == "\t" }
        guard let quote = rest.first, quote == "\"" || quote == "'" else { return nil }
        return String(rest.dropFirst().prefix { $0 != quote })
    }
}

/// Names for libxml2's error codes, as XMLParser reports them without text on Linux.
enum XMLParserErrorText {
    static func describe(code: Int) -> String {
        switch code {
        case 4: return "the document is empty"
        case 5: return "the document ends too early"
        case 9: return "an invalid character"
        case 23: return "an unterminated entity reference"
        case 26: return "an undeclared entity"
        case 38, 39, 40, 41: return "a malformed attribute"
        case 64, 65: return "a malformed XML declaration"
        case 73, 76: return "a start and end tag that do not match"
        case 68: return "a malformed name"
        default: return "libxml2 error \(code)"
        }
    }
}
