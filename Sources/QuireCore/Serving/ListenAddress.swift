import Glibc

/// `[HOST:]PORT` of `quire watch --serve`: where the public server listens; the editors' server
/// listens on the same host, next port. Without a host, loopback only.
public struct ListenAddress: Sendable, Equatable, CustomStringConvertible {
    public var host: String
    public var port: Int

    public init(host: String, port: Int) {
        self.host = host
        self.port = port
    }

    /// Nil when `text` is not `[HOST:]PORT` (an IPv6 host in brackets: `[::1]:8080`).
    public init?(_ text: String) {
        var host = "127.0.0.1"
        var portText = Substring(text)
        if let colon = text.lastIndex(of: ":") {
            host = String(text[..<colon])
            portText = text[text.index(after: colon)...]
            if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
            guard !host.isEmpty, !host.contains(where: { $0 == "[" || $0 == "]" || $0 == "/" || $0 == " " }) else { return nil }
        }
        // The editors' server takes the next port, so the last one is not available.
        guard portText.allSatisfy(\.isASCII), let port = Int(portText), port > 0, port < 65535 else { return nil }
        self.init(host: host, port: port)
    }

    private var bracketedHost: String { host.contains(":") ? "[\(host)]" : host }

    /// What nginx's `listen` says.
    public var description: String { "\(bracketedHost):\(port)" }

    /// Whether only this machine can reach it: 127.0.0.0/8, ::1 or `localhost`.
    public var isLoopback: Bool {
        host == "localhost" || host == "::1"
            || (host.hasPrefix("127.") && host.split(separator: ".").count == 4 && host.allSatisfy { $0.isNumber || $0 == "." })
    }

    /// The address to open in a browser (a wildcard host is reached through loopback).
    public var url: String {
        let reachable = host == "0.0.0.0" ? "127.0.0.1" : host == "::" ? "[::1]" : bracketedHost
        return "http://\(reachable):\(port)"
    }

    /// Nil when a server could listen here now; otherwise why not (taken, no such address, not
    /// allowed). Binds the way nginx does (SO_REUSEADDR), so a port left in TIME_WAIT is free.
    public func unavailability() -> String? {
        var hints = addrinfo()
        hints.ai_flags = AI_PASSIVE
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var found: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &found)
        guard status == 0, let first = found else { return "no such address (\(String(cString: gai_strerror(status))))" }
        defer { freeaddrinfo(first) }
        let socketFD = socket(first.pointee.ai_family, first.pointee.ai_socktype, first.pointee.ai_protocol)
        guard socketFD >= 0 else { return String(cString: strerror(errno)) }
        defer { close(socketFD) }
        var one: Int32 = 1
        _ = setsockopt(socketFD, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        guard bind(socketFD, first.pointee.ai_addr, first.pointee.ai_addrlen) == 0 else {
            return errno == EADDRINUSE ? "the port is taken" : String(cString: strerror(errno))
        }
        return nil
    }
}
