import Foundation
import QuireModel
import QuireTestSupport
import Testing

@testable import QuireCore

/// `fixtures/` at the repository root: pages as Quire publishes them, for app teams' decode
/// tests (and QuireModelTests). Built from the sample sites and `Fixtures/sites6/acme`; run with
/// `QUIRE_RECORD_FIXTURES=1` to write them again after a deliberate output change.
@Suite struct PublishedFixturesTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path
    static let sources: [(pagesRoot: String, site: String)] = [
        ("\(repository)/pages", "trex"),
        ("\(repository)/pages", "springfield-pd"),
        (FixtureSiteBuild.pagesRoot, "acme"),
    ]

    /// 2026-12-01T00:00:00Z.
    static let buildTime = "1796083200"
    static let recordCommand = "QUIRE_RECORD_FIXTURES=1 swift test --filter PublishedFixturesTests"

    @Test func fixturesMatchWhatQuirePublishes() throws {
        let record = ProcessInfo.processInfo.environment["QUIRE_RECORD_FIXTURES"] == "1"
        for source in Self.sources {
            // Through the built command line, as a deployment publishes (PO files are read by a
            // child process of the `quire` binary).
            let dist = TemporaryDist()
            let quire = try QuireBinary.path()
            let process = Process()
            process.executableURL = URL(fileURLWithPath: quire)
            process.arguments = ["build", "--pages", source.pagesRoot, "--dist", dist.path, "--site", source.site]
            // One build time, so the page index's `published_at` and the schedules are the same every run.
            process.environment = ProcessInfo.processInfo.environment.merging(["SOURCE_DATE_EPOCH": Self.buildTime]) { $1 }
            process.standardError = FileHandle.nullDevice
            process.standardOutput = FileHandle.nullDevice
            try process.run()
            process.waitUntilExit()
            #expect(process.terminationStatus == 0, "quire build --site \(source.site) failed")
            let store = try SiteStore(dist: dist.path, site: source.site)
            let newest = try #require(try store.reader.newestVersion())
            // Pages, feeds and the page index: what apps fetch.
            let pages = try store.reader.files(of: newest).filter { path, file in
                file.metadata?["page_id"] != nil || file.metadata?["feed"] != nil || IncrementalBuildTests.isPageIndex(path)
            }
            // A fixture of a page Quire no longer publishes would tell app teams it still exists.
            let folder = "\(Self.repository)/fixtures/\(source.site)"
            let recorded = (FileManager.default.enumerator(atPath: folder)?.allObjects as? [String] ?? []).filter { $0.hasSuffix(".json") }
            for path in recorded where pages[path] == nil {
                if record { try FileManager.default.removeItem(atPath: "\(folder)/\(path)") }
                #expect(record, "fixtures/\(source.site)/\(path) is no longer published: run \(Self.recordCommand)")
            }
            for (path, file) in pages {
                let published = try #require(readText("\(dist.path)/\(source.site)/current/\(path)"))
                let fixture = "\(Self.repository)/fixtures/\(source.site)/\(path)"
                if record {
                    try FileManager.default.createDirectory(
                        atPath: (fixture as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
                    try published.write(toFile: fixture, atomically: true, encoding: .utf8)
                } else {
                    #expect(
                        readText(fixture) == published,
                        "fixtures/\(source.site)/\(path) is stale: run QUIRE_RECORD_FIXTURES=1 swift test --filter PublishedFixturesTests")
                }
            }
        }
    }
}
