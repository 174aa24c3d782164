import Foundation

/// What a PO parser child answers for one file: the entries, or the problems that stopped it.
/// It travels as one frame (`POParserFrame`) in `BinaryWriter`'s encoding: a site's thousands of
/// PO files are thousands of answers, and JSON's encoder and decoder cost more than a tenth of
/// such a build.
struct POParseOutput {
    struct Entry {
        var key: String
        var text: String
        var source: String?
        var fuzzy: Bool
        var line: Int
    }
    struct Problem {
        var severity: Int
        var line: Int
        var column: Int
        var message: String
    }

    var locale: String?
    var pageID: String?
    /// nil when the file could not be read.
    var entries: [Entry]?
    var problems: [Problem] = []
    /// Set on a child's last answer (from the fatal-error handler, or the last of its files).
    var parserEnds = false

    /// Writes this output as the child's answer, one frame on standard output (its socket).
    func answer() { _ = StreamSocket.send(1, POParserFrame.framed(encoded())) }

    func encoded() -> [UInt8] {
        var writer = BinaryWriter(capacity: 256 + (entries?.count ?? 0) * 256)
        writer.optionalString(locale)
        writer.optionalString(pageID)
        writer.optional(entries) { writer, entries in
            writer.array(entries) { writer, entry in
                writer.string(entry.key)
                writer.string(entry.text)
                writer.optionalString(entry.source)
                writer.bool(entry.fuzzy)
                writer.int(entry.line)
            }
        }
        writer.array(problems) { writer, problem in
            writer.int(problem.severity)
            writer.int(problem.line)
            writer.int(problem.column)
            writer.string(problem.message)
        }
        writer.bool(parserEnds)
        return writer.bytes
    }

    func catalog(file: String) throws(Diagnostic) -> (TranslationCatalog, [Diagnostic]) {
        let diagnostics = problems.map { problem in
            Diagnostic(
                problem.severity == 0 ? .warning : .error, file: file,
                at: SourcePosition(line: max(problem.line, 1), column: max(problem.column, 1)), problem.message)
        }
        if let firstError = diagnostics.first(where: \.isError) { throw firstError }
        guard let entries else { throw Diagnostic.error(file, "the PO file could not be read; check it with msgfmt --check") }
        let translated = entries.map {
            TranslationEntry(
                key: $0.key, text: $0.text, sourceText: $0.source, isFuzzy: $0.fuzzy, position: SourcePosition(line: $0.line, column: 1))
        }
        return (TranslationCatalog(file: file, locale: locale, pageID: pageID, entries: translated), diagnostics)
    }
}

extension POParseOutput {
    /// What `encoded()` wrote; anything else (a child that died mid-answer) is `Malformed`.
    init(decoding bytes: [UInt8]) throws(BinaryReader.Malformed) {
        typealias Malformed = BinaryReader.Malformed
        var reader = BinaryReader(bytes)
        locale = try reader.optionalString()
        pageID = try reader.optionalString()
        entries = try reader.optional { reader throws(Malformed) in
            try reader.array { reader throws(Malformed) in
                Entry(
                    key: try reader.string(), text: try reader.string(), source: try reader.optionalString(), fuzzy: try reader.bool(),
                    line: try reader.int())
            }
        }
        problems = try reader.array { reader throws(Malformed) in
            Problem(severity: try reader.int(), line: try reader.int(), column: try reader.int(), message: try reader.string())
        }
        parserEnds = try reader.bool()
        guard reader.isAtEnd else { throw Malformed() }
    }
}
