import Foundation
import Glibc
import QuireCore

/// Where the server's socket lives and who may connect to it.
public struct SocketPlacement: Sendable {
    /// The socket's path; its folder is made (mode 0700) if missing.
    public var path: String
    /// The user and group that connect (nginx's workers). When this process runs as root, the
    /// socket and its folder are given to them; otherwise they are this process's own.
    public var owner: (uid: UInt32, gid: UInt32)?

    public init(path: String, owner: (uid: UInt32, gid: UInt32)? = nil) {
        self.path = path
        self.owner = owner
    }
}

public struct SCGIServerError: Error, CustomStringConvertible {
    public var description: String
    init(_ operation: String, _ path: String, errno code: Int32) {
        description = "\(path): \(operation): \(String(cString: strerror(code)))"
    }
}

/// An SCGI server on a Unix socket (mode 0600, in a folder of mode 0700): one thread accepts,
/// and each connection gets a thread of its own, so a long event stream never holds up another
/// request. Each connection carries one request: it is read (bounded, `SCGIParser`), answered
/// by `handle`, and closed. A connection that goes quiet is dropped after `readTimeout`, one
/// that stops reading after 30 s.
public final class SCGIServer: @unchecked Sendable {
    public let path: String
    private let listener: Int32
    private let parser: SCGIParser
    private let handle: @Sendable (SCGIRequest) -> HTTPResponse
    private let lock = NSLock()
    private var connections = 0
    private var stopped = false
    /// Threads beyond this are refused (503) rather than started.
    public var maxConnections = 64
    public var readTimeout: Double = 10

    public init(
        _ placement: SocketPlacement, limits: SCGIParser.Limits = SCGIParser.Limits(),
        handle: @escaping @Sendable (SCGIRequest) -> HTTPResponse
    ) throws(SCGIServerError) {
        path = placement.path
        parser = SCGIParser(limits: limits)
        self.handle = handle
        listener = try Self.listen(placement)
    }

    /// Binds inside a folder only its owner can enter, so the socket is never reachable with
    /// the umask's mode between `bind` and `chmod`.
    private static func listen(_ placement: SocketPlacement) throws(SCGIServerError) -> Int32 {
        let path = placement.path
        let folder = (path as NSString).deletingLastPathComponent
        if mkdir(folder, 0o700) != 0 && errno != EEXIST { throw SCGIServerError("mkdir", folder, errno: errno) }
        var info = stat()
        guard lstat(folder, &info) == 0, info.st_mode & S_IFMT == S_IFDIR, info.st_uid == geteuid() else {
            throw SCGIServerError("not a folder of this user", folder, errno: EPERM)
        }
        guard chmod(folder, 0o700) == 0 else { throw SCGIServerError("chmod", folder, errno: errno) }
        if lstat(path, &info) == 0 {
            guard info.st_mode & S_IFMT == S_IFSOCK, unlink(path) == 0 else { throw SCGIServerError("already there", path, errno: EEXIST) }
        }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else {
            throw SCGIServerError("socket path too long", path, errno: ENAMETOOLONG)
        }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in raw.copyBytes(from: bytes) }
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw SCGIServerError("socket", path, errno: errno) }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        let failure = { (operation: String) -> SCGIServerError in
            let error = SCGIServerError(operation, path, errno: errno)
            close(descriptor)
            return error
        }
        guard bound == 0 else { throw failure("bind") }
        guard chmod(path, 0o600) == 0 else { throw failure("chmod") }
        if geteuid() == 0, let owner = placement.owner {
            guard chown(path, owner.uid, owner.gid) == 0, chown(folder, owner.uid, owner.gid) == 0 else { throw failure("chown") }
        }
        guard Glibc.listen(descriptor, 128) == 0 else { throw failure("listen") }
        return descriptor
    }

    /// Accepts connections on a thread of its own until `stop`.
    public func start() {
        let thread = Thread { [self] in acceptLoop() }
        thread.name = "quire.dashboard.accept"
        thread.start()
    }

    /// Stops accepting and removes the socket; connections in progress finish on their own.
    public func stop() {
        let wasStopped = lock.withLock {
            defer { stopped = true }
            return stopped
        }
        guard !wasStopped else { return }
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
        unlink(path)
    }

    private func acceptLoop() {
        while true {
            let connection = accept(listener, nil, nil)
            if connection < 0 {
                if errno == EINTR || errno == ECONNABORTED || errno == EMFILE || errno == ENFILE {
                    if errno == EMFILE || errno == ENFILE { usleep(50_000) }
                    if !lock.withLock({ stopped }) { continue }
                }
                return
            }
            _ = fcntl(connection, F_SETFD, FD_CLOEXEC)  // no child (nginx, a hook) inherits it
            let admitted = lock.withLock {
                guard connections < maxConnections else { return false }
                connections += 1
                return true
            }
            guard admitted else {
                let busy = HTTPResponse.error(.unavailable, "too many connections: try again")
                _ = StreamSocket.send(connection, busy.bytes)
                close(connection)
                continue
            }
            let thread = Thread { [self] in
                serve(connection)
                lock.withLock { connections -= 1 }
            }
            thread.name = "quire.dashboard.connection"
            thread.start()
        }
    }

    private func serve(_ connection: Int32) {
        defer { close(connection) }
        var timeout = timeval(tv_sec: Int(readTimeout), tv_usec: 0)
        setsockopt(connection, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        // A client that stops reading ends its answer (or its event stream) instead of holding the thread.
        var sendTimeout = timeval(tv_sec: 30, tv_usec: 0)
        setsockopt(connection, SOL_SOCKET, SO_SNDTIMEO, &sendTimeout, socklen_t(MemoryLayout<timeval>.size))
        let response: HTTPResponse
        do throws(SCGIError) {
            let request = try parser.read { (count) throws(SCGIError) -> [UInt8] in
                var buffer = [UInt8](repeating: 0, count: min(count, 64 * 1024))
                while true {
                    let read = buffer.withUnsafeMutableBytes { recv(connection, $0.baseAddress, $0.count, 0) }
                    if read < 0 && errno == EINTR { continue }
                    guard read > 0 else { throw .truncated }  // end, error or timeout
                    return Array(buffer[0..<read])
                }
            }
            response = handle(request)
        } catch {
            response = .error(error.status, "\(error)")
        }
        // A stream is run even when the headers could not be sent: its first write fails, and it ends.
        _ = StreamSocket.send(connection, response.bytes)
        response.stream?(EventStreamConnection(descriptor: connection))
    }
}

/// The open connection of an event stream, written to by its own thread.
public struct EventStreamConnection: Sendable {
    let descriptor: Int32

    /// False once the client has gone: the stream ends.
    public func write(_ text: String) -> Bool { StreamSocket.send(descriptor, Array(text.utf8)) }
}
