import Foundation
import QuireCore
import QuireModel
import Synchronization
import Testing

@testable import QuireDashboard

/// What the watcher tells the service: who caused a change set, and each build, which the
/// service pushes to every event stream with the saves it carried.
struct WatcherEventsTests {
    /// Saves recorded and placed side by side (two editors at once): each reads the clock under
    /// the ledger's lock, so no save is ever stamped after a later one looks at it (an unsigned
    /// age below zero stopped the process).
    @Test func savesRecordedSideBySideKeepTheirOrder() {
        let ledger = SaveLedger()
        let ids = Mutex<[String]>([])
        DispatchQueue.concurrentPerform(iterations: 8) { thread in
            for round in 0..<500 {
                let id = ledger.record(site: "site", path: "/site/p\(thread)-\(round).yaml", user: "u\(thread)")
                ledger.written(id)
                ids.withLock { $0.append(id) }
            }
        }
        let carried = ledger.covered(site: "site", paths: nil, started: DispatchTime.now().uptimeNanoseconds)
        #expect(carried.count == 4_000 && Set(carried.map(\.save.id)) == Set(ids.withLock { $0 }))
        #expect(carried.allSatisfy { $0.milliseconds >= 0 })
    }

    @Test func aBuildTellsTheStreamsWhichSavesItCarried() throws {
        let fixture = try DashboardFixture()
        let page = fixture.json(fixture.send("GET", "/api/sites/trex/pages/trex-store")).body
        let subscriber = try #require(fixture.service.events.subscribe())
        let saved = fixture.json(
            fixture.send(
                "PUT", "/api/sites/trex/pages/trex-store", json: ["base": page["base"]!, "text": "title: t\nsections: []\n"]))
        let path = fixture.site + "/trex-store.yaml"
        #expect(fixture.service.user(site: "trex", changed: [path]) == nil)

        var result = SiteBuildResult(site: "trex")
        result.outcome = .published(VersionID(43), isCurrent: true)
        result.pagesRebuilt = ["trex-store"]
        fixture.service.built(result, changed: [path])
        let events = try #require(subscriber.next(within: 1))
        let data = try #require(events.first?.split(separator: "\n").first { $0.hasPrefix("data: ") }?.dropFirst(6))
        let event = try SourceParser.parse(Array(data.utf8), format: .json, file: "event").json
        #expect(event["outcome"]?.stringValue == "published")
        #expect(event["version"]?.stringValue == "v000043")
        #expect(event["saves"]?.arrayValue?.first?["save_id"] == saved.body["save_id"])
        // A whole number of milliseconds is written without a fraction, and read back as an integer.
        let milliseconds = event["saves"]?.arrayValue?.first?["ms"].flatMap { value -> Double? in
            switch value {
            case .number(let ms): return ms
            case .integer(let ms): return Double(ms)
            default: return nil
            }
        }
        #expect((milliseconds ?? -1) >= 0)
        // A save is told once.
        fixture.service.built(result, changed: [path])
        #expect(
            try SourceParser.parse(
                Array((subscriber.next(within: 1)?.first ?? "").utf8.drop { $0 != UInt8(ascii: "{") }.prefix { $0 != 10 }), format: .json,
                file: "e"
            ).json["saves"] == [])
    }

    /// Two saves of a page in quick succession: the build of the first, which began before the
    /// second was made, does not claim it (it may have read the file before it changed); the
    /// build the second's write sets off does.
    @Test func aSaveMadeWhileABuildRanIsToldWithTheNextBuild() throws {
        let fixture = try DashboardFixture()
        let subscriber = try #require(fixture.service.events.subscribe())
        let path = fixture.site + "/trex-store.yaml"
        func save(_ title: String) throws -> JSONValue? {
            let page = fixture.json(fixture.send("GET", "/api/sites/trex/pages/trex-store")).body
            return fixture.json(
                fixture.send(
                    "PUT", "/api/sites/trex/pages/trex-store",
                    json: ["base": page["base"]!, "text": .string("title: \(title)\nsections: []\n")])
            ).body["save_id"]
        }
        func toldSaves(of result: SiteBuildResult) throws -> [JSONValue] {
            fixture.service.built(result, changed: [path])
            let data = try #require(
                subscriber.next(within: 1)?.first?.split(separator: "\n").first { $0.hasPrefix("data: ") }?.dropFirst(6))
            return try SourceParser.parse(Array(data.utf8), format: .json, file: "event").json["saves"]?.arrayValue ?? []
        }
        let first = try save("one")
        var building = SiteBuildResult(site: "trex")
        building.outcome = .published(VersionID(5), isCurrent: true)
        let second = try save("two")
        #expect(try toldSaves(of: building).map { $0["save_id"] } == [first])
        var next = SiteBuildResult(site: "trex")
        next.outcome = .published(VersionID(6), isCurrent: true)
        #expect(try toldSaves(of: next).map { $0["save_id"] } == [second])
    }

    @Test func aPublishToldWhenLiveIsNotToldAgain() throws {
        let fixture = try DashboardFixture()
        let subscriber = try #require(fixture.service.events.subscribe())
        var result = SiteBuildResult(site: "trex")
        result.outcome = .published(VersionID(7), isCurrent: true)
        fixture.service.published(result, changed: [])
        fixture.service.built(result, changed: [])
        #expect(subscriber.next(within: 1)?.count == 1)
        #expect(subscriber.next(within: 0.2)?.isEmpty == true)
        // The next build, not announced, is told after it.
        result.outcome = .unchanged(VersionID(7))
        fixture.service.built(result, changed: [])
        #expect(subscriber.next(within: 1)?.first?.contains("\"outcome\":\"unchanged\"") == true)
    }

    @Test func aHeldBurstsSavesGoOutWithThePublishThatCarriesThem() throws {
        let fixture = try DashboardFixture()
        let page = fixture.json(fixture.send("GET", "/api/sites/trex/pages/trex-store")).body
        let saved = fixture.json(
            fixture.send("PUT", "/api/sites/trex/pages/trex-store", json: ["base": page["base"]!, "text": "title: t\nsections: []\n"]))
        let subscriber = try #require(fixture.service.events.subscribe())
        var held = SiteBuildResult(site: "trex")
        held.isHeld = true
        fixture.service.built(held, changed: [fixture.site + "/trex-store.yaml"])
        var result = SiteBuildResult(site: "trex")
        result.outcome = .published(VersionID(9), isCurrent: true)
        fixture.service.published(result, changed: [fixture.site + "/other.yaml"])
        let events = (subscriber.next(within: 1) ?? []) + (subscriber.next(within: 1) ?? [])
        #expect(events.count == 2)
        #expect(events.last?.contains("\"save_id\":\"\(saved.body["save_id"]?.stringValue ?? "?")\"") == true)
    }

    @Test func theUserOfASaveIsTheUserOfItsPublish() throws {
        let fixture = try DashboardFixture()
        let page = fixture.json(fixture.send("GET", "/api/sites/trex/pages/trex-store")).body
        _ = fixture.service.handle(
            SCGIRequest(
                parameters: [
                    "REQUEST_METHOD": "PUT", "REQUEST_URI": "/api/sites/trex/pages/trex-store", "HTTP_HOST": "127.0.0.1:8081",
                    "HTTP_ORIGIN": DashboardFixture.origin, "HTTP_X_QUIRE_TOKEN": fixture.token, "QUIRE_USER": "alice",
                ], body: JSONWriter(pretty: false).bytes(["base": page["base"]!, "text": "title: t\nsections: []\n"])))
        let path = fixture.site + "/trex-store.yaml"
        #expect(fixture.service.user(site: "trex", changed: [path]) == "alice")
        #expect(fixture.service.user(site: "trex", changed: [fixture.site + "/other.yaml"]) == nil)

        // The builder writes that user into the publish's history line.
        let builder = SiteBuilder(site: "trex", pagesRoot: fixture.pages, distRoot: fixture.root + "/dist")
        // The builder tells who listens the moment the version is live, with its outcome.
        let told = Mutex<[PublishOutcome?]>([])
        builder.options.published = { early in told.withLock { $0.append(early.outcome) } }
        let result = builder.build(user: fixture.service.user(site: "trex", changed: [path]))
        guard case .published = result.outcome else {
            Issue.record("not published: \(result.diagnostics)")
            return
        }
        #expect(told.withLock { $0 } == [result.outcome])
        let history = try String(contentsOfFile: fixture.root + "/dist/trex/state/history.jsonl", encoding: .utf8)
        #expect(history.contains("\"user\":\"alice\""))
        // The next publish, with no dashboard user, is this process's user's again.
        try "title: u\nsections: []\n".write(toFile: path, atomically: true, encoding: .utf8)
        _ = builder.build(changed: [path])
        let last =
            try String(contentsOfFile: fixture.root + "/dist/trex/state/history.jsonl", encoding: .utf8)
            .split(separator: "\n").last ?? ""
        #expect(!last.contains("\"user\":\"alice\""))
    }

    @Test func aRefusedSaveLeavesNoUserBehind() throws {
        let fixture = try DashboardFixture()
        let stale = JSONWriter(pretty: false).bytes(["base": .string(String(repeating: "0", count: 64)), "text": "title: t\n"])
        let response = fixture.service.handle(
            SCGIRequest(
                parameters: [
                    "REQUEST_METHOD": "PUT", "REQUEST_URI": "/api/sites/trex/pages/trex-store", "HTTP_HOST": "127.0.0.1:8081",
                    "HTTP_ORIGIN": DashboardFixture.origin, "HTTP_X_QUIRE_TOKEN": fixture.token, "QUIRE_USER": "mallory",
                ], body: stale))
        #expect(response.status.code == 409)
        #expect(fixture.service.user(site: "trex", changed: [fixture.site + "/trex-store.yaml"]) == nil)
    }

    @Test func theSocketIsItsOwnersAndAnswersGarbageWith400() throws {
        let fixture = try DashboardFixture()
        let path = fixture.root + "/nginx/dashboard/scgi.sock"
        try FileManager.default.createDirectory(atPath: fixture.root + "/nginx", withIntermediateDirectories: true)
        try fixture.service.start(SocketPlacement(path: path))
        defer { fixture.service.stop() }
        var info = stat()
        #expect(lstat(path, &info) == 0 && info.st_mode & 0o777 == 0o600 && info.st_mode & S_IFMT == S_IFSOCK)
        #expect(lstat(fixture.root + "/nginx/dashboard", &info) == 0 && info.st_mode & 0o777 == 0o700)
        #expect(Self.exchange(path, Array("garbage".utf8)).hasPrefix("Status: 400"))
        let session = Self.exchange(
            path,
            SCGIParserTests.request([("CONTENT_LENGTH", "0"), ("SCGI", "1"), ("REQUEST_METHOD", "GET"), ("REQUEST_URI", "/api/session")]))
        #expect(session.hasPrefix("Status: 200 OK\r\n"))
        #expect(session.contains("\"token\""))
    }

    /// Sends `bytes` on a new connection to the socket and reads the answer to its end.
    static func exchange(_ path: String, _ bytes: [UInt8]) -> String {
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(descriptor) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: Array(path.utf8)) }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard connected == 0 else { return "connect failed" }
        _ = bytes.withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, 0) }
        shutdown(descriptor, Int32(SHUT_WR))
        var answer: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { break }
            answer += buffer[0..<count]
        }
        return String(decoding: answer, as: UTF8.self)
    }
}
