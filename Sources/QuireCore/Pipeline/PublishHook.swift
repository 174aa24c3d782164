import Foundation

/// The command `site.yaml` names under `publish_hook`, run after each successful publish (to
/// rsync to other servers, purge a CDN, notify a chat). It gets QUIRE_SITE, QUIRE_VERSION,
/// QUIRE_PATH (the version folder) and QUIRE_DIST in its environment. Its failure is reported and
/// never undoes the local publish.
enum PublishHook {
    static let timeout: Double = 60

    /// Nil when the hook succeeded; otherwise what went wrong, for a warning.
    static func run(_ command: String, site: String, version: VersionID, dist: String) -> String? {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", command]
        var environment = ProcessInfo.processInfo.environment
        let absoluteDist = URL(fileURLWithPath: dist).standardizedFileURL.path
        environment["QUIRE_SITE"] = site
        environment["QUIRE_VERSION"] = version.description
        environment["QUIRE_DIST"] = absoluteDist
        environment["QUIRE_PATH"] = "\(absoluteDist)/\(site)/versions/\(version)"
        process.environment = environment
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        do { try process.run() } catch { return "publish hook could not start: \(error.localizedDescription)" }
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning && Date() < deadline { usleep(10_000) }
        if process.isRunning {
            process.terminate()
            return "publish hook still running after \(Int(timeout)) s: stopped"
        }
        let text = String(decoding: output.fileHandleForReading.availableData.prefix(2000), as: UTF8.self)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        guard process.terminationStatus == 0 else {
            return "publish hook exited with status \(process.terminationStatus)\(text.isEmpty ? "" : ": \(text)")"
        }
        return nil
    }
}
