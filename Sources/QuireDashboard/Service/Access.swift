import QuireCore
import QuireModel

/// Roles (docs: ARCHITECTURE.md, "The dashboard"): who may change what, decided by the service on
/// every request from the sign-in's user and groups (`QUIRE_USER`, `QUIRE_GROUPS`) and the site's
/// `dashboard:` in site.yaml. Everyone signed in may look; a change needs its role.
extension DashboardService {
    typealias Role = DashboardRoles.Role

    /// The groups nginx's auth gate named (`QUIRE_GROUPS`, comma-separated).
    func groups(_ request: SCGIRequest) -> [String] {
        DashboardRoles.groups(header: request["QUIRE_GROUPS"] ?? "")
    }

    /// The roles the request's user has on `site`. Without a sign-in (loopback), the local user
    /// has every role; with one, a request that names no user has none, and a site whose
    /// site.yaml cannot be read has none either (its `dashboard:` cannot be known).
    func roles(_ request: SCGIRequest, site: String) -> Set<Role> {
        guard signInRequired else { return Set(Role.allCases) }
        guard user(request) != nil else { return [] }
        let root = absolutePagesRoot + "/" + site
        guard let config = SiteSettings.config(siteRoot: root, site: site, displayRoot: pagesRoot + "/" + site) else { return [] }
        return DashboardRoles.roles(of: config.dashboard, memberOf: groups(request))
    }

    /// The role a request to `/api/sites/{site}/{rest}` needs; nil: looking (and draft checks,
    /// which write nothing), open to everyone signed in.
    static func requiredRole(method: String, rest: [String]) -> Role? {
        guard method != "GET", method != "HEAD" else { return nil }
        switch rest.first {
        case "pages", "assets": return .editor
        // A translation draft's preview writes nothing.
        case "l10n": return rest.count > 2 && rest[2] == "check" ? nil : .translator
        case "ops": return .ops
        default: return nil
        }
    }

    /// Refuses (403) a request whose user lacks the role it needs on `site`, before anything is read or written.
    func requireRole(_ request: SCGIRequest, site: String, rest: [String]) throws(DashboardError) {
        guard let role = Self.requiredRole(method: request.method, rest: rest) else { return }
        guard !roles(request, site: site).contains(role) else { return }
        if signInRequired, user(request) != nil,
            SiteSettings.config(siteRoot: absolutePagesRoot + "/" + site, site: site, displayRoot: pagesRoot + "/" + site) == nil
        {
            throw DashboardError(
                .forbidden, "\(site)'s site.yaml has errors, so its dashboard roles are unknown: changes are refused until it is fixed",
                JSONObject([("role", .string(role.rawValue))]))
        }
        let who = user(request).map { "'\($0)'" } ?? "a sign-in without a user name"
        throw DashboardError(
            .forbidden,
            "\(who) is not in a group of \(site)'s dashboard \(role.key) (site.yaml: dashboard.\(role.key)): \(Self.what(role)) is refused",
            JSONObject([("role", .string(role.rawValue))]))
    }

    private static func what(_ role: Role) -> String {
        switch role {
        case .editor: return "editing pages and assets"
        case .translator: return "editing translations"
        case .ops: return "rolling back, unpinning, verifying and collecting versions"
        }
    }

    /// For the session's answer: each site's roles, so the dashboard hides what the user may not do.
    func rolesJSON(_ request: SCGIRequest) -> JSONValue {
        .object(JSONObject(sites().map { site in (site, .array(roles(request, site: site).sorted().map { .string($0.rawValue) })) }))
    }
}
