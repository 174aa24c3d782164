import Foundation

/// Who may do what on the dashboard for one site: `site.yaml`'s `dashboard:` maps the groups
/// the editors' sign-in names (oauth2-proxy's `X-Auth-Request-Groups`) to roles. Everyone
/// signed in may look; each role adds what it may change.
public struct DashboardRoles: Sendable, Hashable {
    public enum Role: String, Sendable, Hashable, CaseIterable, Comparable {
        /// Edits pages and assets.
        case editor
        /// Edits translations.
        case translator
        /// Rolls back, unpins, verifies, collects old versions.
        case ops

        public static func < (left: Role, right: Role) -> Bool {
            allCases.firstIndex(of: left)! < allCases.firstIndex(of: right)!
        }

        /// The key of `dashboard:` that lists the role's groups.
        public var key: String {
            switch self {
            case .editor: return "editors"
            case .translator: return "translators"
            case .ops: return "ops"
            }
        }
    }

    /// Group names per role.
    public var groups: [Role: [String]]

    public init(groups: [Role: [String]] = [:]) { self.groups = groups }

    public init(editors: [String], translators: [String], ops: [String]) {
        groups = [.editor: editors, .translator: translators, .ops: ops]
    }

    public var editors: [String] { groups[.editor] ?? [] }
    public var translators: [String] { groups[.translator] ?? [] }
    public var ops: [String] { groups[.ops] ?? [] }

    /// Whether a member of `groups` may change pages and assets (an editor).
    public func mayEdit(groups: Set<String>) -> Bool { roles(memberOf: groups).contains(.editor) }

    /// The roles a member of `memberOf` has: each role one of whose groups they are in.
    public func roles(memberOf: some Sequence<String>) -> Set<Role> {
        let member = Set(memberOf)
        return Set(Role.allCases.filter { role in (groups[role] ?? []).contains(where: member.contains) })
    }

    /// The roles of a signed-in user of a site whose settings say `roles` (nil: the site has no
    /// `dashboard:`, so every signed-in user does everything).
    public static func roles(of roles: DashboardRoles?, memberOf groups: some Sequence<String>) -> Set<Role> {
        roles.map { $0.roles(memberOf: groups) } ?? Set(Role.allCases)
    }

    /// The groups header's value (`admins, l10n-de`): names split at commas, trimmed, empty ones dropped.
    public static func groups(header: String) -> [String] {
        header.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    static func read(_ node: SourceNode, reader: inout SourceNodeReader) -> DashboardRoles? {
        guard let members = reader.mapping(node, "dashboard") else { return nil }
        reader.warnUnknownKeys(members, allowed: Set(Role.allCases.map(\.key)), keyPath: "dashboard", where: "dashboard")
        var roles = DashboardRoles()
        for role in Role.allCases {
            let keyPath = "dashboard.\(role.key)"
            guard let list = node[role.key], let names = reader.stringList(list, keyPath) else { continue }
            for (index, item) in (list.array ?? []).enumerated() {
                if let name = item.string, name.trimmingCharacters(in: .whitespaces) != name || name.isEmpty || name.contains(",") {
                    reader.error(
                        item, "\(keyPath)[\(index)]",
                        "'\(name)' is not a group name: write it as the sign-in names it, without commas or surrounding spaces")
                }
            }
            roles.groups[role] = names
        }
        return roles
    }
}
