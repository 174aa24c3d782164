import Foundation

/// Writes on a connected stream socket whose other end may have gone (an SCGI client, a child).
public enum StreamSocket {
    /// Writes all of `bytes`; false once the other end is gone (no SIGPIPE).
    public static func send(_ descriptor: Int32, _ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes.withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress! + offset, bytes.count - offset, Int32(MSG_NOSIGNAL)) }
            if sent < 0 && errno == EINTR { continue }
            guard sent > 0 else { return false }
            offset += sent
        }
        return true
    }
}
