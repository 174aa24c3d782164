/// One request as nginx passes it over SCGI: its parameters (CGI-style names, `REQUEST_METHOD`,
/// `REQUEST_URI`, `HTTP_ORIGIN`, ...) and its body.
public struct SCGIRequest: Sendable {
    public var parameters: [String: String]
    public var body: [UInt8]

    public init(parameters: [String: String], body: [UInt8] = []) {
        self.parameters = parameters
        self.body = body
    }

    public subscript(name: String) -> String? { parameters[name] }

    public var method: String { parameters["REQUEST_METHOD"] ?? "" }

    /// The path of the request as the client sent it (`REQUEST_URI` without its query), not
    /// decoded: routes hold only ids (`[a-z0-9_/-]`), so anything encoded is refused, never decoded.
    public var path: String {
        let uri = parameters["REQUEST_URI"] ?? ""
        return uri.firstIndex(of: "?").map { String(uri[..<$0]) } ?? uri
    }

    /// The query's `name=value` pairs, percent-decoded (`+` is a space).
    public var query: [String: String] {
        let uri = parameters["REQUEST_URI"] ?? ""
        guard let mark = uri.firstIndex(of: "?") else { return [:] }
        var pairs: [String: String] = [:]
        for pair in uri[uri.index(after: mark)...].split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let decode = { (text: Substring) in text.replacingOccurrences(of: "+", with: " ").removingPercentEncoding }
            guard let name = decode(parts[0]), let value = decode(parts.count > 1 ? parts[1] : "") else { continue }
            pairs[name] = value
        }
        return pairs
    }

    /// An HTTP request header (`X-Quire-Token` is `HTTP_X_QUIRE_TOKEN`).
    public func header(_ name: String) -> String? {
        parameters["HTTP_" + name.uppercased().replacingOccurrences(of: "-", with: "_")]
    }
}
