import Glibc

/// A folder of `staging/` that this process fills outside the publish lock, kept from other
/// processes' leftover cleanup by a `.lock` file beside it, held with `flock` while in use.
/// The kernel drops the flock when the process dies, and the next lock holder removes both.
/// Used by `StagingBlobs` (`blobs-<pid>-<random>`) and `SpareFolders` (`spares-<pid>-<random>`).
struct StagingLease: Sendable {
    static let prefixes = [StagingBlobs.prefix, SpareFolders.prefix]
    static let lockSuffix = ".lock"

    let folder: String
    private let lockPath: String
    let lockDescriptor: Int32

    /// Creates `staging/<prefix><pid>-<random>.lock`, locks it, then creates the folder.
    init(staging: String, prefix: String) throws(StoreError) {
        while true {
            let name = prefix + "\(getpid())-" + String(UInt64.random(in: 0...UInt64.max), radix: 16)
            let lockPath = staging + "/" + name + Self.lockSuffix
            let descriptor = try FileSystem.check("create", lockPath) {
                open(lockPath, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, FileSystem.fileMode)
            }
            // Another process's cleanup may have removed the file between open and flock: only a
            // lock on the file still at that path counts.
            var held = stat()
            var named = stat()
            guard flock(descriptor, LOCK_EX | LOCK_NB) == 0, fstat(descriptor, &held) == 0, lstat(lockPath, &named) == 0,
                held.st_ino == named.st_ino, held.st_dev == named.st_dev
            else {
                Glibc.close(descriptor)
                continue
            }
            do {
                try FileSystem.makeDirectory(staging + "/" + name)
            } catch {
                _ = unlink(lockPath)
                Glibc.close(descriptor)
                throw error
            }
            self.folder = staging + "/" + name
            self.lockPath = lockPath
            self.lockDescriptor = descriptor
            return
        }
    }

    /// Removes the folder, then the lock: whoever finds the lock free finds no folder of ours.
    /// `beforeClosing` runs in between, while the lock's descriptor is still open. Call once.
    func end(beforeClosing: () -> Void = {}) {
        try? FileSystem.removeTree(folder)
        _ = unlink(lockPath)
        beforeClosing()
        Glibc.close(lockDescriptor)
    }

    /// Whether a staging entry belongs to a live process's lease (skipped by leftover cleanup).
    static func isInUse(_ name: String, staging: String) -> Bool {
        guard prefixes.contains(where: { name.hasPrefix($0) }) else { return false }
        let lockName = name.hasSuffix(lockSuffix) ? name : name + lockSuffix
        let descriptor = open(staging + "/" + lockName, O_RDWR | O_CLOEXEC | O_NOFOLLOW)
        guard descriptor >= 0 else { return false }
        // A separate open file description: even this process's own lock makes this fail.
        defer { Glibc.close(descriptor) }
        return flock(descriptor, LOCK_EX | LOCK_NB) != 0
    }
}
