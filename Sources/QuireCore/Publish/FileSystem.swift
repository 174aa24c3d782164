import Glibc

/// Every libc call the store makes goes through here, so errno becomes a `StoreError` that names
/// the operation, the path and the system's reason in one place, and a test's `FaultPlan` can
/// make any of them fail.
enum FileSystem {
    static let directoryMode: mode_t = 0o755
    static let fileMode: mode_t = 0o644

    // MARK: - The one place errno is turned into an error

    /// Runs `call`, which returns -1 and sets errno on failure (or fails first as the test's
    /// `FaultPlan` in effect says). The paths are only built when needed (a plan fails calls,
    /// or the call failed): a tree of a thousand links calls this a thousand times.
    @discardableResult
    static func check(
        _ operation: String, _ path: @autoclosure () -> String, to target: @autoclosure () -> String? = nil,
        _ call: () -> Int32
    ) throws(StoreError) -> Int32 {
        if let plan = FaultPlan.current, let injected = plan.fileFault(for: operation, path: path) {
            throw StoreError.system(operation, path(), to: target(), errorNumber: injected)
        }
        let result = call()
        if result == -1 {
            let number = errno
            throw StoreError.system(operation, path(), to: target(), errorNumber: number)
        }
        return result
    }

    // MARK: - Reading

    /// The `lstat` of `path`, or nil when it does not exist.
    static func status(_ path: String) throws(StoreError) -> stat? {
        var info = stat()
        if Glibc.lstat(path, &info) == 0 { return info }
        if errno == ENOENT || errno == ENOTDIR { return nil }
        throw StoreError.system("inspect", path, errorNumber: errno)
    }

    static func exists(_ path: String) -> Bool {
        var info = stat()
        return Glibc.lstat(path, &info) == 0
    }

    static func isDirectory(_ info: stat) -> Bool { info.st_mode & S_IFMT == S_IFDIR }
    static func isRegularFile(_ info: stat) -> Bool { info.st_mode & S_IFMT == S_IFREG }
    static func isSymbolicLink(_ info: stat) -> Bool { info.st_mode & S_IFMT == S_IFLNK }

    /// The file as its size says when it is opened: one array sized once (a file read whole may
    /// be hundreds of megabytes). A file that says no size (one of /proc) is read to its end.
    static func readFile(_ path: String) throws(StoreError) -> [UInt8] {
        let file = try OpenedFile(path)
        guard file.size == 0 else { return try file.read(count: file.size, at: 0) }
        var bytes: [UInt8] = []
        while true {
            let chunk = try file.read(count: 64 * 1024, at: bytes.count)
            if chunk.isEmpty { return bytes }
            bytes += chunk
        }
    }

    /// The last `count` bytes of a file (all of it when shorter), and whether that is all of it.
    static func readTail(_ path: String, count: Int) throws(StoreError) -> (bytes: [UInt8], isWhole: Bool) {
        let file = try OpenedFile(path)
        let start = max(0, file.size - count)
        return (try file.read(count: file.size - start, at: start), start == 0)
    }

