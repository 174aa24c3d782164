import Glibc

/// An open folder: files are created and linked by name relative to it (`openat`, `linkat`,
/// `symlinkat`), so writing a tree of a hundred entries resolves its long path once, not per entry.
/// Errors and injected faults still name the full path, through `FileSystem.check`.
final class DirectoryHandle {
    let path: String
    private let descriptor: Int32

    init(_ path: String) throws(StoreError) {
        self.path = path
        descriptor = try FileSystem.check("open", path) { open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC) }
    }

    deinit { close(descriptor) }

    /// A new file, mode 0644 whatever the umask (see `FileSystem.createFile`).
    func createFile(_ name: String, _ bytes: [UInt8]) throws(StoreError) {
        let path = self.path + "/" + name
        let file = try FileSystem.check("create", path) {
            openat(descriptor, name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, FileSystem.fileMode)
        }
        var closed = false
        defer { if !closed { close(file) } }
        try FileSystem.check("set the mode of", path) { fchmod(file, FileSystem.fileMode) }
        try FileSystem.writeAll(file, bytes, path: path)
        closed = true
        try FileSystem.check("close", path) { close(file) }
    }

    /// Hard-links `source/sourceName` here as `name`.
    func hardLink(from source: DirectoryHandle, _ sourceName: String, as name: String) throws(StoreError) {
        try FileSystem.check("hard-link", source.path + "/" + sourceName, to: path + "/" + name) {
            linkat(source.descriptor, sourceName, descriptor, name, 0)
        }
    }

    /// Removes the file or link `name` (never a folder); `ifPresent`: a missing one is fine.
    func remove(_ name: String, ifPresent: Bool = false) throws(StoreError) {
        do {
            try FileSystem.check("remove", path + "/" + name) { unlinkat(descriptor, name, 0) }
        } catch where ifPresent && error.errorNumber == ENOENT {}
    }

    func symbolicLink(_ target: String, as name: String) throws(StoreError) {
        try FileSystem.check("create the link", path + "/" + name) { symlinkat(target, descriptor, name) }
    }
}
