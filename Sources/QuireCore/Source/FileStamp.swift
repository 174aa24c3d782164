#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// What `stat` says of a file that changes whenever its bytes can: its size, modification and
/// change times, inode and device. A restarted watcher takes a file whose stamp is still the one
/// taken when its bytes were last read for unchanged, without reading it, as git's index does
/// (`RestartChanges`): reading and hashing 300,000 files was most of a restart.
///
/// No program can set a change time, and every write, rename or `touch` moves it. A write in the
/// clock tick of the read could leave it as it was, so no stamp is taken of a file changed less
/// than `settledAfterNanoseconds` before the read began (`SourceFileReader.readStamped`): such a file is read
/// and hashed at the restart.
struct FileStamp: Hashable, Sendable {
    private let size: Int64
    private let modified: Int64
    private let changed: Int64
    private let inode: UInt64
    private let device: UInt64

    /// How long before a read a file must have last changed for its stamp to be taken: far more
    /// than a file system's clock tick (a few milliseconds; whole seconds on some).
    static let settledAfterNanoseconds: Int64 = 2_000_000_000

    private init(_ status: stat) {
        size = Int64(status.st_size)
        modified = Self.nanoseconds(status.st_mtim)
        changed = Self.nanoseconds(status.st_ctim)
        inode = UInt64(status.st_ino)
        device = UInt64(status.st_dev)
    }

    /// The stamp of a file `status` describes, read from `readStarted` on (nil: it changed too
    /// recently to tell a later write from this one by its times).
    init?(_ status: stat, readStarted: timespec) {
        self.init(status)
        guard Self.nanoseconds(readStarted) - changed >= Self.settledAfterNanoseconds else { return nil }
    }

    /// The stamp the file at `path` has now, as `lstat` sees it (nil: not a regular file, or gone).
    static func current(of path: String) -> FileStamp? {
        var status = stat()
        guard lstat(path, &status) == 0, status.st_mode & S_IFMT == S_IFREG else { return nil }
        return FileStamp(status)
    }

    /// The wall clock now, as file times are taken.
    static func now() -> timespec {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return now
    }

    private static func nanoseconds(_ time: timespec) -> Int64 { Int64(time.tv_sec) * 1_000_000_000 + Int64(time.tv_nsec) }

    // MARK: The restart file

    func write(to writer: inout BinaryWriter) {
        for field in [size, modified, changed, Int64(bitPattern: inode), Int64(bitPattern: device)] { writer.int(Int(field)) }
    }

    init(reading reader: inout BinaryReader) throws(BinaryReader.Malformed) {
        (size, modified, changed) = (Int64(try reader.int()), Int64(try reader.int()), Int64(try reader.int()))
        (inode, device) = (UInt64(bitPattern: Int64(try reader.int())), UInt64(bitPattern: Int64(try reader.int())))
    }
}