    /// Up to `count` bytes from `start`: fewer when the file ends first.
    fileprivate static func read(_ descriptor: Int32, count: Int, at start: Int, _ path: String) throws(StoreError) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        var done = 0
        while done < count {
            let read = try check("read", path) {
                Int32(
                    clamping: bytes.withUnsafeMutableBytes {
                        pread(descriptor, $0.baseAddress! + done, $0.count - done, off_t(start + done))
                    })
            }
            if read == 0 { break }
            done += Int(read)
        }
        if done < count { bytes.removeLast(count - done) }
        return bytes
    }

    static func readLink(_ path: String) throws(StoreError) -> String {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = try check("read the link", path) { Int32(clamping: readlink(path, &buffer, buffer.count - 1)) }
        return String(decoding: buffer[0..<Int(count)].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Names in a folder, without `.` and `..`, sorted unless `sorted` is false (for a caller that
    /// visits every name in any order: retention sweeping a `trees/` of thousands after each save).
    static func list(_ path: String, sorted: Bool = true) throws(StoreError) -> [String] {
        var names: [String] = []
        try forEachEntry(in: path) { name, _ in names.append(String(cString: name)) }
        return sorted ? names.sorted() : names
    }

    /// Each entry's name but `.` and `..`, and its `d_type`, as readdir gives them (the name is
    /// valid during the call only).
    private static func forEachEntry(in path: String, _ body: (UnsafePointer<CChar>, UInt8) -> Void) throws(StoreError) {
        try forEachEntry(of: path, opening: { opendir(path) }, body)
    }

    /// The same, read from an open `DIR` that `open` returns (nil: `errno` says why); `path`
    /// names the folder in errors and injected faults.
    static func forEachEntry(
        of path: String, opening open: () -> OpaquePointer?,
        _ body: (UnsafePointer<CChar>, UInt8) -> Void
    ) throws(StoreError) {
        if let plan = FaultPlan.current, let injected = plan.fileFault(for: "list", path: { path }) {
            throw StoreError.system("list", path, errorNumber: injected)
        }
        guard let directory = open() else { throw StoreError.system("list", path, errorNumber: errno) }
        defer { closedir(directory) }
        while let entry = readdir(directory) {
            withUnsafePointer(to: &entry.pointee.d_name) { tuple in
                let name = UnsafeRawPointer(tuple).assumingMemoryBound(to: CChar.self)
                let isDot = name[0] == 0x2E && (name[1] == 0 || (name[1] == 0x2E && name[2] == 0))
                if !isDot { body(name, entry.pointee.d_type) }
            }
        }
    }

    /// Every regular file under `folder`, at any depth (symbolic links are not followed), with
    /// the folder it is in and its size.
    static func regularFiles(under folder: String) throws(StoreError) -> [(folder: String, name: String, size: Int)] {
        var files: [(folder: String, name: String, size: Int)] = []
        for name in try list(folder) {
            let path = folder + "/" + name
            guard let info = try status(path) else { continue }
            if isDirectory(info) {
                files += try regularFiles(under: path)
            } else if isRegularFile(info) {
                files.append((folder, name, Int(info.st_size)))
            }
        }
        return files
    }

    // MARK: - Writing

    /// A folder with mode 0755 whatever the umask (web servers read `dist/` as another user).
    static func makeDirectory(_ path: String, ignoringExisting: Bool = false) throws(StoreError) {
        if ignoringExisting, let info = try status(path), isDirectory(info) { return }
        try check("create the folder", path) { mkdir(path, directoryMode) }
        try check("set the mode of", path) { chmod(path, directoryMode) }
    }

    /// `mkdir -p`, for the store's own folders.
    static func makeDirectories(_ path: String) throws(StoreError) {
        var prefix = path.hasPrefix("/") ? "" : "."
        for component in path.split(separator: "/") {
            prefix += "/" + component
            if let info = try status(prefix) {
                if isDirectory(info) { continue }
                if isSymbolicLink(info), let target = try? statFollowing(prefix), isDirectory(target) { continue }
            }
            try makeDirectory(prefix)
        }
    }

    private static func statFollowing(_ path: String) throws(StoreError) -> stat {
        var info = stat()
        try check("inspect", path) { stat(path, &info) }
        return info
    }

    /// A new file (never an existing one rewritten in place), mode 0644 whatever the umask.
    static func createFile(_ path: String, _ bytes: [UInt8], sync: Bool = false) throws(StoreError) {
        try withNewFile(path, sync: sync) { descriptor throws(StoreError) in try writeAll(descriptor, bytes, path: path) }
    }

    /// The same, written by `body` as it makes it (`FileOutput`).
    static func createFile(_ path: String, sync: Bool = false, writing body: (FileOutput) throws(StoreError) -> Void)
        throws(StoreError)
    {
        try withNewFile(path, sync: sync) { descriptor throws(StoreError) in
            let output = FileOutput(descriptor: descriptor, path: path)
            try body(output)
            try output.flush()
        }
    }

    /// Creates `path`, lets `write` fill it, syncs it if asked and closes it.
    private static func withNewFile(_ path: String, sync: Bool, _ write: (Int32) throws(StoreError) -> Void) throws(StoreError) {
        let descriptor = try check("create", path) { open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, fileMode) }
        var closed = false
        defer { if !closed { close(descriptor) } }
        try check("set the mode of", path) { fchmod(descriptor, fileMode) }
        try write(descriptor)
        if sync { try check("sync", path) { fsync(descriptor) } }
        closed = true
        try check("close", path) { close(descriptor) }
    }

    static func writeAll(_ descriptor: Int32, _ bytes: [UInt8], path: String) throws(StoreError) {
        var offset = 0
        while offset < bytes.count {
            let written = try check("write", path) {
                Int32(clamping: bytes.withUnsafeBytes { write(descriptor, $0.baseAddress! + offset, $0.count - offset) })
            }
            offset += Int(written)
        }
    }

    /// Writes a sibling temporary file and renames it over `path`: readers see old or new, never
    /// half. `durable` syncs the file before the rename and the folder after (state files).
    static func replaceFile(_ path: String, _ bytes: [UInt8], durable: Bool = false) throws(StoreError) {
        try replaceFile(
            path, durable: durable, creating: { temporary throws(StoreError) in try createFile(temporary, bytes, sync: durable) })
    }

    /// The same, written by `body` as it makes it (`FileOutput`).
    static func replaceFile(_ path: String, durable: Bool = false, writing body: (FileOutput) throws(StoreError) -> Void)
        throws(StoreError)
    {
        try replaceFile(
            path, durable: durable, creating: { temporary throws(StoreError) in try createFile(temporary, sync: durable, writing: body) })
    }

    /// `create` makes the temporary file at the path it is given.
    private static func replaceFile(_ path: String, durable: Bool, creating create: (String) throws(StoreError) -> Void) throws(StoreError)
    {
        let temporary = path + ".tmp-\(getpid())"
        if exists(temporary) { try remove(temporary) }
        do {
            try create(temporary)
            try rename(temporary, to: path)
            if durable { try syncDirectory(String(path[..<(path.lastIndex(of: "/") ?? path.endIndex)])) }
        } catch {
            _ = unlink(temporary)
            throw error
        }
    }

    /// Appends one line with O_APPEND and syncs it unless `sync` is false (the caller syncs it
    /// later: `syncTogether`). A line torn by a crash is ended first, so it cannot swallow the line
    /// appended after it.
    static func appendLine(_ path: String, _ line: [UInt8], sync: Bool = true) throws(StoreError) {
        let descriptor = try check("open", path) { open(path, O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW, fileMode) }
        defer { close(descriptor) }
        try check("set the mode of", path) { fchmod(descriptor, fileMode) }
        var info = stat()
        try check("inspect", path) { fstat(descriptor, &info) }
        var last: UInt8 = 0x0A
        if info.st_size > 0 { _ = try check("read", path) { Int32(clamping: pread(descriptor, &last, 1, info.st_size - 1)) } }
        try writeAll(descriptor, (last == 0x0A ? [] : [0x0A]) + line, path: path)
        if sync { try check("sync", path) { fsync(descriptor) } }
    }

    static func rename(_ source: String, to target: String) throws(StoreError) {
        try check("rename", source, to: target) { Glibc.rename(source, target) }
    }

    static func symbolicLink(_ target: String, at path: String) throws(StoreError) {
        try check("create the link", path) { symlink(target, path) }
    }

    static func hardLink(_ source: String, at path: String) throws(StoreError) {
        try check("hard-link", source, to: path) { link(source, path) }
    }

    /// Removes a file or a symbolic link (never what it points at).
    static func remove(_ path: String) throws(StoreError) {
        try check("remove", path) { unlink(path) }
    }

    /// `rm -rf` that never follows symbolic links: shared trees are reached through links.
    static func removeTree(_ path: String) throws(StoreError) {
        guard let info = try status(path) else { return }
        guard isDirectory(info) else { return try remove(path) }
        try removeEntries(of: path)
        try check("remove the folder", path) { rmdir(path) }
    }

    /// Everything in a folder. Entries are typed by `readdir` and removed relative to the open
    /// folder, so a file costs one `unlinkat` and no `stat` or path walk: `keep:` removes an old
    /// version's dozen folders of 100 entries after each save.
    private static func removeEntries(of path: String) throws(StoreError) {
        let folder = try DirectoryHandle(path)
        // Names first, removals after: unlinking while readdir walks the folder is unspecified.
        for (name, isFolder) in try folder.entries() {
            if isFolder { try removeTree(path + "/" + name) } else { try folder.remove(name) }
        }
    }

    // MARK: - Durability

    /// One `syncfs` for the whole file system holding `path` (ARCHITECTURE.md, "Known traps": not one fsync per file).
    static func syncFileSystem(containing path: String) throws(StoreError) {
        let descriptor = try check("open", path) { open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC) }
        defer { close(descriptor) }
        try check("sync the file system of", path) { SyncFS.call(descriptor) }
    }

    /// Makes the renames inside a folder durable.
    static func syncDirectory(_ path: String) throws(StoreError) {
        try sync(path, flags: O_DIRECTORY)
    }

    private static func sync(_ path: String, flags: Int32) throws(StoreError) {
        let descriptor = try check("open", path) { open(path, O_RDONLY | O_CLOEXEC | flags) }
        defer { close(descriptor) }
        try check("sync", path) { fsync(descriptor) }
    }

    /// `syncDirectory` of each folder and `fsync` of each file, all at once: the device waits
    /// overlap instead of adding up (a publish syncs `trees/` and `versions/` before its swap,
    /// and `current`'s folder and the history line after it).
    static func syncTogether(directories: [String], files: [String] = []) throws(StoreError) {
        try FirstFailure.concurrentPerform(iterations: directories.count + files.count) { index throws(StoreError) in
            if index < directories.count {
                try syncDirectory(directories[index])
            } else {
                try sync(files[index - directories.count], flags: O_NOFOLLOW)
            }
        }
    }
}

