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
        let output: POParseOutput
        do {
            output = try POParserPool.shared.parse(bytes, executable: executable)
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
        memo.keep(output, for: key)
        return try output.catalog(file: file)
    }

    private static let memo = POParseMemo()

    /// Parses in this process. Only for files known to be valid: libgettextpo's fatal-error path
    /// must not return, so a broken file ends the process here. Use `parseInChildProcess`.
    public static func parseInProcess(path: String, file: String) throws(Diagnostic) -> (TranslationCatalog, [Diagnostic]) {
        let bytes = (try? Data(contentsOf: URL(fileURLWithPath: path))).map { [UInt8]($0) } ?? []
        return try GettextPoReader.read(path: path, bytes: bytes, onFatal: .terminate).catalog(file: file)
    }

    /// Becomes the parser child when `arguments` (a program's, its name first) ask for it: every
    /// program that parses PO files starts itself again as the child (`defaultExecutable`).
    public static func runChildIfAsked(_ arguments: [String]) {
        if arguments.count == 2, arguments[1] == childArgument { runChild() }
    }

    /// How many files one child parses before it exits: libgettextpo leaks a little per file
    /// (strings from its lexer and from `po_message_extracted_comments`), about 0.7 KB here.
    static let filesPerChild = 1000

    /// The child's whole life (see `POParserChild`): parse each file that arrives on standard
    /// input (a `POParserFrame` of its bytes), answer each with a frame of `POParseOutput`; exit
    /// at the end of the input, after `filesPerChild` answers, or from the fatal-error handler
    /// once it has answered. libgettextpo reads only named files: the bytes go through a file in
    /// memory (`memfd_create`), never the disk.
    static func runChild() -> Never {
        let scratch = memfd_create("quire-po", quire_mfd_cloexec)
        var pending: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        var answered = 0
        while true {
            while let bytes = POParserFrame.take(from: &pending) {
                var output =
                    hold(bytes, in: scratch)
                    ? GettextPoReader.read(path: "/proc/self/fd/\(scratch)", bytes: bytes, onFatal: .answerAndExit)
                    : POParseOutput(problems: [
                        .init(
                            severity: 1, line: 1, column: 1,
                            message: "the PO parser cannot hold the file: \(String(cString: strerror(errno)))")
                    ])
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

    /// Makes the in-memory file `descriptor` hold exactly `bytes`: written over the last file's
    /// (its pages stay allocated), then cut to their length.
    private static func hold(_ bytes: [UInt8], in descriptor: Int32) -> Bool {
        guard descriptor >= 0 else { return false }
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { pwrite(descriptor, $0.baseAddress! + offset, bytes.count - offset, off_t(offset)) }
            if written < 0 && errno == EINTR { continue }
            guard written > 0 else { return false }
            offset += written
        }
        return ftruncate(descriptor, off_t(bytes.count)) == 0
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
