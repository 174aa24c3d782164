internal import CGettextPo
import Foundation
import Synchronization

/// Reads gettext PO files with libgettextpo.
///
/// libgettextpo's error handler must not return on a fatal error, so files are parsed in child
/// processes: the running program started again as `quire __parse-po`, which answers each file
/// with the catalog as JSON, and exits from the handler once it has answered (`POParserPool` keeps
/// the children between files). A PO file that kills its parser costs a diagnostic, never the
/// watcher.
///
/// Mapping: the key is `msgctxt` (else a `#. key: …` comment, else the `msgid`); the source text
/// is `msgid`, the translation `msgstr`; `#, fuzzy` marks it stale. Empty `msgstr`, obsolete
/// (`#~`) entries and the header are not entries; plural entries are skipped with a warning.
/// The locale comes from the `Language:` header, the page from `X-Quire-Page:` or, when every
/// entry has the same one, the `#:` reference.
public enum POFileParser {
    /// The argument that makes `quire` run `runChild()` (see `runChildIfAsked`).
    public static let childArgument = "__parse-po"
    /// The program started for the child: the running executable.
    public static let defaultExecutable = "/proc/self/exe"

    /// Parses PO bytes in a child process running `executable __parse-po` (see `POParserPool`).
    /// `executable` must answer `__parse-po` (quire's `main` does; a test runner does not).
    /// Bytes parsed before (by the same executable) are not parsed again: a watcher's rebuilds and
    /// the dashboard's requests read a site's unchanged PO files many times.
    public static func parseInChildProcess(
        _ bytes: [UInt8], file: String, executable: String = defaultExecutable
    ) throws(Diagnostic) -> (TranslationCatalog, [Diagnostic]) {
        let key = POParseMemo.key(bytes, executable: executable)
        if let output = memo.output(for: key) { return try output.catalog(file: file) }
        let temporary = try TemporaryFile(bytes: bytes, file: file)
        defer { temporary.remove() }
        let output = try childOutput(path: temporary.path, file: file, executable: executable)
        memo.keep(output, for: key)
        return try output.catalog(file: file)
    }

    /// Parses the PO file at `path` in a child process; diagnostics name `file`.
    public static func parseInChildProcess(
        path: String, file: String, executable: String = defaultExecutable
    ) throws(Diagnostic) -> (TranslationCatalog, [Diagnostic]) {
        try childOutput(path: path, file: file, executable: executable).catalog(file: file)
    }

    private static let memo = POParseMemo()

    private static func childOutput(path: String, file: String, executable: String) throws(Diagnostic) -> POParseOutput {
        do {
            return try POParserPool.shared.parse(path: path, executable: executable)
        } catch {
            switch error {
            case .cannotStart(let failure):
                throw Diagnostic.error(file, "cannot start the PO parser \(executable): \(failure.reason)")
            case .stopped(let status):
                let ending = status.map(String.init(describing:)) ?? "status unknown"
                throw Diagnostic.error(
                    file, "the PO parser stopped (\(ending)) without a result; the file may be damaged, check it with msgfmt --check")
            }
        }
    }

    /// Parses in this process. Only for files known to be valid: libgettextpo's fatal-error path
    /// must not return, so a broken file ends the process here. Use `parseInChildProcess`.
    public static func parseInProcess(path: String, file: String) throws(Diagnostic) -> (TranslationCatalog, [Diagnostic]) {
        try GettextPoReader.read(path: path, onFatal: .terminate).catalog(file: file)
    }

    /// Becomes the parser child when `arguments` (a program's, its name first) ask for it: every
    /// program that parses PO files starts itself again as the child (`defaultExecutable`).
    public static func runChildIfAsked(_ arguments: [String]) {
        if arguments.count == 2, arguments[1] == childArgument { runChild() }
    }

    /// How many files one child parses before it exits: libgettextpo leaks a little per file
    /// (strings from its lexer and from `po_message_extracted_comments`), about 0.7 KB here.
    static let filesPerChild = 1000

    /// The child's whole life (see `POParserChild`): parse each path that arrives on standard
    /// input, answer each with a line of JSON; exit at the end of the input, after
    /// `filesPerChild` answers, or from the fatal-error handler once it has answered.
    static func runChild() -> Never {
        var pending: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        var answered = 0
        while true {
            while let end = pending.firstIndex(of: 0) {
                let path = String(decoding: pending[..<end], as: UTF8.self)
                pending.removeSubrange(...end)
                var output = GettextPoReader.read(path: path, onFatal: .answerAndExit)
                answered += 1
                output.parserEnds = answered == filesPerChild
                output.answer()
                if output.parserEnds { exit(0) }
            }
            let count = buffer.withUnsafeMutableBytes { read(0, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { exit(0) }
            pending.append(contentsOf: buffer[0..<count])
        }
    }
}

/// The children's results by the sha256 of the bytes they read (and the program that read them):
/// a child's output depends on nothing else. A child that stopped without a result is not kept.
final class POParseMemo: @unchecked Sendable {
    /// Past this many, the memo starts again: a site's PO files, not every version of them.
    static let limit = 4096
    // NSLock rather than Mutex: ThreadSanitizer sees its ordering (see StageClock).
    private let lock = NSLock()
    private var outputs: [String: POParseOutput] = [:]

    static func key(_ bytes: [UInt8], executable: String) -> String {
        executable + "\u{0}" + SHA256.hash(bytes)
    }

    func output(for key: String) -> POParseOutput? {
        lock.withLock { outputs[key] }
    }

    func keep(_ output: POParseOutput, for key: String) {
        lock.withLock {
            if outputs.count >= Self.limit { outputs.removeAll(keepingCapacity: true) }
            outputs[key] = output
        }
    }
}

/// What the child prints: the entries, or the problems that stopped it.
struct POParseOutput: Codable {
    struct Entry: Codable {
        var key: String
        var text: String
        var source: String?
        var fuzzy: Bool
        var line: Int
    }
    struct Problem: Codable {
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

    /// Writes this output as the child's answer: one line of JSON on standard output.
    func answer() {
        FileHandle.standardOutput.write(((try? JSONEncoder().encode(self)) ?? Data()) + Data("\n".utf8))
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