/// `syncfs(2)`, which Swift's Glibc module does not declare: looked up once in libc.
enum SyncFS {
    private typealias Function = @convention(c) (Int32) -> Int32
    private static let function: Function? = {
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "syncfs") else { return nil }
        return unsafeBitCast(symbol, to: Function.self)
    }()

    static func call(_ descriptor: Int32) -> Int32 {
        if let function { return function(descriptor) }
        sync()
        return 0
    }
}

extension StoreError {
    /// `cannot rename 'a' to 'b': no space left on device`.
    static func system(_ operation: String, _ path: String, to target: String? = nil, errorNumber: Int32) -> StoreError {
        let reason = String(cString: strerror(errorNumber))
        let lowered = reason.prefix(1).lowercased() + reason.dropFirst()
        let subject = target.map { "'\(path)' to '\($0)'" } ?? "'\(path)'"
        var error = StoreError("cannot \(operation) \(subject): \(lowered)")
        error.operation = operation
        error.path = path
        error.errorNumber = errorNumber
        return error
    }
}

/// A file opened for reading, closed when the last reference goes: read whole, or kept open to
/// be read in parts later, on any thread (`pread`; a restart file's tables and index are read by
/// the readers that parse them, after its body).
final class OpenedFile: Sendable {
    let path: String
    /// As `fstat` said when it was opened.
    let size: Int
    private let descriptor: Int32

