/// Why a request could not be read off its connection; each is answered (when the connection
/// still takes an answer) and the connection closed.
public enum SCGIError: Error, Equatable, CustomStringConvertible {
    /// Not SCGI: the netstring, a parameter or CONTENT_LENGTH is not as the protocol says.
    case malformed(String)
    case headersTooLarge(limit: Int)
    case bodyTooLarge(size: Int, limit: Int)
    /// The connection ended (or went quiet past the read timeout) before the request did.
    case truncated

    public var status: HTTPStatus {
        switch self {
        case .malformed, .truncated: return .badRequest
        case .headersTooLarge: return .headersTooLarge
        case .bodyTooLarge: return .payloadTooLarge
        }
    }

    public var description: String {
        switch self {
        case .malformed(let why): return "malformed request: \(why)"
        case .headersTooLarge(let limit): return "the request's headers are over \(limit) bytes"
        case .bodyTooLarge(let size, let limit): return "the request's body is \(size) bytes, over the limit of \(limit)"
        case .truncated: return "the request ended early"
        }
    }
}
