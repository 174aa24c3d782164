import QuireModel

// The routes of issue 51 under `/api/sites/{site}/`: `ops/...` (versions, diff, history,
// rollback, unpin, verify, gc) and `l10n/...` (coverage, a page's strings, save, export,
// import). Roles are checked before any of them runs (`requireRole`).
extension DashboardService {
    func roleRoute(_ request: SCGIRequest, site: String, rest: [String]) throws(DashboardError) -> HTTPResponse {
        switch rest[0] {
        case "ops": return try opsRoute(request, site: site, rest: Array(rest.dropFirst()))
        case "l10n": return try l10nRoute(request, site: site, rest: Array(rest.dropFirst()))
        default: throw .notFound("no such route under /api/sites/\(site)/")
        }
    }

    private func opsRoute(_ request: SCGIRequest, site: String, rest: [String]) throws(DashboardError) -> HTTPResponse {
        guard rest.count == 1 else { throw .notFound("no such route under /api/sites/\(site)/ops/") }
        let reads = ["versions", "diff", "published", "history"]
        let actions = ["rollback", "unpin", "verify", "gc"]
        if reads.contains(rest[0]) {
            try allowOnly(request.method, ["GET"])
        } else if actions.contains(rest[0]) {
            try allowOnly(request.method, ["POST"])
            try authorize(request)
        } else {
            throw .notFound("no such route under /api/sites/\(site)/ops/")
        }
        let desk = try OpsDesk(service: self, site: site)
        switch rest[0] {
        case "versions": return try desk.versions()
        case "diff": return try desk.diff(request.query)
        case "published": return try desk.published(request.query)
        case "history": return try desk.history(request.query)
        default: return try desk.act(rest[0], body: try jsonBody(request, limit: 64 * 1024), user: user(request))
        }
    }

    func allowOnly(_ method: String, _ methods: [String]) throws(DashboardError) {
        guard methods.contains(method) else {
            throw DashboardError(.methodNotAllowed, "\(method.prefix(20)) is not allowed here (only \(methods.joined(separator: ", ")))")
        }
    }
}
