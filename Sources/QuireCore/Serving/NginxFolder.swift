import Foundation
import Glibc

/// The folder of the nginx a watcher runs: its configuration, pid file and temporary folders.
/// Made with `mkdtemp` (a name nobody can guess or make first) and owned by this process; others
/// may enter it (0711, so nginx's workers reach their temporary folders) but not list it. It
/// names its watcher in `watcher.pid`, so the folder of a watcher killed outright is found and
/// removed by the next one.
public struct NginxFolder: Sendable {
    public let path: String
    public var configuration: String { "\(path)/nginx.conf" }
    public var pidFile: String { "\(path)/nginx.pid" }

    static let prefix = "quire-nginx-"
    static var parent: String { FileManager.default.temporaryDirectory.path }

    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// A new folder; `worker` is the user nginx's workers run as (nil: this process's user).
    public static func make(worker: NginxWorkerUser?) throws(Failure) -> NginxFolder {
        var template = Array("\(parent)/\(prefix)XXXXXX".utf8CString)
        guard let made = template.withUnsafeMutableBufferPointer({ $0.baseAddress.flatMap { mkdtemp($0) } }) else {
            throw Failure(description: "cannot make a folder in \(parent): \(String(cString: strerror(errno)))")
        }
        let folder = NginxFolder(path: String(cString: made))
        guard chmod(folder.path, worker == nil ? 0o700 : 0o711) == 0 else {
            throw Failure(description: "\(folder.path): chmod: \(String(cString: strerror(errno)))")
        }
        try folder.writeFile("watcher.pid", "\(getpid())\n")
        return folder
    }

    public func write(configuration text: String) throws(Failure) {
        try writeFile("nginx.conf", text)
    }

    private func writeFile(_ name: String, _ text: String) throws(Failure) {
        do {
            try text.write(toFile: "\(path)/\(name)", atomically: true, encoding: .utf8)
        } catch {
            throw Failure(description: "\(path)/\(name): \(error.localizedDescription)")
        }
    }

    public func remove() { try? FileManager.default.removeItem(atPath: path) }

    /// The folders of watchers that are gone (killed with -9), and an nginx still running from one
    /// (a watcher killed in the instant between starting nginx and nginx tying itself to it).
    /// Only folders this user owns are touched.
    public static func removeLeftovers() {
        for name in (try? FileManager.default.contentsOfDirectory(atPath: parent)) ?? [] where name.hasPrefix(prefix) {
            let folder = NginxFolder(path: "\(parent)/\(name)")
            var info = stat()
            guard lstat(folder.path, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR, info.st_uid == geteuid(),
                let owner = folder.readPID("watcher.pid"), owner != getpid(), kill(owner, 0) != 0, errno == ESRCH
            else { continue }
            if let nginx = folder.readPID("nginx.pid"), let command = FileManager.default.contents(atPath: "/proc/\(nginx)/cmdline"),
                String(decoding: command, as: UTF8.self).contains(folder.configuration)
            {
                // Gone before the ports are chosen: it may hold the ones this watcher wants.
                kill(nginx, SIGTERM)
                for _ in 0..<200 where kill(nginx, 0) == 0 { usleep(10_000) }
            }
            folder.remove()
        }
    }

    private func readPID(_ name: String) -> pid_t? {
        (try? String(contentsOfFile: "\(path)/\(name)", encoding: .utf8)).flatMap {
            pid_t($0.trimmingCharacters(in: .whitespacesAndNewlines))
        }
    }
}
