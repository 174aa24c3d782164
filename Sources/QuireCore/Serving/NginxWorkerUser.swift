import Foundation
import Glibc

/// The unprivileged user nginx's workers run as when `quire watch --serve` runs as root: the
/// workers, which answer every request, never hold root's file access. `www-data` (Debian's web
/// server user), else `nobody`. Not root: nil, the workers are this process's user and nginx
/// cannot switch.
public struct NginxWorkerUser: Sendable, Equatable {
    public let name: String
    public let group: String
    let uid: uid_t
    let gid: gid_t
    /// The ids, for what is made for the workers alone (the dashboard's socket).
    public var ids: (uid: UInt32, gid: UInt32) { (uid, gid) }

    public static func forThisProcess() -> NginxWorkerUser? {
        guard geteuid() == 0 else { return nil }
        for name in ["www-data", "nobody"] {
            guard let user = getpwnam(name) else { continue }
            let gid = user.pointee.pw_gid
            guard let group = getgrgid(gid) else { continue }
            return NginxWorkerUser(name: name, group: String(cString: group.pointee.gr_name), uid: user.pointee.pw_uid, gid: gid)
        }
        return nil
    }

    /// Why the workers could not read `dist` (a folder above it, or it, shuts them out), or nil.
    /// dist itself may not exist yet: the build makes it 0755.
    public func cannotRead(_ dist: String) -> String? {
        var folders: [String] = []
        var path = URL(fileURLWithPath: dist).standardizedFileURL.path
        while true {
            folders.append(path)
            guard path != "/" else { break }
            path = (path as NSString).deletingLastPathComponent
        }
        for folder in folders.reversed() {
            var info = stat()
            guard stat(folder, &info) == 0 else { break }
            let needed: mode_t = folder == folders[0] ? 0o5 : 0o1  // dist: list and enter; above it: enter
            if !allows(info, needed) {
                let mode = String(info.st_mode & 0o7777, radix: 8)
                return "nginx's workers run as \(name), which cannot \(needed == 0o1 ? "enter" : "read") \(folder) (mode \(mode)): "
                    + "quire publishes files everyone may read, and the folders above dist/ must let others in too "
                    + "(chmod o+rx \(folder)), or give --dist a folder under one they can reach"
            }
        }
        return nil
    }

    /// Whether this user gets `needed` (others' bits: 1 enter, 4 read) on a file with `info`.
    private func allows(_ info: stat, _ needed: mode_t) -> Bool {
        let shift: mode_t = info.st_uid == uid ? 6 : info.st_gid == gid ? 3 : 0
        return (info.st_mode >> shift) & needed == needed
    }
}
