import Foundation
import QuireCore
import QuireDashboard
import QuireModel

/// A temporary copy of the repository's sample site `pages/trex`, and a service over it,
/// answering requests as nginx would pass them.
final class DashboardFixture: Sendable {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path

    let root: String
    var pages: String { root + "/pages" }
    var site: String { pages + "/trex" }
    let service: DashboardService
    static let origin = "http://127.0.0.1:8081"

    init() throws {
        root = NSTemporaryDirectory() + "quire-dashboard-test-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: root + "/pages", withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: Self.repository + "/pages/trex", toPath: root + "/pages/trex")
        service = DashboardService(pagesRoot: root + "/pages", sites: { ["trex"] })
    }

    deinit { try? FileManager.default.removeItem(atPath: root) }

    var token: String { json(send("GET", "/api/session")).body["token"]?.stringValue ?? "" }

    /// A request as nginx passes it; state-changing ones carry the session's token and the
    /// dashboard's Origin unless told otherwise.
    func send(
        _ method: String, _ uri: String, body: [UInt8] = [], token: String? = nil, origin: String? = DashboardFixture.origin,
        user: String? = nil, more: [String: String] = [:]
    ) -> HTTPResponse {
        var parameters = [
            "REQUEST_METHOD": method, "REQUEST_URI": uri, "HTTP_HOST": "127.0.0.1:8081", "REQUEST_SCHEME": "http",
            "CONTENT_LENGTH": String(body.count), "SCGI": "1",
        ]
        if method != "GET" {
            parameters["HTTP_X_QUIRE_TOKEN"] = token ?? self.token
            if let origin { parameters["HTTP_ORIGIN"] = origin }
        }
        if let user { parameters["QUIRE_USER"] = user }
        parameters.merge(more) { $1 }
        return service.handle(SCGIRequest(parameters: parameters, body: body))
    }

    func send(_ method: String, _ uri: String, json value: JSONValue, token: String? = nil, origin: String? = DashboardFixture.origin)
        -> HTTPResponse
    {
        send(method, uri, body: JSONWriter(pretty: false).bytes(value), token: token, origin: origin)
    }

    func json(_ response: HTTPResponse) -> (status: Int, body: JSONValue) {
        let parsed = try? SourceParser.parse(response.body, format: .json, file: "response")
        return (response.status.code, parsed?.json ?? .null)
    }

    func read(_ relativePath: String) -> [UInt8]? { FileManager.default.contents(atPath: site + "/" + relativePath).map(Array.init) }

    /// Every file under the site with its bytes: what "nothing changed on disk" compares.
    func snapshot() -> [String: [UInt8]] {
        var files: [String: [UInt8]] = [:]
        let enumerator = FileManager.default.enumerator(atPath: site)
        while let name = enumerator?.nextObject() as? String {
            var info = stat()
            guard lstat(site + "/" + name, &info) == 0, info.st_mode & S_IFMT == S_IFREG else {
                files[name] = Array("<\(info.st_mode & S_IFMT)>".utf8)
                continue
            }
            files[name] = read(name)
        }
        return files
    }
}
