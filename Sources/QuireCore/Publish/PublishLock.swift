import Glibc

/// The site's publish lock: `flock` on `state/lock`, which holds the holder's pid so a waiting
/// process can say whom it waits for. The kernel drops the lock when the holder dies.
struct PublishLock: ~Copyable {
    /// Shared with a child process (`ChildProcess.run(sharing:)`), it keeps the lock held until
    /// that child exits too: flock belongs to the open file, not to the process.
    let descriptor: Int32

    /// Tries until `timeout` seconds have passed; `waiting` is told once if someone holds it.
    /// `name` says which of the site's locks it is in messages.
    init(path: String, site: String, name: String = "publish lock", timeout: Double, waiting: (String) -> Void) throws(StoreError) {
        let descriptor = try FileSystem.check("open the lock", path) {
            open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, FileSystem.fileMode)
        }
        var told = false
        let start = Self.now()
        while flock(descriptor, LOCK_EX | LOCK_NB) != 0 {
            let reason = errno
            guard reason == EWOULDBLOCK || reason == EINTR else {
                close(descriptor)
                throw StoreError.system("lock", path, errorNumber: reason)
            }
            let holder = Self.holder(descriptor).map { "pid \($0)" } ?? "another process"
            if !told {
                waiting("waiting for the \(name) of site '\(site)' held by \(holder)")
                told = true
            }
            if Self.now() - start >= timeout {
                close(descriptor)
                throw StoreError("the \(name) of site '\(site)' is held by \(holder); gave up after \(timeout) s (lock file '\(path)')")
            }
            usleep(50_000)
        }
        // Rewritten only when another process held it last: a watcher takes it on every save.
        let pid = Array("\(getpid())\n".utf8)
        if Self.holder(descriptor) != Int(getpid()),
            ftruncate(descriptor, 0) != 0 || pid.withUnsafeBytes({ pwrite(descriptor, $0.baseAddress, $0.count, 0) }) != pid.count
        {
            let reason = errno
            close(descriptor)
            throw StoreError.system("write the holder into", path, errorNumber: reason)
        }
        self.descriptor = descriptor
    }

    deinit {
        flock(descriptor, LOCK_UN)
        close(descriptor)
    }

    private static func holder(_ descriptor: Int32) -> Int? {
        var buffer = [UInt8](repeating: 0, count: 32)
        let count = buffer.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, $0.count, 0) }
        guard count > 0 else { return nil }
        return Int(String(decoding: buffer[0..<count], as: UTF8.self).trimmingNewline())
    }

    private static func now() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }
}

extension String {
    fileprivate func trimmingNewline() -> String {
        var text = self
        while let last = text.last, last.isWhitespace { text.removeLast() }
        return text
    }
}
