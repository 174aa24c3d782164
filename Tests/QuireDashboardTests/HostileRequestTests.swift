import Foundation
import QuireCore
import QuireDashboard
import QuireModel
import Testing

/// Requests that must be refused with a clear status, each leaving every file of the site as it was.
struct HostileRequestTests {
    struct Case: CustomStringConvertible, Sendable {
        var description: String
        var method: String
        var uri: String
        var body: String = ""
        var token: Bool = true
        var origin: String? = DashboardFixture.origin
        var status: Int
    }

    static let save = #"{"base": "0000", "text": "title: x\nsections: []\n"}"#

    static let cases: [Case] = [
        Case(description: "dot-dot in the page id", method: "PUT", uri: "/api/sites/trex/pages/../site", body: save, status: 400),
        Case(description: "encoded dot-dot", method: "PUT", uri: "/api/sites/trex/pages/%2e%2e/site", body: save, status: 400),
        Case(description: "an absolute path", method: "PUT", uri: "/api/sites/trex/pages//etc/passwd", body: save, status: 400),
        Case(description: "a backslash", method: "GET", uri: "/api/sites/trex/pages/..\\site", status: 400),
        Case(description: "site.yaml as a page", method: "PUT", uri: "/api/sites/trex/pages/site", body: save, status: 400),
        Case(description: "an asset as a page", method: "PUT", uri: "/api/sites/trex/pages/assets/trex-banner", body: save, status: 400),
        Case(description: "a translation as a page", method: "GET", uri: "/api/sites/trex/pages/l10n/fr/trex-store", status: 400),
        Case(description: "an upper-case id", method: "GET", uri: "/api/sites/trex/pages/Trex-Store", status: 400),
        Case(description: "an unknown site", method: "GET", uri: "/api/sites/other/pages", status: 404),
        Case(description: "a site outside pages", method: "GET", uri: "/api/sites/../pages", status: 400),
        Case(description: "no token", method: "PUT", uri: "/api/sites/trex/pages/trex-store", body: save, token: false, status: 403),
        Case(
            description: "a foreign Origin", method: "PUT", uri: "/api/sites/trex/pages/trex-store", body: save,
            origin: "http://evil.example", status: 403),
        Case(description: "no Origin", method: "PUT", uri: "/api/sites/trex/pages/trex-store", body: save, origin: nil, status: 403),
        Case(description: "a wrong method", method: "PATCH", uri: "/api/sites/trex/pages/trex-store", body: save, status: 405),
        Case(description: "a body that is not JSON", method: "PUT", uri: "/api/sites/trex/pages/trex-store", body: "title: x", status: 400),
        Case(description: "a JSON list", method: "PUT", uri: "/api/sites/trex/pages/trex-store", body: "[1]", status: 400),
        Case(description: "no base", method: "PUT", uri: "/api/sites/trex/pages/trex-store", body: #"{"text": "x"}"#, status: 400),
        Case(description: "a stale base", method: "PUT", uri: "/api/sites/trex/pages/trex-store", body: save, status: 409),
        Case(description: "a document that is text", method: "POST", uri: "/api/sites/trex/pages", body: #"{"id": 3}"#, status: 400),
        Case(description: "an unknown route", method: "GET", uri: "/api/secrets", status: 404),
        Case(description: "a delete without base", method: "DELETE", uri: "/api/sites/trex/pages/trex-store", status: 400),
        Case(
            description: "an upload named with a path", method: "POST", uri: "/api/sites/trex/assets?name=../x.png", body: "x", status: 400),
        Case(
            description: "an upload that is HTML", method: "POST", uri: "/api/sites/trex/assets?name=x.png", body: "<html><script>",
            status: 415),
        Case(description: "an upload of text", method: "POST", uri: "/api/sites/trex/assets?name=x.png", body: "hello", status: 415),
    ]

    @Test(arguments: cases)
    func isRefusedAndChangesNothing(_ hostile: Case) throws {
        let fixture = try DashboardFixture()
        let before = fixture.snapshot()
        let response = fixture.send(
            hostile.method, hostile.uri, body: Array(hostile.body.utf8), token: hostile.token ? nil : "", origin: hostile.origin)
        #expect(response.status.code == hostile.status, "\(hostile): \(String(decoding: response.body, as: UTF8.self))")
        let error = fixture.json(response).body["error"]?.stringValue
        #expect(error?.isEmpty == false)
        #expect(fixture.snapshot() == before)
    }

    @Test func aSymbolicLinkIsNeverFollowed() throws {
        let fixture = try DashboardFixture()
        let outside = fixture.root + "/outside"
        try FileManager.default.createDirectory(atPath: outside, withIntermediateDirectories: true)
        try "title: secret\nsections: []\n".write(toFile: outside + "/page.yaml", atomically: true, encoding: .utf8)
        try FileManager.default.createSymbolicLink(atPath: fixture.site + "/linked", withDestinationPath: outside)
        try FileManager.default.createSymbolicLink(atPath: fixture.site + "/alias.yaml", withDestinationPath: outside + "/page.yaml")
        let before = fixture.snapshot()
        let outsideBefore = try String(contentsOfFile: outside + "/page.yaml", encoding: .utf8)
        let base = SHA256.hash(Array(outsideBefore.utf8))
        let save: JSONValue = ["base": .string(base), "text": "title: pwned\nsections: []\n"]
        #expect(fixture.send("GET", "/api/sites/trex/pages/linked/page").status.code == 403)
        #expect(fixture.send("PUT", "/api/sites/trex/pages/linked/page", json: save).status.code == 403)
        #expect(fixture.send("GET", "/api/sites/trex/pages/alias").status.code == 403)
        #expect(fixture.send("PUT", "/api/sites/trex/pages/alias", json: save).status.code == 403)
        #expect(fixture.send("POST", "/api/sites/trex/pages", json: ["id": "linked/new"]).status.code == 403)
        #expect(fixture.send("DELETE", "/api/sites/trex/pages/alias?base=\(base)").status.code == 403)
        #expect(try String(contentsOfFile: outside + "/page.yaml", encoding: .utf8) == outsideBefore)
        #expect(!FileManager.default.fileExists(atPath: outside + "/new.yaml"))
        #expect(fixture.snapshot() == before)
    }

    @Test(.enabled(if: geteuid() != 0, "root writes to a read-only folder anyway"))
    func aReadOnlyFolderIsAClearErrorAndLeavesNothing() throws {
        let fixture = try DashboardFixture()
        let page = fixture.json(fixture.send("GET", "/api/sites/trex/pages/guides/range-safety")).body
        chmod(fixture.site + "/guides", 0o555)
        defer { chmod(fixture.site + "/guides", 0o755) }
        let before = fixture.snapshot()
        let response = fixture.send(
            "PUT", "/api/sites/trex/pages/guides/range-safety", json: ["base": page["base"]!, "text": "title: x\n"])
        #expect(response.status.code == 403)
        #expect(fixture.json(response).body["error"]?.stringValue?.contains("nothing was saved") == true)
        #expect(fixture.snapshot() == before)
    }
}