    init(_ path: String) throws(StoreError) {
        let descriptor = try FileSystem.check("open", path) { open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW) }
        var info = stat()
        do throws(StoreError) {
            try FileSystem.check("inspect", path) { fstat(descriptor, &info) }
        } catch {
            close(descriptor)
            throw error
        }
        (self.path, self.descriptor, size) = (path, descriptor, Int(info.st_size))
    }

    deinit { close(descriptor) }

    /// Up to `count` bytes from `start`: fewer when the file ends first.
    func read(count: Int, at start: Int) throws(StoreError) -> [UInt8] { try FileSystem.read(descriptor, count: count, at: start, path) }
}

/// Consecutive bytes of an opened file, read a chunk at a time and hashed as they are read, by
/// the one reader that parses them (`BinaryReader(_:)`): it holds a chunk, not the part.
final class FilePart {
    private let file: OpenedFile
    private var position: Int
    private let end: Int
    private var hash: SHA256? = SHA256()

    init(_ file: OpenedFile, _ range: Range<Int>) { (self.file, position, end) = (file, range.lowerBound, range.upperBound) }

    var remaining: Int { end - position }

    /// The next `count` bytes of the part (fewer where it ends, or where the file ends first).
    func next(_ count: Int) throws(StoreError) -> [UInt8] {
        let wanted = min(count, remaining)
        let bytes = try file.read(count: wanted, at: position)
        bytes.withUnsafeBytes { hash?.update($0) }
        // A file shorter than it was: nothing more to read, and a digest of what was.
        position = bytes.count < wanted ? end : position + wanted
        return bytes
    }

    /// The SHA-256 of the bytes read: once, when all of them are.
    func digest() -> Digest? { remaining == 0 ? hash.take()?.finalizeDigest() : nil }
}
