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
        for _ in 0..<20 {
            let candidate = Self.nextCandidate()
            guard Self.isFree(candidate) else { continue }
            let process = Process()
            process.executableURL = URL(fileURLWithPath: try Self.executable ?? { throw CocoaError(.executableNotLoadable) }())
            process.arguments = ["--daemon", "--no-detach", "--address=127.0.0.1", "--port=\(candidate)", "--config=\(config)"]
            process.standardError = FileHandle.nullDevice
            do { try process.run() } catch {
                lastError = error
                continue
            }
            // Ready once it accepts a connection; one that lost the port to another exits.
            let deadline = Date().addingTimeInterval(10)
            while process.isRunning, !Self.accepts(candidate), Date() < deadline { usleep(20_000) }
            if process.isRunning, Self.accepts(candidate) {
                port = candidate
                running = process
                return
            }
            if process.isRunning {
                process.terminate()
                process.waitUntilExit()
            }
        }
        throw lastError ?? CocoaError(.fileWriteUnknown)
    }

    /// Ports tried by this process, never the same twice: suites run in parallel start daemons
    /// at the same moment, and a daemon that lost the race for a port may not have exited yet
    /// when it is looked at.
    private static let candidates = NSLock()
    nonisolated(unsafe) private static var tried = 0
    private static func nextCandidate() -> Int {
        candidates.withLock {
            tried += 1
            return 20000 + (Int(getpid() % 2000) * 10 + tried * 7) % 40000
        }
    }

    /// Whether nothing listens on the port now (another process's daemon, say).
    private static func isFree(_ port: Int) -> Bool {
        withLoopbackSocket(port) { socketFD, address, length in
            var one: Int32 = 1
            _ = setsockopt(socketFD, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
            return bind(socketFD, address, length) == 0
        }
    }

    /// Whether something accepts connections on the port.
    private static func accepts(_ port: Int) -> Bool {
        withLoopbackSocket(port) { socketFD, address, length in connect(socketFD, address, length) == 0 }
    }

    /// `body` with a new TCP socket and the address of `port` on 127.0.0.1; the socket is closed after.
    private static func withLoopbackSocket(
        _ port: Int, _ body: (Int32, UnsafePointer<sockaddr>, socklen_t) -> Bool
    ) -> Bool {
        let socketFD = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socketFD >= 0 else { return false }
        defer { close(socketFD) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body(socketFD, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
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
