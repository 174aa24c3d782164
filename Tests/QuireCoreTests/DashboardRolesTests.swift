import Foundation
import QuireModel
import Testing

@testable import QuireCore

/// `site.yaml`'s `dashboard:`: groups to roles, checked like the file's other keys.
struct DashboardRolesTests {
    static func read(_ yaml: String) throws -> (SiteConfig, [Diagnostic]) {
        let root = try SourceParser.parse(Array(yaml.utf8), format: .yaml, file: "site.yaml")
        return SiteConfig.read(root, site: "trex", file: "site.yaml")
    }

    @Test func groupsMapToRoles() throws {
        let (config, diagnostics) = try Self.read(
            "dashboard:\n  editors: [writers, admins]\n  translators: [l10n-de]\n  ops: [oncall, admins]\n")
        #expect(diagnostics.isEmpty)
        let roles = try #require(config.dashboardRoles)
        #expect(roles.roles(memberOf: ["writers"]) == [.editor])
        #expect(roles.roles(memberOf: ["l10n-de", "visitors"]) == [.translator])
        #expect(roles.roles(memberOf: ["admins"]) == [.editor, .ops])
        #expect(roles.roles(memberOf: ["visitors"]).isEmpty)
        #expect(roles.roles(memberOf: []).isEmpty)
    }

    @Test func aSiteWithoutDashboardLetsEveryoneDoEverything() throws {
        let (config, _) = try Self.read("title: T\n")
        #expect(config.dashboardRoles == nil)
        #expect(DashboardRoles.roles(of: config.dashboardRoles, memberOf: []) == Set(DashboardRoles.Role.allCases))
    }

    @Test func aRoleWithNoGroupsIsNobodys() throws {
        let (config, diagnostics) = try Self.read("dashboard:\n  editors: [writers]\n")
        #expect(diagnostics.isEmpty)
        #expect(DashboardRoles.roles(of: config.dashboardRoles, memberOf: ["writers", "oncall"]) == [.editor])
    }

    @Test func theGroupsHeaderIsSplitAtCommas() {
        #expect(DashboardRoles.groups(header: "admins, l10n-de,,  oncall ") == ["admins", "l10n-de", "oncall"])
        #expect(DashboardRoles.groups(header: "").isEmpty)
    }

    @Test func mistakesArePlacedAtTheirKey() throws {
        let (_, diagnostics) = try Self.read("title: T\ndashboard:\n  editor: [writers]\n  ops: oncall\n  translators: [' de', 3]\n")
        let texts = diagnostics.map { "\($0.position.line):\($0.position.column) \($0.keyPath) \($0.message)" }
        #expect(texts.contains { $0.hasPrefix("3:3 dashboard.editor unknown key 'editor'") && $0.contains("did you mean 'editors'?") })
        #expect(texts.contains { $0.hasPrefix("4:8 dashboard.ops must be a list of text") })
        #expect(texts.contains { $0.hasPrefix("5:17 dashboard.translators[0] ' de' is not a group name") })
        #expect(texts.contains { $0.hasPrefix("5:24 dashboard.translators[1] must be text") })
        #expect(diagnostics.filter(\.isError).count == 3)
    }

    @Test func dashboardMustBeAMapping() throws {
        let (config, diagnostics) = try Self.read("dashboard: [admins]\n")
        #expect(config.dashboardRoles == nil)
        #expect(diagnostics.contains { $0.isError && $0.keyPath == "dashboard" && $0.message.contains("must be a mapping") })
    }
}
