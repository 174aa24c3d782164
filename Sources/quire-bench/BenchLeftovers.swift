import Foundation

/// Output of an earlier run, moved out of the way when a measure starts and removed when it is
/// over. On ext4 without a journal (this machine's disk) the kernel skips inodes freed in the
/// last one to six minutes, one by one, whenever it allocates a new one: removing an old
/// `dist/` of 60,000 files right before a measured build or save stream made it pay for that
/// removal (bench/RESULTS.md). On tmpfs, whose inode limit counts every hard link (the `dist/`
/// of a 100,000-page watch run holds about two million), old output is removed at once, and a
/// run's own output when it is over: left there, the next run ran out of inodes.
struct BenchLeftovers {
    private var moved: [String] = []
    private var ownOutput: [String] = []

    /// Renames `path` (when it exists) to a sibling removed by `removeAll`; removes it at once
    /// on tmpfs, or when it cannot be renamed.
    mutating func moveAside(_ path: String) {
        guard FileManager.default.fileExists(atPath: path) else { return }
        let aside = "\(path).old-\(getpid())-\(moved.count)"
        if !Self.isMemoryBacked(path), rename(path, aside) == 0 {
            moved.append(aside)
        } else {
            try? FileManager.default.removeItem(atPath: path)
        }
    }

    /// Makes way at `path` for what this run writes there (`moveAside`); on tmpfs that is
    /// removed by `removeAll` too.
    mutating func makeWay(forOutput path: String) {
        moveAside(path)
        ownOutput.append(path)
    }

    mutating func removeAll() {
        for path in ownOutput where FileManager.default.fileExists(atPath: path) && Self.isMemoryBacked(path) {
            try? FileManager.default.removeItem(atPath: path)
        }
        for path in moved { try? FileManager.default.removeItem(atPath: path) }
        (moved, ownOutput) = ([], [])
    }

    /// Whether the file system `path` is on (the mount point nearest it in /proc/mounts) is tmpfs.
    private static func isMemoryBacked(_ path: String) -> Bool {
        guard let resolved = realpath(path, nil) else { return false }
        defer { free(resolved) }
        let real = String(cString: resolved)
        let mounts = (try? String(contentsOfFile: "/proc/mounts", encoding: .utf8)) ?? ""
        var nearest: (point: String, type: String) = ("", "")
        for line in mounts.split(separator: "\n") {
            // device, mount point, type, ...
            let fields = line.split(separator: " ").map(String.init)
            guard fields.count > 2, fields[1].count > nearest.point.count else { continue }
            let point = fields[1]
            if real == point || real.hasPrefix(point.hasSuffix("/") ? point : point + "/") { nearest = (point, fields[2]) }
        }
        return nearest.type == "tmpfs"
    }
}
