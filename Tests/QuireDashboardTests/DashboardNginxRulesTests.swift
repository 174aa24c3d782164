import QuireCore
import Testing

/// Where nginx's rules put the dashboard: on the editors' server only, behind its sign-in.
struct DashboardNginxRulesTests {
    static func rules(auth: Bool) -> NginxRules {
        var rules = NginxRules(
            dist: "/srv/dist", publicListen: "127.0.0.1:1", editorsListen: "127.0.0.1:2", auth: nil,
            editorsAuth: auth ? NginxRules.EditorsAuth(service: .init(scheme: "http", server: "127.0.0.1:9", path: "/auth")) : nil)
        rules.dashboardSocket = "/tmp/quire-nginx-x/dashboard/scgi.sock"
        return rules
    }

    /// The text of each `server {}` block, in order (the apps' first).
    static func servers(_ text: String) -> [Substring] {
        text.components(separatedBy: "\nserver {").dropFirst().map { Substring($0) }
    }

    @Test(arguments: [false, true])
    func theDashboardIsOnTheEditorsServerOnly(_ auth: Bool) throws {
        let servers = Self.servers(Self.rules(auth: auth).text)
        try #require(servers.count == 2)
        #expect(!servers[0].contains("scgi_pass"))
        #expect(servers[1].contains("scgi_pass unix:/tmp/quire-nginx-x/dashboard/scgi.sock;"))
        #expect(servers[1].contains("location = /api/events {") && servers[1].contains("scgi_buffering off;"))
        #expect(servers[1].contains("scgi_param QUIRE_USER $quire_user;"))
        #expect(servers[1].contains("alias /usr/share/javascript/codemirror/;"))
        // The sign-in gates the whole server, the dashboard with it.
        #expect(servers[1].contains("auth_request /_quire_editors_auth;") == auth)
    }

    @Test func theDeployedRulesHaveNoDashboard() {
        #expect(!NginxRules.production.text.contains("scgi_pass"))
        #expect(!NginxRules.production.text.contains("/dashboard/"))
    }
}
