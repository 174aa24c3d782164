import Foundation
import QuireCore
import QuireDashboard
import QuireModel
import Testing

/// Roles enforced by the service on every request: each role is refused (403, nothing changed
/// on disk) what it may not do, and the session says what each user may do.
struct RoleAccessTests {
    let fixture: DashboardFixture
    static let groups = ["ann": "writers", "tom": "l10n-de", "olga": "oncall", "vic": "visitors"]

    init() throws {
        fixture = try DashboardFixture()
        let siteFile = fixture.site + "/site.yaml"
        let text = try String(contentsOfFile: siteFile, encoding: .utf8)
        try (text + "dashboard:\n  editors: [writers]\n  translators: [l10n-de]\n  ops: [oncall]\n").write(
            toFile: siteFile, atomically: true, encoding: .utf8)
        fixture.service.signInRequired = true
    }

    func send(_ user: String?, _ method: String, _ uri: String, json: JSONValue = [:]) -> (status: Int, body: JSONValue) {
        var more: [String: String] = [:]
        if let user { more["QUIRE_GROUPS"] = Self.groups[user] ?? "" }
        return fixture.json(
            fixture.send(method, uri, body: JSONWriter(pretty: false).bytes(json), user: user, more: more))
    }

    @Test func theSessionSaysEachUsersRoles() {
        #expect(send("ann", "GET", "/api/session").body["roles"]?["trex"] == ["editor"])
        #expect(send("tom", "GET", "/api/session").body["roles"]?["trex"] == ["translator"])
        #expect(send("olga", "GET", "/api/session").body["roles"]?["trex"] == ["ops"])
        #expect(send("vic", "GET", "/api/session").body["roles"]?["trex"] == [])
    }

    @Test func everyoneSignedInMayLook() {
        for user in Self.groups.keys {
            #expect(send(user, "GET", "/api/sites/trex/pages").status == 200)
            #expect(send(user, "GET", "/api/sites/trex/pages/trex-store").status == 200)
        }
    }

    @Test func whatEachRoleMayNotDoIsRefusedAndChangesNothing() throws {
        let page = send("ann", "GET", "/api/sites/trex/pages/trex-store").body
        let save: JSONValue = ["base": page["base"] ?? .null, "text": "title: changed\nsections: []\n"]
        let before = fixture.snapshot()
        let refusals: [(String, String, String, JSONValue)] = [
            ("tom", "PUT", "/api/sites/trex/pages/trex-store", save),
            ("olga", "PUT", "/api/sites/trex/pages/trex-store", save),
            ("vic", "PUT", "/api/sites/trex/pages/trex-store", save),
            ("tom", "POST", "/api/sites/trex/pages", ["id": "fresh", "format": "yaml"]),
            ("olga", "DELETE", "/api/sites/trex/pages/trex-store?base=\(page["base"]?.stringValue ?? "")", [:]),
            ("tom", "POST", "/api/sites/trex/assets?name=x.png", [:]),
            ("ann", "POST", "/api/sites/trex/ops/rollback", ["version": "v000001", "reason": "broken"]),
            ("tom", "POST", "/api/sites/trex/ops/unpin", [:]),
            ("vic", "POST", "/api/sites/trex/ops/gc", ["keep": 1]),
            ("ann", "PUT", "/api/sites/trex/l10n/fr/pages/trex-store", [:]),
            ("olga", "POST", "/api/sites/trex/l10n/fr/import", [:]),
        ]
        for (user, method, uri, body) in refusals {
            let (status, answer) = send(user, method, uri, json: body)
            #expect(status == 403, "\(user) \(method) \(uri)")
            #expect(answer["error"]?.stringValue?.contains("may not change trex") == true, "\(user) \(method) \(uri)")
        }
        #expect(fixture.snapshot() == before)
    }

    @Test func anEditorMaySave() {
        let page = send("ann", "GET", "/api/sites/trex/pages/trex-store").body
        let (status, _) = send(
            "ann", "PUT", "/api/sites/trex/pages/trex-store", json: ["base": page["base"] ?? .null, "text": "title: Mine\n"])
        #expect(status == 200)
        #expect(fixture.read("trex-store.yaml") == Array("title: Mine\n".utf8))
    }

    @Test func aSignInWithoutAUserMayChangeNothing() {
        let page = send(nil, "GET", "/api/sites/trex/pages/trex-store").body
        let (status, _) = send(nil, "PUT", "/api/sites/trex/pages/trex-store", json: ["base": page["base"] ?? .null, "text": "title: X\n"])
        #expect(status == 403)
    }

    @Test func withoutASignInTheLocalUserDoesEverything() {
        fixture.service.signInRequired = false
        #expect(send(nil, "GET", "/api/session").body["roles"]?["trex"] == ["editor", "translator", "ops"])
    }

    @Test func aSiteWithoutDashboardLetsEverySignedInUserDoEverything() throws {
        let siteFile = fixture.site + "/site.yaml"
        let text = try String(contentsOfFile: siteFile, encoding: .utf8)
        try String(text[..<text.range(of: "dashboard:")!.lowerBound]).write(toFile: siteFile, atomically: true, encoding: .utf8)
        #expect(send("vic", "GET", "/api/session").body["roles"]?["trex"] == ["editor", "translator", "ops"])
    }

    @Test func aSiteWhoseSettingsHaveErrorsRefusesEveryChange() throws {
        let siteFile = fixture.site + "/site.yaml"
        let text = try String(contentsOfFile: siteFile, encoding: .utf8)
        try (text + "ttl: [not a number]\n").write(toFile: siteFile, atomically: true, encoding: .utf8)
        let page = send("ann", "GET", "/api/sites/trex/pages/trex-store").body
        let (status, body) = send(
            "ann", "PUT", "/api/sites/trex/pages/trex-store", json: ["base": page["base"] ?? .null, "text": "title: X\n"])
        #expect(status == 403)
        #expect(body["error"]?.stringValue?.contains("site.yaml has errors") == true)
        #expect(send("ann", "GET", "/api/session").body["roles"]?["trex"] == [])
    }
}
