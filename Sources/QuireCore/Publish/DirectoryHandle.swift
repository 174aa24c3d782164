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

    /// Its entries but `.` and `..`, read through this handle (no second open of the path), and
    /// whether each is a folder (a symbolic link is not), from `readdir`'s type when it has one.
    func entries() throws(StoreError) -> [(name: String, isFolder: Bool)] {
        var entries: [(name: String, isFolder: Bool)] = []
        try FileSystem.forEachEntry(of: path, opening: stream) { name, type in
            let text = String(cString: name)
            entries.append((text, type == UInt8(DT_DIR) || (type == UInt8(DT_UNKNOWN) && isFolder(text))))
        }
        return entries
    }

    /// How many entries it holds, without `.` and `..` (no names made: a count only).
    func entryCount() throws(StoreError) -> Int {
        var count = 0
        try FileSystem.forEachEntry(of: path, opening: stream) { _, _ in count += 1 }
        return count
    }

    /// A `DIR` of its own over this folder, from the start (a duplicate descriptor shares the
    /// read position, so it is rewound); nil with `errno` set when it cannot be made.
    private func stream() -> OpaquePointer? {
        let copy = dup(descriptor)
        guard copy >= 0 else { return nil }
        guard let directory = fdopendir(copy) else {
            let number = errno
            close(copy)
            errno = number
            return nil
        }
        rewinddir(directory)
        return directory
    }

    /// For file systems whose `readdir` leaves the type unknown.
    private func isFolder(_ name: String) -> Bool {
        var info = stat()
        return fstatat(descriptor, name, &info, AT_SYMLINK_NOFOLLOW) == 0 && FileSystem.isDirectory(info)
    }

    /// Removes the file or link `name` (never a folder); `ifPresent`: a missing one is fine.
    func remove(_ name: String, ifPresent: Bool = false) throws(StoreError) {
        do {
            try FileSystem.check("remove", path + "/" + name) { unlinkat(descriptor, name, 0) }
        } catch  where ifPresent && error.errorNumber == ENOENT {}
    }

    func symbolicLink(_ target: String, as name: String) throws(StoreError) {
        try FileSystem.check("create the link", path + "/" + name) { symlinkat(target, descriptor, name) }
    }
}
