import QuireCore
import QuireModel

/// Roles (docs: ARCHITECTURE.md, "The dashboard"): who may change what, decided by the service on
/// every request from the sign-in's user and groups (`QUIRE_USER`, `QUIRE_GROUPS`) and the site's
/// `dashboard:` in site.yaml. Everyone signed in may look; a change needs its role.
extension DashboardService {
    typealias Role = DashboardRoles.Role

    /// The roles the request's user has on `site`. The local user (no sign-in named, on loopback)
    /// has every role; behind a sign-in (`signInRequired`), a request that names no user has none.
    /// A named user has the roles their groups have in the site's `dashboard:` (all of them when
    /// it has none), and none while site.yaml has errors: breaking it opens nothing up.
    func roles(_ request: SCGIRequest, site: String) -> Set<Role> {
        guard user(request) != nil else { return signInRequired ? [] : Set(Role.allCases) }
        guard let config = siteConfig(site) else { return [] }
        return DashboardRoles.roles(of: config.dashboardRoles, memberOf: Self.groups(request))
    }

    /// site.yaml as it is now (read per request: a change of roles holds at once); nil when it has errors.
    private func siteConfig(_ site: String) -> SiteConfig? {
        SiteSettings.config(siteRoot: absolutePagesRoot + "/" + site, site: site, displayRoot: pagesRoot + "/" + site)
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
        let who = user(request) ?? "a sign-in without a user name"
        let more = JSONObject([("role", .string(role.rawValue))])
        if user(request) != nil, siteConfig(site) == nil {
            throw DashboardError(
                .forbidden, "\(site)'s site.yaml has errors, so its dashboard roles are unknown: changes are refused until it is fixed",
                more)
        }
        let groups = Self.groups(request).sorted().joined(separator: ", ")
        throw DashboardError(
            .forbidden,
            "\(who) may not change \(site) this way: \(Self.what(role)) needs a group of site.yaml's dashboard.\(role.key) (\(who)'s groups: \(groups.isEmpty ? "none" : groups))",
            more)
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
