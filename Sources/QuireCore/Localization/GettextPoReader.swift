internal import CGettextPo
import Foundation
import Synchronization

/// The one type that calls libgettextpo. Its error handler is a C function without context, so
/// problems go to a process-wide collector; parses are serialized.
enum GettextPoReader {
    enum FatalPolicy: Sendable { case answerAndExit, terminate }

    private struct Collector: Sendable {
        var problems: [POParseOutput.Problem] = []
        var onFatal: FatalPolicy = .terminate
    }

    private static let collector = Mutex(Collector())
    private static let serial = NSLock()

    /// Parses the file at `path`, whose bytes are `bytes` (they place each entry at its line).
    static func read(path: String, bytes: [UInt8], onFatal: FatalPolicy) -> POParseOutput {
        serial.lock()
        defer { serial.unlock() }
        collector.withLock { $0 = Collector(problems: [], onFatal: onFatal) }

        var handler = po_xerror_handler(xerror: handleProblem, xerror2: handleProblemPair)
        var output = POParseOutput()
        guard let poFile = po_file_read_v3(path, &handler) else {
            output.problems = takeProblems()
            if output.problems.isEmpty {
                output.problems = [
                    .init(severity: 1, line: 1, column: 1, message: "cannot read the PO file: \(String(cString: strerror(errno)))")
                ]
            }
            return output
        }
        defer { po_file_free(poFile) }
        output = messages(of: poFile, bytes: bytes)
        output.problems = takeProblems() + output.problems
        return output
    }

    private static func takeProblems() -> [POParseOutput.Problem] {
        collector.withLock { state in
            defer { state.problems = [] }
            return state.problems
        }
    }

    private static func messages(of poFile: po_file_t, bytes: [UInt8]) -> POParseOutput {
        var output = POParseOutput()
        var entries: [POParseOutput.Entry] = []
        var references: Set<String> = []
        var everyEntryHasOneReference = true
        var firstLines: [String: Int] = [:]
        let startLines = POEntryLocator.entryStartLines(bytes)
        var messageIndex = 0

        guard let domains = po_file_domains(poFile) else { return output }
        var domainIndex = 0
        while let domain = domains[domainIndex] {
            domainIndex += 1
            guard let iterator = po_message_iterator(poFile, domain) else { continue }
            defer { po_message_iterator_free(iterator) }
            while let message = po_next_message(iterator) {
                if po_message_is_obsolete(message) != 0 { continue }
                let line = messageIndex < startLines.count ? startLines[messageIndex] : 1
                messageIndex += 1
                let context = po_message_msgctxt(message).map { String(cString: $0) }
                let msgid = String(cString: po_message_msgid(message))
                if context == nil && msgid.isEmpty {
                    readHeader(String(cString: po_message_msgstr(message)), line: line, into: &output)
                    continue
                }
                if po_message_msgid_plural(message) != nil {
                    output.problems.append(
                        .init(
                            severity: 0, line: line, column: 1,
                            message: "plural entry \"\(msgid)\" is skipped; quire strings have no plural forms"))
                    continue
                }
                let comments = po_message_extracted_comments(message).map { String(cString: $0) } ?? ""
                let key = context ?? keyFromComments(comments) ?? msgid
                if let firstLine = firstLines[key] {
                    output.problems.append(
                        .init(
                            severity: 1, line: line, column: 1,
                            message: "duplicate key \"\(key)\" (first at line \(firstLine)); keep one entry per key"))
                    continue
                }
                firstLines[key] = line
                let pagesOfMessage = fileReferences(message)
                if pagesOfMessage.count == 1 { references.formUnion(pagesOfMessage) } else { everyEntryHasOneReference = false }
                let translation = String(cString: po_message_msgstr(message))
                if translation.isEmpty { continue }  // untranslated
                entries.append(.init(key: key, text: translation, source: msgid, fuzzy: po_message_is_fuzzy(message) != 0, line: line))
            }
        }
        if output.pageID == nil, everyEntryHasOneReference, references.count == 1 { output.pageID = references.first }
        output.entries = entries
        return output
    }

