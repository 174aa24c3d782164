import Foundation
import QuireCommandLine
import QuireCore
import QuireDashboard
import QuireModel

/// `quire-bench draft-checks`: the dashboard's draft check (`POST /api/sites/{site}/check`: the
/// draft read, validated, its translations merged and its markdown rendered for every locale,
/// answered as JSON) and its page list, asked of the service in this process as nginx would ask
/// it, on a generated site. Each check is a different page with a new hero title.
struct BenchDraftChecks {
    let site: SyntheticSite
    let pagesRoot: String
    let count: Int

    func run() throws -> JSONValue {
        if !FileManager.default.fileExists(atPath: "\(pagesRoot)/\(site.name)/site.yaml") { _ = try site.write(pagesRoot: pagesRoot) }
        let service = DashboardService(pagesRoot: pagesRoot, sites: { [site.name] })
        let token = Self.json(service.handle(request("GET", "/api/session")))["token"]?.stringValue ?? ""

        // The first check reads the site's scan and settings, kept until the next build.
        let (first, firstAnswer) = timed { service.handle(check(0, token: token)) }
        guard firstAnswer.status == .ok, Self.json(firstAnswer)["rendered"]?.objectValue?.isEmpty == false else {
            throw CommandFailure(.operational, "the draft check failed: \(String(decoding: firstAnswer.body, as: UTF8.self).prefix(300))")
        }
        var checks: [Double] = []
        for number in 1...count {
            let (milliseconds, answer) = timed { service.handle(check(number, token: token)) }
            // Each answer is the draft rendered: its hero carries the draft's own title.
            let hero = Self.json(answer)["rendered"]?[site.defaultLocale]?["page"]?["sections"]?.arrayValue?.first
            guard answer.status == .ok, hero?["title"]?.stringValue == "Draft \(number)" else {
                throw CommandFailure(.operational, "check \(number): \(answer.status.code), hero \(String(describing: hero).prefix(200))")
            }
            checks.append(milliseconds)
        }
        let (listFirst, list) = timed { service.handle(request("GET", "/api/sites/\(site.name)/pages")) }
        let (listAgain, _) = timed { service.handle(request("GET", "/api/sites/\(site.name)/pages")) }
        let listed = Self.json(list).arrayValue?.count ?? 0
        let statistics = BenchStatistics(checks)
        return .object(
            JSONObject([
                ("tool", "dashboard service, in process"), ("pages", .integer(site.pageCount)),
                ("locales", .integer(site.locales.count)), ("checks", .integer(checks.count)),
                ("first_check_ms", BenchFormat.number(first)), ("check_p50_ms", BenchFormat.number(statistics.percentile(50))),
                ("check_p90_ms", BenchFormat.number(statistics.percentile(90))),
                ("check_p99_ms", BenchFormat.number(statistics.percentile(99))), ("pages_listed", .integer(listed)),
                ("page_list_first_ms", BenchFormat.number(listFirst)), ("page_list_ms", BenchFormat.number(listAgain)),
            ]))
    }

    private func check(_ number: Int, token: String) -> SCGIRequest {
        let index = number * 7919 % site.pageCount
        let text = site.pageSource(index, heroTitle: "Draft \(number)")
        let body: JSONValue = ["id": .string(site.pageID(index)), "text": .string(text)]
        var made = request("POST", "/api/sites/\(site.name)/check", body: JSONWriter(pretty: false).bytes(body))
        made.parameters["HTTP_X_QUIRE_TOKEN"] = token
        made.parameters["HTTP_ORIGIN"] = "http://127.0.0.1:8081"
        return made
    }

    private func request(_ method: String, _ uri: String, body: [UInt8] = []) -> SCGIRequest {
        SCGIRequest(
            parameters: [
                "CONTENT_LENGTH": String(body.count), "SCGI": "1", "REQUEST_METHOD": method, "REQUEST_URI": uri,
                "HTTP_HOST": "127.0.0.1:8081", "REQUEST_SCHEME": "http",
            ], body: body)
    }

    private func timed<Result>(_ body: () -> Result) -> (Double, Result) {
        let started = BenchClock.now
        let result = body()
        return (BenchClock.milliseconds(from: started, to: BenchClock.now), result)
    }

    private static func json(_ response: HTTPResponse) -> JSONValue {
        (try? SourceParser.parse(response.body, format: .json, file: "answer"))?.json ?? .null
    }
}
