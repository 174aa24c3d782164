import Foundation
import QuireTestSupport
import Testing

/// A temporary copy of the `l10n-site` fixture (`pages/shop`) with `dist/` next to it, and the
/// built `quire` binary to run on it.
struct L10nWorkspace {
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static let fixture = packageRoot.appendingPathComponent("Tests/QuireCoreTests/Fixtures/l10n-site")

    let root: URL
    var pages: String { root.appendingPathComponent("pages").path }
    var dist: String { root.appendingPathComponent("dist").path }

    init() throws {
        var template = Array("/tmp/quire-l10n-cli-XXXXXX".utf8CString)
        guard let base = mkdtemp(&template) else { throw CocoaError(.fileWriteUnknown) }
        root = URL(fileURLWithPath: String(cString: base))
        try FileManager.default.copyItem(at: Self.fixture, to: root.appendingPathComponent("pages"))
    }

    func remove() { try? FileManager.default.removeItem(at: root) }

    func path(_ relative: String) -> String { root.appendingPathComponent(relative).path }

    func read(_ relative: String) throws -> String { try String(contentsOfFile: path(relative), encoding: .utf8) }

    func write(_ relative: String, _ text: String) throws {
        let url = root.appendingPathComponent(relative)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(text.utf8).write(to: url)
    }

    func exists(_ relative: String) -> Bool { FileManager.default.fileExists(atPath: path(relative)) }

    /// The commands that take `--pages` (`quire <command> --help`); the others reject it.
    static let commandsTakingPages: Set<String> = ["build", "check", "watch", "rollback", "unpin", "gc", "push", "l10n", "schema"]

    /// Runs `quire` in this workspace's folder, with its `--pages` when the command takes it, and
    /// `environment` added to this process's.
    func quire(_ arguments: [String], environment: [String: String] = [:]) throws -> CommandRun {
        let pagesOption = arguments.first.map(Self.commandsTakingPages.contains) == true ? ["--pages", pages] : []
        return try CommandRun.run(try QuireBinary.path(), arguments + pagesOption, in: root, environment: environment)
    }
}

struct CommandRun {
    var status: Int32
    var stdout: String
    var stderr: String

    static func run(_ executable: String, _ arguments: [String], in folder: URL? = nil, environment added: [String: String] = [:])
        throws -> CommandRun
    {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        if let folder { process.currentDirectoryURL = folder }
        var environment = ProcessInfo.processInfo.environment
        environment["NO_COLOR"] = "1"
        environment.merge(added) { _, new in new }
        process.environment = environment
        // Files, not pipes: a chatty child cannot block on a full pipe.
        let outURL = FileManager.default.temporaryDirectory.appendingPathComponent("quire-run-\(UUID().uuidString).out")
        let errURL = outURL.deletingPathExtension().appendingPathExtension("err")
        _ = FileManager.default.createFile(atPath: outURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)
        defer {
            try? FileManager.default.removeItem(at: outURL)
            try? FileManager.default.removeItem(at: errURL)
        }
        let out = try FileHandle(forWritingTo: outURL)
        let err = try FileHandle(forWritingTo: errURL)
        process.standardOutput = out
        process.standardError = err
        try process.run()
        process.waitUntilExit()
        try out.close()
        try err.close()
        return CommandRun(
            status: process.terminationStatus,
            stdout: (try? String(contentsOf: outURL, encoding: .utf8)) ?? "",
            stderr: (try? String(contentsOf: errURL, encoding: .utf8)) ?? "")
    }

    /// A translate-toolkit or gettext program; fails the test when it is not installed.
    static func tool(_ name: String) throws -> String {
        let found = try run("/usr/bin/env", ["which", name])
        let path = found.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        try #require(found.status == 0 && !path.isEmpty, "\(name) not installed (pip install translate-toolkit; apt-get install gettext)")
        return path
    }
}
