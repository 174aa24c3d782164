import Foundation
import QuireCore
import QuireDashboard
import QuireModel
import Testing

/// The ops routes on a site built twice: versions with who caused them, a diff, a published
/// file, and a rollback that needs a reason and lands in the history with the user.
struct OpsRoutesTests {
    let fixture: DashboardFixture
    var dist: String { fixture.root + "/dist" }

    init() throws {
        fixture = try DashboardFixture()
        fixture.service.dist = fixture.root + "/dist"
        let builder = SiteBuilder(site: "trex", pagesRoot: fixture.pages, distRoot: fixture.root + "/dist")
        _ = builder.build(user: "ann")
        let path = fixture.site + "/trex-store.yaml"
        let text = try String(contentsOfFile: path, encoding: .utf8)
        try text.replacingOccurrences(of: "title: Training Essentials", with: "title: Training Basics").write(
            toFile: path, atomically: true, encoding: .utf8)
        _ = builder.build(changed: [path], user: "bob")
    }

    func post(_ route: String, _ body: JSONValue, user: String = "olga") -> (status: Int, body: JSONValue) {
        fixture.json(fixture.send("POST", "/api/sites/trex/ops/" + route, body: JSONWriter(pretty: false).bytes(body), user: user))
    }

    @Test func versionsSayWhoCausedThemAndWhatChanged() throws {
        let body = fixture.json(fixture.send("GET", "/api/sites/trex/ops/versions")).body
        let versions = try #require(body["versions"]?.arrayValue)
        #expect(versions.count == 2)
        #expect(versions.map { $0["user"]?.stringValue } == ["ann", "bob"])
        #expect(versions.last?["current"]?.boolValue == true)
        #expect(versions.last?["changes"]?["changed"]?.arrayValue?.contains("en/trex-store.json") == true)
        let diff = fixture.json(fixture.send("GET", "/api/sites/trex/ops/diff?from=v000001&to=v000002")).body
        #expect(diff["changed"]?.arrayValue?.contains("en/trex-store.json") == true)
        let old = fixture.json(fixture.send("GET", "/api/sites/trex/ops/published?version=v000001&path=en/trex-store.json")).body
        #expect(old["text"]?.stringValue?.contains("Training Essentials") == true)
    }

    @Test func aRollbackNeedsAReasonAndIsRecordedWithItsUser() throws {
        #expect(post("rollback", ["version": "v000001", "reason": "  "]).status == 400)
        let store = try SiteStore(dist: dist, site: "trex")
        #expect(try store.reader.currentVersion() == VersionID(2))
        let (status, body) = post("rollback", ["version": "v000001", "reason": "bad title"])
        #expect(status == 200, "\(body)")
        #expect(try store.reader.currentVersion() == VersionID(1))
        #expect(try store.reader.pinnedVersion() == VersionID(1))
        let last = try #require(try store.operations.history().last)
        #expect(last.action == .rollback && last.user == "olga" && last.reason == "bad title")
        let history = fixture.json(fixture.send("GET", "/api/sites/trex/ops/history?kind=rollback&user=olga")).body
        #expect(history["entries"]?.arrayValue?.count == 1)
        #expect(post("unpin", ["reason": "fixed"]).body["current"]?.stringValue == "v000002")
        #expect(post("verify", [:]).body["verified"]?.boolValue == true)
        #expect(post("gc", ["keep": 1]).body["count"]?.intValue == 1)
        #expect(post("rollback", ["version": "v000009", "reason": "no such"]).status == 409)
    }
}
