import QuireCore
import QuireModel

// The routes (docs: ARCHITECTURE.md, "The dashboard"). Paths are matched on their raw text:
// every part of a route is an id (`[a-z0-9_/-]`), so a path with anything else (`%`, `..`,
// `//`, `\`) is refused before any route sees it, and nothing is ever decoded into a path.
extension DashboardService {
    func route(_ request: SCGIRequest) throws(DashboardError) -> HTTPResponse {
        let path = request.path
        guard path.hasPrefix("/"), path.utf8.allSatisfy(Self.isPathByte), !path.contains("//"), !path.contains("/./"),
            !path.contains("/../"), !path.hasSuffix("/.."), !path.hasSuffix("/.")
        else { throw .badRequest("the path holds characters no dashboard route has: only a-z, 0-9, '_', '-', '.' and '/'") }
        let parts = path.split(separator: "/").map(String.init)
        let method = request.method
        switch (parts.first, parts.dropFirst().first) {
        case ("dashboard", _):
            try allow(method, ["GET", "HEAD"])
            return StaticFiles.response(parts.dropFirst().joined(separator: "/"), trailingSlash: path.hasSuffix("/"))
        case ("api", "session"?) where parts.count == 2:
            try allow(method, ["GET"])
            return session(request)
        case ("api", "events"?) where parts.count == 2:
            try allow(method, ["GET"])
            return events.streamResponse()
        case ("api", "sites"?) where parts.count == 2:
            try allow(method, ["GET"])
            return siteList()
        case ("api", "sites"?) where parts.count >= 4:
            return try siteRoute(request, site: parts[2], rest: Array(parts[3...]))
        default:
            throw .notFound("no such route: \(path.prefix(200))")
        }
    }

    private func siteRoute(_ request: SCGIRequest, site: String, rest: [String]) throws(DashboardError) -> HTTPResponse {
        let method = request.method
        switch (rest[0], rest.count) {
        case ("pages", 1):
            try allow(method, ["GET", "POST"])
            if method == "GET" { return try pageList(site) }
            try authorize(request)
            return try createPage(site, request)
        case ("pages", _):
            let id = rest.dropFirst().joined(separator: "/")
            try allow(method, ["GET", "PUT", "DELETE"])
            if method == "GET" { return try page(site, id) }
            try authorize(request)
            return method == "PUT" ? try savePage(site, id, request) : try deletePage(site, id, request)
        case ("schema", 1):
            try allow(method, ["GET"])
            return try schema(site)
        case ("check", 1):
            try allow(method, ["POST"])
            // A check writes nothing, and is still a POST with a body: it carries the token too.
            try authorize(request)
            return try check(site, request)
        case ("assets", 1):
            try allow(method, ["GET", "POST"])
            if method == "GET" { return try assetList(site) }
            try authorize(request)
            return try uploadAsset(site, request)
        default:
            throw .notFound("no such route under /api/sites/\(site)/")
        }
    }

    private static func isPathByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"), UInt8(ascii: "-"),
            UInt8(ascii: "."), UInt8(ascii: "/"):
            return true
        default: return false
        }
    }

    private func allow(_ method: String, _ methods: [String]) throws(DashboardError) {
        guard methods.contains(method) else {
            throw DashboardError(.methodNotAllowed, "\(method.prefix(20)) is not allowed here (only \(methods.joined(separator: ", ")))")
        }
    }

    /// A state-changing request: the session's token, and an Origin that is the dashboard's own.
    func authorize(_ request: SCGIRequest) throws(DashboardError) {
        guard let given = request.header("X-Quire-Token"), Self.constantTimeEqual(given, token) else {
            throw DashboardError(.forbidden, "missing or wrong X-Quire-Token: reload the dashboard")
        }
        let scheme = request["REQUEST_SCHEME"].flatMap { $0.isEmpty ? nil : $0 } ?? "http"
        guard let host = request.header("Host"), !host.isEmpty, let origin = request.header("Origin"), origin == "\(scheme)://\(host)"
        else { throw DashboardError(.forbidden, "a request from another origin is refused (Origin must be this dashboard's)") }
        if let site = request.header("Sec-Fetch-Site"), site != "same-origin" {
            throw DashboardError(.forbidden, "a request from another origin is refused (Sec-Fetch-Site: \(site.prefix(40)))")
        }
    }

    private static func constantTimeEqual(_ left: String, _ right: String) -> Bool {
        let (a, b) = (Array(left.utf8), Array(right.utf8))
        guard a.count == b.count else { return false }
        return zip(a, b).reduce(0) { $0 | ($1.0 ^ $1.1) } == 0
    }

    /// The user nginx's auth gate named (`QUIRE_USER`); nil for the local user.
    func user(_ request: SCGIRequest) -> String? {
        guard let user = request["QUIRE_USER"], !user.isEmpty else { return nil }
        return String(user.unicodeScalars.filter { $0.value >= 0x20 && $0.value != 0x7F }.prefix(200))
    }

    private func session(_ request: SCGIRequest) -> HTTPResponse {
        .json(
            .object(
                JSONObject([
                    ("user", user(request).map(JSONValue.string) ?? .null), ("token", .string(token)),
                    ("sites", .array(sites().map { .string($0) })),
                ])))
    }

    /// The request's body as a JSON object.
    func jsonBody(_ request: SCGIRequest, limit: Int = 6 * 1024 * 1024) throws(DashboardError) -> JSONObject {
        guard request.body.count <= limit else {
            throw DashboardError(.payloadTooLarge, "the request is \(request.body.count) bytes, over the limit of \(limit)")
        }
        let root: SourceNode
        do throws(Diagnostic) {
            // A page's whole text is one string of the request: the page's own limits apply to it later.
            var limits = SourceLimits.default
            limits.maxStringBytes = limit
            root = try SourceParser.parse(request.body, format: .json, file: "request", limits: limits)
        } catch {
            throw .badRequest("the request's body is not JSON: \(error.description)")
        }
        guard case .object(let object) = root.json else { throw .badRequest("the request's body must be a JSON object") }
        return object
    }
}