    private static func readHeader(_ header: String, line: Int, into output: inout POParseOutput) {
        func field(_ name: String) -> String? {
            guard let value = po_header_field(header, name) else { return nil }
            defer { free(value) }
            let text = String(cString: value).trimmingCharacters(in: .whitespaces)
            return text.isEmpty ? nil : text
        }
        output.locale = field("Language")
        output.pageID = field("X-Quire-Page")
        if let contentType = field("Content-Type"), let charset = contentType.split(separator: "charset=").last.map(String.init),
            !["utf-8", "utf8", "ascii", "us-ascii", "charset"].contains(charset.lowercased())
        {
            output.problems.append(
                .init(
                    severity: 1, line: line, column: 1,
                    message: "the PO file is in \(charset); convert it to UTF-8 (msgconv --to-code=UTF-8) and set charset=UTF-8"))
        }
    }

    /// `#: trex-store` references without line numbers: the page the message belongs to.
    private static func fileReferences(_ message: po_message_t) -> Set<String> {
        var pages: Set<String> = []
        var index: Int32 = 0
        while let position = po_message_filepos(message, index) {
            index += 1
            if let name = po_filepos_file(position) { pages.insert(String(cString: name)) }
        }
        return pages
    }

    private static func keyFromComments(_ comments: String) -> String? {
        for line in comments.split(separator: "\n") where line.hasPrefix(QuireKeyNote.prefix) {
            return String(line.dropFirst(QuireKeyNote.prefix.count)).trimmingCharacters(in: .whitespaces)
        }
        return nil
    }

    // MARK: - The C error handler

    private static let handleProblem:
        @convention(c) (
            Int32, po_message_t?, UnsafePointer<CChar>?, Int, Int, Int32, UnsafePointer<CChar>?
        ) -> Void = { severity, _, _, line, column, _, text in
            GettextPoReader.record(severity: severity, line: line, column: column, text: text)
        }

    private static let handleProblemPair:
        @convention(c) (
            Int32, po_message_t?, UnsafePointer<CChar>?, Int, Int, Int32, UnsafePointer<CChar>?,
            po_message_t?, UnsafePointer<CChar>?, Int, Int, Int32, UnsafePointer<CChar>?
        ) -> Void = { severity, _, _, line, column, _, text, _, _, _, _, _, text2 in
            let joined = [text, text2].compactMap { $0.map { String(cString: $0) } }.joined(separator: " ")
            joined.withCString { GettextPoReader.record(severity: severity, line: line, column: column, text: $0) }
        }

    private static func record(severity: Int32, line: Int, column: Int, text: UnsafePointer<CChar>?) {
        let message = text.map { String(cString: $0) }?.trimmingCharacters(in: .whitespacesAndNewlines) ?? "unknown problem"
        // (size_t)-1 arrives as -1: no line, no column.
        let problem = POParseOutput.Problem(
            severity: Int(severity), line: line > 0 ? line : 1, column: column > 0 ? column : 1,
            message: "PO syntax: \(message); fix the entry (msgfmt --check shows the same)")
        let policy = collector.withLock { state in
            if severity != PO_SEVERITY_FATAL_ERROR || state.problems.allSatisfy({ $0.severity == 0 }) { state.problems.append(problem) }
            return state.onFatal
        }
        guard severity == PO_SEVERITY_FATAL_ERROR else { return }
        // Must not return: libgettextpo's state is undefined after a fatal error.
        switch policy {
        case .answerAndExit:
            POParseOutput(entries: nil, problems: takeProblems(), parserEnds: true).answer()
            exit(0)
        case .terminate: fatalError("libgettextpo fatal error in a PO file parsed in-process: \(message)")
        }
    }
}
