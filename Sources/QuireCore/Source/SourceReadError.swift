#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Why a file in `pages/` was not read. `message` completes a sentence that starts with the path:
/// `pages/trex/store.yaml is a symbolic link: ...`.
public enum SourceReadError: Error, Sendable, Equatable {
    /// The file is gone (deleted between the event and the read).
    case vanished
    case symbolicLink
    case notRegularFile(kind: String)
    case tooLarge(size: Int, limit: Int)
    case unreadable(errno: Int32, reason: String)

    /// The error for `file` (as diagnostics name it): "this file is a symbolic link: …".
    public func diagnostic(_ file: String) -> Diagnostic { .error(file, "this file \(message)") }

    /// Lower-case, says what is wrong and what to do.
    public var message: String {
        switch self {
        case .vanished:
            return "is gone: it was deleted or renamed before it could be read"
        case .symbolicLink:
            return "is a symbolic link: quire reads only regular files inside pages/"
        case .notRegularFile(let kind):
            return "is \(kind), not a regular file: quire reads only regular files inside pages/"
        case .tooLarge(let size, let limit):
            return "is \(size) bytes, over the \(limit)-byte limit (limits.max_file_bytes in site.yaml)"
        case .unreadable(let code, let reason):
            return "cannot be read: \(reason) (errno \(code))"
        }
    }

    /// An errno from a system call, with the operation and the system's own wording.
    init(errno code: Int32, operation: String) {
        self = .unreadable(errno: code, reason: "\(operation): \(String(cString: strerror(code)))")
    }
}
