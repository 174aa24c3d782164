import Foundation
import Glibc

/// `rsync --daemon` on a free loopback port, serving one folder as several modules:
/// - `replica`: read-write, symbolic links kept as sent (`munge symlinks = no`), as a replica's must be;
/// - `frozen`: read-only: reached, but nothing can be copied there;
/// - `munged`: read-write with the daemon's defaults, which munge links without chroot.
public final class RsyncDaemon {
    public static let executable: String? = ["/usr/bin/rsync", "/bin/rsync", "/usr/local/bin/rsync"].first { access($0, X_OK) == 0 }

    public let port: Int
    private let config: String
    private var running: Process?

    public init(module: String) throws {
        config = module + ".rsyncd.conf"
        // Owner settings only as root (CI): the daemon runs as the test's user otherwise.
        let owner = geteuid() == 0 ? "uid = root\ngid = root\n" : ""
        let text =
            "use chroot = no\n\(owner)[replica]\npath = \(module)\nread only = no\nmunge symlinks = no\n"
            + "[frozen]\npath = \(module)\nread only = yes\nmunge symlinks = no\n"
            + "[munged]\npath = \(module)\nread only = no\n"
        try text.write(toFile: config, atomically: true, encoding: .utf8)
        var lastError: (any Error)?
        for attempt in 0..<20 {
            let candidate = 20000 + Int(getpid() % 20000) + attempt * 7
            let process = Process()
            process.executableURL = URL(fileURLWithPath: try Self.executable ?? { throw CocoaError(.executableNotLoadable) }())
            process.arguments = ["--daemon", "--no-detach", "--address=127.0.0.1", "--port=\(candidate)", "--config=\(config)"]
            process.standardError = FileHandle.nullDevice
            do { try process.run() } catch {
                lastError = error
                continue
            }
            usleep(300_000)
            if process.isRunning {
                port = candidate
                running = process
                return
            }
        }
        throw lastError ?? CocoaError(.fileWriteUnknown)
    }

    public func stop() {
        guard let running, running.isRunning else { return }
        running.terminate()
        running.waitUntilExit()
    }

    deinit {
        stop()
        unlink(config)
    }
}
