import Glibc
import Synchronization

/// A rendered file already written into the store's staging area, waiting for its tree: the
/// publish moves it into place instead of holding its bytes in memory until then.
public struct StagedBlob: Sendable, Hashable {
    /// `dist/<site>/staging/blobs-<pid>-<random>/<output folder>/<name>` (see `stage`).
    public let path: String
    public let sha256: String
    public let size: Int
}

/// Where one build writes its rendered files as they are produced (`staging/blobs-<pid>-<random>/`),
/// so a 10,000-page build never holds every output in memory (issue 8).
///
/// Blobs are written before the publish lock is taken, so a `.lock` file beside the folder, held
/// with `flock` while the folder is in use, tells another process's leftover cleanup to keep it;
/// the kernel drops the flock when this process dies, and the next lock holder removes both.
/// Files are not synced one by one: the publish syncs the file system once before the swap, and
/// `WriteBehind` gets the disk writing them meanwhile.
/// Each blob has its own name and is moved into exactly one tree; a write that fails (disk full)
/// keeps that file in memory instead, and the publish then reports the failure itself.
public final class StagingBlobs: Sendable {
    let folder: String
    private let lockPath: String
    private let lockDescriptor: Int32
    let writeBehind: WriteBehind
    private let isFailed = Atomic<Bool>(false)
    private let isClosed = Atomic<Bool>(false)

    static let prefix = "blobs-"
    static let lockSuffix = ".lock"

    /// Creates `staging/blobs-<pid>-<random>.lock`, locks it, then creates the folder.
    init(staging: String) throws(StoreError) {
        while true {
            let name = Self.prefix + "\(getpid())-" + String(UInt64.random(in: 0...UInt64.max), radix: 16)
            let lockPath = staging + "/" + name + Self.lockSuffix
            let descriptor = try FileSystem.check("create", lockPath) {
                open(lockPath, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, FileSystem.fileMode)
            }
            // Another process's cleanup may have removed the file between open and flock: only a
            // lock on the file still at that path counts.
            var held = stat()
            var named = stat()
            guard flock(descriptor, LOCK_EX | LOCK_NB) == 0, fstat(descriptor, &held) == 0, lstat(lockPath, &named) == 0,
                  held.st_ino == named.st_ino, held.st_dev == named.st_dev else {
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
            self.writeBehind = WriteBehind(descriptor: descriptor)
            return
        }
    }

    deinit { close() }

    /// Writes `bytes` as the blob of the output file at `outputPath` (`en/guides/a.json`) and
    /// returns it as content to publish; `.bytes` when the write fails or the staging area is
    /// closed (the content is right either way).
    ///
    /// The blobs of one output folder share a staging folder, under their own names, so the
    /// publish can make that folder the tree's folder in one rename (`TreeWriter`), and no
    /// staging folder grows to the site's size.
    public func stage(_ bytes: [UInt8], at outputPath: String) -> OutputFile.Content {
        guard !isFailed.load(ordering: .relaxed), !isClosed.load(ordering: .acquiring) else { return .bytes(bytes) }
        let slash = outputPath.lastIndex(of: "/")
        let name = slash.map { String(outputPath[outputPath.index(after: $0)...]) } ?? outputPath
        let blobFolder = folder + "/" + Self.folderName(slash.map { outputPath[..<$0] } ?? "")
        let path = blobFolder + "/" + name
        do {
            do {
                try FileSystem.createFile(path, bytes)
            } catch where error.errorNumber == ENOENT {
                // Another thread may make the folder first: both go on.
                do { try FileSystem.makeDirectory(blobFolder) } catch where error.errorNumber == EEXIST {}
                try FileSystem.createFile(path, bytes)
            }
        } catch {
            _ = unlink(path)
            isFailed.store(true, ordering: .relaxed)
            return .bytes(bytes)
        }
        writeBehind.wrote(bytes.count)
        return .staged(StagedBlob(path: path, sha256: SHA256.hash(bytes), size: bytes.count))
    }

    /// One staging folder per output folder, named so that no two output folders share one:
    /// `%` and `/` percent-encoded behind a fixed prefix (the root folder is the bare prefix).
    static func folderName(_ outputFolder: Substring) -> String {
        "f" + outputFolder.replacing("%", with: "%25").replacing("/", with: "%2F")
    }

    /// Removes every blob not moved into a tree, then the lock. Idempotent.
    public func close() {
        guard !isClosed.exchange(true, ordering: .acquiringAndReleasing) else { return }
        // Folder first, lock last: whoever finds the lock free finds no folder of ours.
        try? FileSystem.removeTree(folder)
        _ = unlink(lockPath)
        writeBehind.wait()
        Glibc.close(lockDescriptor)
    }

    /// Whether a staging entry belongs to a live build's blobs (skipped by leftover cleanup).
    static func isInUse(_ name: String, staging: String) -> Bool {
        guard name.hasPrefix(prefix) else { return false }
        let lockName = name.hasSuffix(lockSuffix) ? name : name + lockSuffix
        let descriptor = open(staging + "/" + lockName, O_RDWR | O_CLOEXEC | O_NOFOLLOW)
        guard descriptor >= 0 else { return false }
        // A separate open file description: even this process's own lock makes this fail.
        defer { Glibc.close(descriptor) }
        return flock(descriptor, LOCK_EX | LOCK_NB) != 0
    }
}

extension SiteStore {
    /// A staging area for one build's rendered files; close it when the publish is done.
    public func openStagingBlobs() throws(StoreError) -> StagingBlobs {
        try StagingBlobs(staging: layout.staging)
    }
}
