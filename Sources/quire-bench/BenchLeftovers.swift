import Foundation

/// Output of an earlier run, moved out of the way when a measure starts and removed when it is
/// over. On ext4 without a journal (this machine's disk) the kernel skips inodes freed in the
/// last one to six minutes, one by one, whenever it allocates a new one: removing an old
/// `dist/` of 60,000 files right before a measured build or save stream made it pay for that
/// removal (bench/RESULTS.md).
struct BenchLeftovers {
    private var moved: [String] = []

    /// Renames `path` (when it exists) to a sibling removed by `removeAll`; removes it at once
    /// only when it cannot be renamed.
    mutating func moveAside(_ path: String) {
        guard FileManager.default.fileExists(atPath: path) else { return }
        let aside = "\(path).old-\(getpid())-\(moved.count)"
        if rename(path, aside) == 0 {
            moved.append(aside)
        } else {
            try? FileManager.default.removeItem(atPath: path)
        }
    }

    mutating func removeAll() {
        for path in moved { try? FileManager.default.removeItem(atPath: path) }
        moved = []
    }
}
