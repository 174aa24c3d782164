#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The one way Quire reads a file from `pages/`: regular files only, never through a symbolic
/// link, never a FIFO or device, never more than the size limit.
public struct SourceFileReader: Sendable {
    public var maxBytes: Int

    public init(maxBytes: Int = SourceLimits.default.maxFileBytes) { self.maxBytes = maxBytes }

    public func read(_ path: String) throws(SourceReadError) -> [UInt8] { try readStamped(path).bytes }

    /// The bytes, and the file's stamp as it was before they were read (`FileStamp`; nil when it
    /// changed too recently to be told from a later write).
    func readStamped(_ path: String) throws(SourceReadError) -> (bytes: [UInt8], stamp: FileStamp?) {
        let started = FileStamp.now()
        // O_NOFOLLOW refuses a symbolic link in the last component (ELOOP); O_NONBLOCK keeps a
        // FIFO with no writer from blocking the open, so fstat can refuse it.
        let descriptor = try Self.open(path)
        defer { _ = close(descriptor) }

        var status = stat()
        guard fstat(descriptor, &status) == 0 else { throw SourceReadError(errno: errno, operation: "fstat") }
        if let kind = Self.irregularKind(mode: status.st_mode) { throw .notRegularFile(kind: kind) }
        let size = Int(status.st_size)
        guard size <= maxBytes else { throw .tooLarge(size: size, limit: maxBytes) }
        return (try readAll(descriptor, expectedSize: size), FileStamp(status, readStarted: started))
    }

    private static func open(_ path: String) throws(SourceReadError) -> Int32 {
        while true {
            let descriptor = systemOpen(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
            if descriptor >= 0 { return descriptor }
            let code = errno
            switch code {
            case EINTR: continue
            case ENOENT: throw .vanished
            case ELOOP: throw .symbolicLink
            case ENXIO: throw .notRegularFile(kind: "a socket")  // open(2) on a UNIX socket
            default: throw SourceReadError(errno: code, operation: "open")
            }
        }
    }

    /// Names what the file is when it is not a regular file, as the message says it.
    private static func irregularKind(mode: mode_t) -> String? {
        switch mode & S_IFMT {
        case S_IFREG: return nil
        case S_IFIFO: return "a FIFO"
        case S_IFCHR, S_IFBLK: return "a device"
        case S_IFDIR: return "a directory"
        case S_IFSOCK: return "a socket"
        default: return "not a regular file"
        }
    }

    /// Reads to the end, handling EINTR and short reads. The file may grow after fstat, so the
    /// limit is checked again while reading: it never reads more than `maxBytes + 1` bytes.
    private func readAll(_ descriptor: Int32, expectedSize: Int) throws(SourceReadError) -> [UInt8] {
        let ceiling = maxBytes + 1
        // First into uninitialized space (no zero-fill) of one byte more than fstat said: a read
        // that stops short of it at exactly that size has met the end, which spares the read
        // that would return 0 (a system call a file). A file that grew goes on below.
        var failure: Int32 = 0
        var buffer = [UInt8](unsafeUninitializedCapacity: min(expectedSize + 1, ceiling)) { space, initialized in
            initialized = 0
            guard let base = space.baseAddress else { return }
            while initialized < space.count {
                let count = readRetrying(descriptor, base + initialized, space.count - initialized)
                guard count > 0 else {
                    if count < 0 { failure = errno }
                    return
                }
                initialized += count
                if initialized == expectedSize { return }
            }
        }
        if failure != 0 { throw SourceReadError(errno: failure, operation: "read") }
        guard buffer.count == min(expectedSize + 1, ceiling) else { return buffer }
        var total = buffer.count
        while true {
            if total == buffer.count {
                guard buffer.count < ceiling else { break }
                buffer.append(contentsOf: repeatElement(0, count: min(max(buffer.count, 4096), ceiling - buffer.count)))
            }
            let count = buffer.withUnsafeMutableBytes { raw -> Int in
                guard let base = raw.baseAddress else { return 0 }
                return readRetrying(descriptor, base + total, raw.count - total)
            }
            if count < 0 { throw SourceReadError(errno: errno, operation: "read") }
            if count == 0 { break }
            total += count
        }
        guard total <= maxBytes else { throw .tooLarge(size: max(total, expectedSize), limit: maxBytes) }
        buffer.removeSubrange(total...)
        return buffer
    }

    /// One `read`, again when a signal interrupted it: the count read, 0 at the end, or -1 with
    /// `errno` set.
    private func readRetrying(_ descriptor: Int32, _ base: UnsafeMutableRawPointer, _ count: Int) -> Int {
        while true {
            let read = systemRead(descriptor, base, count)
            if read >= 0 || errno != EINTR { return read }
        }
    }
}

// The reader's own `open` and `read` hide the C functions inside the type.
private func systemOpen(_ path: String, _ flags: Int32) -> Int32 { open(path, flags) }
private func systemRead(_ descriptor: Int32, _ buffer: UnsafeMutableRawPointer, _ count: Int) -> Int {
    read(descriptor, buffer, count)
}
