import Foundation
import Glibc
import QuireCore

/// A failed write: the operation and errno, told as a status the dashboard can show. Nothing
/// is left half-written: the temporary file is removed, and the file keeps its old bytes.
struct WriteFailure: Error {
    var errno: Int32
    var operation: String

    var error: DashboardError {
        let reason = String(cString: strerror(errno))
        switch errno {
        case ENOSPC, EDQUOT:
            return DashboardError(
                .insufficientStorage, "the disk is full (\(operation): \(reason)): nothing was saved; free some space and save again")
        case EROFS:
            return DashboardError(.unavailable, "the pages folder is read-only (\(operation): \(reason)): nothing was saved")
        case EACCES, EPERM:
            return DashboardError(.forbidden, "no permission to write (\(operation): \(reason)): nothing was saved")
        default:
            return DashboardError(.internalError, "cannot save (\(operation): \(reason)): nothing was saved")
        }
    }
}

/// Writes and removes files as editors save them: the new bytes go to a hidden temporary file in
/// the same folder (a name the watcher ignores), are synced, and are renamed over the file, so
/// a reader (the watcher) sees the old bytes or the new ones, never a part.
enum AtomicFile {
    private static let lock = NSLock()

    private static func locked(_ body: () throws(DashboardError) -> Void) throws(DashboardError) {
        lock.lock()
        defer { lock.unlock() }
        try body()
    }

    /// Writes `bytes` at `path` (mode: the old file's, else 0644). `beforeRename` runs last, with
    /// the temporary file complete: a throw there leaves the file as it was.
    static func write(
        _ bytes: [UInt8], to path: String, replacing: Bool = true, beforeRename: () throws(DashboardError) -> Void = {}
    ) throws(DashboardError) {
        let folder = (path as NSString).deletingLastPathComponent
        let name = (path as NSString).lastPathComponent
        let temporary = "\(folder)/.\(name).quire-\(UInt64.random(in: 0...UInt64.max)).tmp"
        var old = stat()
        let mode = lstat(path, &old) == 0 ? old.st_mode & 0o777 : 0o644
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode)
        guard descriptor >= 0 else { throw WriteFailure(errno: errno, operation: "create").error }
        var done = false
        defer { if !done { unlink(temporary) } }
        do {
            defer { close(descriptor) }
            _ = fchmod(descriptor, mode)  // whatever the umask
            var offset = 0
            while offset < bytes.count {
                let written = bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress! + offset, bytes.count - offset) }
                if written < 0 && errno == EINTR { continue }
                guard written > 0 else { throw WriteFailure(errno: written < 0 ? errno : EIO, operation: "write").error }
                offset += written
            }
            guard fsync(descriptor) == 0 else { throw WriteFailure(errno: errno, operation: "fsync").error }
        }
        // The check and the rename under one lock: two dashboard saves of a file cannot both pass
        // the check (a writer outside the service can still come between; its save is then the
        // one overwritten, as between any two editors).
        try locked { () throws(DashboardError) in
            try beforeRename()
            if !replacing, FileSystemEntry.exists(path) {
                throw DashboardError(.conflict, "\((path as NSString).lastPathComponent) exists already: nothing was written")
            }
            guard rename(temporary, path) == 0 else { throw WriteFailure(errno: errno, operation: "rename").error }
        }
        done = true
        syncFolder(folder)
    }

    /// Removes the file at `path` (after `beforeRemove`).
    static func remove(_ path: String, beforeRemove: () throws(DashboardError) -> Void = {}) throws(DashboardError) {
        try locked { () throws(DashboardError) in
            try beforeRemove()
            guard unlink(path) == 0 else { throw WriteFailure(errno: errno, operation: "unlink").error }
        }
        syncFolder((path as NSString).deletingLastPathComponent)
    }

    /// Creates `path` with `bytes` only if nothing is there (a new page or asset). A rename, not a
    /// link: the watcher takes a rename as a finished write at once.
    static func create(_ bytes: [UInt8], at path: String) throws(DashboardError) {
        try write(bytes, to: path, replacing: false)
    }

    private static func syncFolder(_ folder: String) {
        let descriptor = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { return }
        _ = fsync(descriptor)
        close(descriptor)
    }
}

enum FileSystemEntry {
    /// Whether anything (a link included) is at `path`.
    static func exists(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0
    }
}
