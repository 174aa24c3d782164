import Foundation
import QuireCore
import QuireDashboard
import QuireModel
import Testing

/// Hostile requests to the translators' and ops' routes: each refused with a clear status,
/// every file of the site left as it was.
struct RoleHostileRequestTests {
    static let save = #"{"base": "", "strings": {"hero.title": "x"}}"#
    static let cases: [HostileRequestTests.Case] = [
        .init(
            description: "a translation save without token", method: "PUT", uri: "/api/sites/trex/l10n/es/pages/trex-store", body: save,
            token: false, status: 403),
        .init(
            description: "a translation save from another origin", method: "PUT", uri: "/api/sites/trex/l10n/es/pages/trex-store",
            body: save,
            origin: "http://evil.example", status: 403),
        .init(description: "a translation of a path", method: "PUT", uri: "/api/sites/trex/l10n/es/pages/../site", body: save, status: 400),
        .init(
            description: "a locale the site lacks", method: "PUT", uri: "/api/sites/trex/l10n/xx/pages/trex-store", body: save, status: 404),
        .init(description: "the source locale", method: "PUT", uri: "/api/sites/trex/l10n/en/pages/trex-store", body: save, status: 404),
        .init(
            description: "strings that are a list", method: "PUT", uri: "/api/sites/trex/l10n/es/pages/trex-store",
            body: #"{"base": "", "strings": []}"#, status: 400),
        .init(
            description: "a translation that is a number", method: "PUT", uri: "/api/sites/trex/l10n/es/pages/trex-store",
            body: #"{"base": "", "strings": {"hero.title": 3}}"#, status: 400),
        .init(
            description: "a stale translation base", method: "PUT", uri: "/api/sites/trex/l10n/es/pages/trex-store", body: save, status: 409
        ),
        .init(
            description: "a page that does not exist", method: "PUT", uri: "/api/sites/trex/l10n/es/pages/nothing", body: save, status: 404),
        .init(
            description: "an import named as hidden", method: "POST", uri: "/api/sites/trex/l10n/es/import?name=.x.xlf", body: "x",
            status: 400),
        .init(
            description: "an import with a path", method: "POST", uri: "/api/sites/trex/l10n/es/import?name=a/b.xlf", body: "x", status: 400
        ),
        .init(
            description: "an export in an unknown format", method: "GET", uri: "/api/sites/trex/l10n/es/export/trex-store?format=docx",
            status: 400),
        .init(
            description: "a translation route with a wrong method", method: "DELETE", uri: "/api/sites/trex/l10n/es/pages/trex-store",
            status: 405),
        .init(description: "ops without published versions", method: "POST", uri: "/api/sites/trex/ops/rollback", body: "{}", status: 404),
        .init(description: "an unknown ops route", method: "GET", uri: "/api/sites/trex/ops/secrets", status: 404),
        .init(description: "a rollback by GET", method: "GET", uri: "/api/sites/trex/ops/rollback", status: 405),
        .init(
            description: "a rollback without token", method: "POST", uri: "/api/sites/trex/ops/rollback", body: "{}", token: false,
            status: 403),
    ]

    @Test(arguments: cases)
    func isRefusedAndChangesNothing(_ hostile: HostileRequestTests.Case) throws {
        let fixture = try DashboardFixture()
        let before = fixture.snapshot()
        let response = fixture.send(
            hostile.method, hostile.uri, body: Array(hostile.body.utf8), token: hostile.token ? nil : "", origin: hostile.origin)
        #expect(response.status.code == hostile.status, "\(hostile): \(String(decoding: response.body, as: UTF8.self))")
        #expect(fixture.json(response).body["error"]?.stringValue?.isEmpty == false)
        #expect(fixture.snapshot() == before)
    }
}
