internal import CGettextPo
import Foundation
import Synchronization

/// Reads gettext PO files with libgettextpo.
///
/// libgettextpo's error handler must not return on a fatal error (and every syntax error ends in
/// one), so files are parsed in a child process: the running program started again as
/// `quire __parse-po FILE`, which prints the catalog as JSON and exits, from the handler if need
/// be. A PO file that kills its parser costs a diagnostic, never the watcher.
///
/// Mapping: the key is `msgctxt` (else a `#. key: …` comment, else the `msgid`); the source text
/// is `msgid`, the translation `msgstr`; `#, fuzzy` marks it stale. Empty `msgstr`, obsolete
/// (`#~`) entries and the header are not entries; plural entries are skipped with a warning.
/// The locale comes from the `Language:` header, the page from `X-Quire-Page:` or, when every
/// entry has the same one, the `#:` reference.
public enum POFileParser {
    /// The first argument that makes `quire` run `runChildMain(file:)`.
    public static let childArgument = "__parse-po"
    /// The program started for the child: the running executable.
    public static let defaultExecutable = "/proc/self/exe"

    /// Parses PO bytes in a child process running `executable __parse-po FILE`.
    /// `executable` must answer `__parse-po` (quire's `main` does; a test runner does not).
    /// Bytes parsed before (by the same executable) are not parsed again: a watcher's rebuilds and
    /// the dashboard's requests read a site's unchanged PO files many times, and a child costs a
    /// process start.
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
        let run: ChildProcessOutput
        do {
            run = try ChildProcess.run(executable: executable, arguments: [childArgument, path])
        } catch {
            throw Diagnostic.error(file, "cannot start the PO parser \(executable): \(error.reason)")
        }
        guard let output = try? JSONDecoder().decode(POParseOutput.self, from: Data(run.stdout)) else {
            throw Diagnostic.error(
                file, "the PO parser stopped (\(run.status)) without a result; the file may be damaged, check it with msgfmt --check")
        }
        return output
    }

    /// Parses in this process. Only for files known to be valid: libgettextpo's fatal-error path
    /// must not return, so a broken file ends the process here. Use `parseInChildProcess`.
    public static func parseInProcess(path: String, file: String) throws(Diagnostic) -> (TranslationCatalog, [Diagnostic]) {
        try GettextPoReader.read(path: path, onFatal: .terminate).catalog(file: file)
    }

    /// The child's whole life: parse `file`, print the result as JSON on stdout, exit.
    public static func runChildMain(file: String) -> Never {
        let output = GettextPoReader.read(path: file, onFatal: .printAndExit)
        GettextPoReader.printAndExit(output)
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
