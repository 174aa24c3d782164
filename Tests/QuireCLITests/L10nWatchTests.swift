import Foundation
import QuireTestSupport
import Testing

/// A running `quire watch` (a real child process on real inotify) and translation files dropped
/// into it. Serialized: inotify tests must not run alongside each other.
@Suite(.serialized) struct L10nWatchTests {
    /// A PO file whose syntax error is fatal to libgettextpo costs a diagnostic, not the watcher;
    /// the next good save of it is published.
    @Test func fatalPOErrorLeavesTheWatcherRunning() throws {
        let workspace = try L10nWorkspace()
        defer { workspace.remove() }
        let log = workspace.path("watch.log")
        _ = FileManager.default.createFile(atPath: log, contents: nil)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try QuireBinary.path())
        process.arguments = ["watch", "--pages", workspace.pages, "--dist", workspace.dist, "--no-preview"]
        var environment = ProcessInfo.processInfo.environment
        environment["NO_COLOR"] = "1"
        process.environment = environment
        let logHandle = try FileHandle(forWritingTo: URL(fileURLWithPath: log))
        process.standardOutput = logHandle
        process.standardError = logHandle
        try process.run()
        defer {
            if process.isRunning {
                process.terminate()
                process.waitUntilExit()
            }
            try? logHandle.close()
        }
        let store = "dist/shop/current/es/guides/safety.json"
        try #require(
            waitUntil { workspace.exists(store) && (try? String(contentsOfFile: log, encoding: .utf8))?.contains("watching") == true },
            "the first build: \((try? String(contentsOfFile: log, encoding: .utf8)) ?? "")")

        try workspace.write(
            "pages/shop/l10n/es/guides/safety.po",
            """
            msgid ""
            msgstr ""
            "Language: es\\n"
            "Content-Type: text/plain; charset=UTF-8\\n"

            msgctxt "title"
            msgid "Safety"
            msgstr "Seguridad

            msgctxt "back.label"
            msgid "Back to the store"
            msgstr "Volver a la tienda"

            """)
        let broken = "pages/shop/l10n/es/guides/safety.po:"
        #expect(
            waitUntil {
                ((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").split(separator: "\n").contains {
                    $0.contains(broken) && $0.contains("error:")
                }
            },
            "a diagnostic for the broken file: \((try? String(contentsOfFile: log, encoding: .utf8)) ?? "")")
        #expect(process.isRunning, "the watcher survived the fatal PO error")

        try workspace.write(
            "pages/shop/l10n/es/guides/safety.po",
            """
            msgid ""
            msgstr ""
            "Language: es\\n"
            "Content-Type: text/plain; charset=UTF-8\\n"

            msgctxt "title"
            msgid "Safety"
            msgstr "Seguridad"

            """)
        #expect(
            waitUntil { (try? workspace.read(store))?.contains("Seguridad") == true },
            "the good save is published: \((try? String(contentsOfFile: log, encoding: .utf8)) ?? "")")
        #expect(process.isRunning)
        process.terminate()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
    }

    /// Polls `condition` with a generous limit, so a missing publish fails instead of hanging.
    private func waitUntil(limit: Double = 60, _ condition: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(limit)
        while Date() < deadline {
            if condition() { return true }
            usleep(50_000)
        }
        return condition()
    }
}
