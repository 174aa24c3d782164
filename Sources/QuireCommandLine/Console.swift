import Foundation
package import QuireCore
package import QuireModel

/// Where the command line prints: diagnostics on stderr as `path:line:col: severity: message`
/// (colour only on a terminal and never with NO_COLOR), data on stdout, all through one lock
/// so lines from concurrent builds never interleave.
package final class Console: @unchecked Sendable {
    package static let shared = Console()
    private let lock = NSLock()
    package let colour: Bool

    init() {
        colour =
            isatty(STDERR_FILENO) == 1 && ProcessInfo.processInfo.environment["NO_COLOR"] == nil
            && ProcessInfo.processInfo.environment["TERM"] != "dumb"
    }

    package func diagnostic(_ diagnostic: Diagnostic) {
        guard colour else { return error(diagnostic.description) }
        let colourCode = diagnostic.severity == .error ? "31" : diagnostic.severity == .warning ? "33" : "36"
        let location = "\(diagnostic.file):\(diagnostic.position.line):\(diagnostic.position.column):"
        let subject = diagnostic.keyPath.isEmpty ? diagnostic.message : "\(diagnostic.keyPath): \(diagnostic.message)"
        error("\u{1B}[1m\(location)\u{1B}[0m \u{1B}[1;\(colourCode)m\(diagnostic.severity.rawValue):\u{1B}[0m \(subject)")
    }

    package func error(_ line: String) {
        clearProgress()
        write(line + "\n", to: FileHandle.standardError)
    }

    private var progressShown = false

    /// A one-line progress bar on stderr, only on a terminal (and only for long builds).
    package func progress(_ label: String, done: Int, total: Int) {
        guard isatty(STDERR_FILENO) == 1, total >= 500 else { return }
        let width = 30
        let filled = total == 0 ? width : width * done / total
        let bar = String(repeating: "#", count: filled) + String(repeating: " ", count: width - filled)
        lock.lock()
        progressShown = done < total
        lock.unlock()
        write("\r\(label) [\(bar)] \(done)/\(total) pages" + (done < total ? "" : "\r\u{1B}[K"), to: FileHandle.standardError)
    }

    private func clearProgress() {
        lock.lock()
        let shown = progressShown
        progressShown = false
        lock.unlock()
        if shown { write("\r\u{1B}[K", to: FileHandle.standardError) }
    }
    package func out(_ text: String) { write(text.hasSuffix("\n") ? text : text + "\n", to: FileHandle.standardOutput) }
    package func json(_ value: JSONValue) { write(JSONWriter(pretty: true).string(value), to: FileHandle.standardOutput) }

    private func write(_ text: String, to handle: FileHandle) {
        lock.lock()
        defer { lock.unlock() }
        handle.write(Data(text.utf8))
    }
}

/// Exit codes (README.md, "The two commands").
package enum ExitCode: Int32, Comparable {
    case ok = 0
    case contentProblems = 1
    case usage = 2
    case operational = 3
}

extension ExitCode {
    package static func < (lhs: ExitCode, rhs: ExitCode) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// A command that cannot go on: printed as `quire: error: ...`, exits with `code`.
package struct CommandFailure: Error {
    package var code: ExitCode
    package var message: String
    package init(_ code: ExitCode, _ message: String) {
        self.code = code
        self.message = message
    }
}
