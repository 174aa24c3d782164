public import QuireModel

public struct HTTPStatus: Sendable, Equatable {
    public var code: Int
    public var reason: String

    public static let ok = HTTPStatus(code: 200, reason: "OK")
    public static let created = HTTPStatus(code: 201, reason: "Created")
    public static let badRequest = HTTPStatus(code: 400, reason: "Bad Request")
    public static let forbidden = HTTPStatus(code: 403, reason: "Forbidden")
    public static let notFound = HTTPStatus(code: 404, reason: "Not Found")
    public static let methodNotAllowed = HTTPStatus(code: 405, reason: "Method Not Allowed")
    public static let conflict = HTTPStatus(code: 409, reason: "Conflict")
    public static let payloadTooLarge = HTTPStatus(code: 413, reason: "Payload Too Large")
    public static let unsupportedMediaType = HTTPStatus(code: 415, reason: "Unsupported Media Type")
    public static let unprocessable = HTTPStatus(code: 422, reason: "Unprocessable Content")
    public static let headersTooLarge = HTTPStatus(code: 431, reason: "Request Header Fields Too Large")
    public static let internalError = HTTPStatus(code: 500, reason: "Internal Server Error")
    public static let unavailable = HTTPStatus(code: 503, reason: "Service Unavailable")
    public static let insufficientStorage = HTTPStatus(code: 507, reason: "Insufficient Storage")
}

/// An answer in SCGI's CGI form: `Status:` and headers, a blank line, the body. Header names and
/// values come from this module's constants and checked values only; a line break in one is
/// dropped rather than sent, so no text can add a header.
public struct HTTPResponse: Sendable {
    public var status: HTTPStatus
    public var headers: [(name: String, value: String)]
    public var body: [UInt8]
    /// Set for an event stream: called with the connection once the headers are sent, it writes
    /// for as long as it likes (no Content-Length).
    public var stream: (@Sendable (EventStreamConnection) -> Void)?

    public init(status: HTTPStatus, headers: [(name: String, value: String)] = [], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// What every answer carries.
    static let commonHeaders: [(name: String, value: String)] = [
        ("X-Content-Type-Options", "nosniff"), ("Cache-Control", "no-store"),
        ("Content-Security-Policy", "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'"),
    ]

    public static func json(_ value: JSONValue, status: HTTPStatus = .ok) -> HTTPResponse {
        HTTPResponse(
            status: status, headers: [("Content-Type", "application/json; charset=utf-8")], body: JSONWriter(pretty: false).bytes(value))
    }

    /// `{"error": message}` and any more members.
    public static func error(_ status: HTTPStatus, _ message: String, _ more: JSONObject = JSONObject()) -> HTTPResponse {
        var object = JSONObject([("error", .string(message))])
        for member in more.members { object[member.key] = member.value }
        return json(.object(object), status: status)
    }

    /// The bytes of the status line and headers (with Content-Length unless it streams) and body.
    public var bytes: [UInt8] {
        var head = "Status: \(status.code) \(status.reason)\r\n"
        var names = Set<String>()
        for (name, value) in headers + Self.commonHeaders where names.insert(name.lowercased()).inserted {
            head += "\(Self.clean(name)): \(Self.clean(value))\r\n"
        }
        if stream == nil { head += "Content-Length: \(body.count)\r\n" }
        head += "\r\n"
        return Array(head.utf8) + (stream == nil ? body : [])
    }

    private static func clean(_ text: String) -> String {
        String(text.unicodeScalars.filter { $0.value >= 0x20 && $0.value != 0x7F })
    }
}
