import Foundation
import QuireCore
import QuireModel

/// A temporary `pages/` + `dist/` pair built from fixture files, run through the same
/// `SiteBuilder` the CLI uses. Removed when the test ends.
final class SiteFixture {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures")

    let root: String
    let site: String
    var pages: String { "\(root)/pages" }
    var dist: String { "\(root)/dist" }
    var siteFolder: String { "\(pages)/\(site)" }

    init(site: String = "site", from fixture: String? = "validation/site") throws {
        root = NSTemporaryDirectory() + "quire-test-" + UUID().uuidString
        self.site = site
        try FileManager.default.createDirectory(atPath: "\(root)/pages", withIntermediateDirectories: true)
        if let fixture {
            try FileManager.default.copyItem(atPath: Self.fixtures.appendingPathComponent(fixture).path, toPath: siteFolder)
        } else {
            try FileManager.default.createDirectory(atPath: siteFolder, withIntermediateDirectories: true)
        }
    }

    deinit { try? FileManager.default.removeItem(atPath: root) }

    /// Copies a fixture file into the site as `relativePath`.
    func add(fixture: String, as relativePath: String) throws {
        let target = "\(siteFolder)/\(relativePath)"
        try FileManager.default.createDirectory(atPath: (target as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try? FileManager.default.removeItem(atPath: target)
        try FileManager.default.copyItem(atPath: Self.fixtures.appendingPathComponent(fixture).path, toPath: target)
    }

    func write(_ text: String, to relativePath: String) throws {
        let target = "\(siteFolder)/\(relativePath)"
        try FileManager.default.createDirectory(atPath: (target as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try text.write(toFile: target, atomically: true, encoding: .utf8)
    }

    func write(bytes: [UInt8], to relativePath: String) throws {
        let target = "\(siteFolder)/\(relativePath)"
        try FileManager.default.createDirectory(atPath: (target as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try Data(bytes).write(to: URL(fileURLWithPath: target), options: .atomic)
    }

    /// The first bytes of a JPEG and of a PNG file, then `text`: what an asset must begin with to be published.
    static func jpeg(_ text: String) -> [UInt8] { [0xFF, 0xD8, 0xFF, 0xE0] + Array(text.utf8) }
    static func png(_ text: String) -> [UInt8] { [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + Array(text.utf8) }

    func remove(_ relativePath: String) throws { try FileManager.default.removeItem(atPath: "\(siteFolder)/\(relativePath)") }

    func build(publish: Bool = true) -> SiteBuildResult {
        var options = BuildOptions()
        options.publish = publish
        return SiteBuilder(site: site, pagesRoot: pages, distRoot: dist, options: options).build()
    }

    /// Diagnostics as printed, with the temporary folder cut from paths (`site/x.yaml:3:5: ...`).
    func lines(_ result: SiteBuildResult) -> [String] {
        result.diagnostics.map { $0.description.replacingOccurrences(of: "\(pages)/", with: "") }
    }

    func published(_ path: String) throws -> String {
        try String(contentsOfFile: "\(dist)/\(site)/current/\(path)", encoding: .utf8)
    }

    func publishedJSON(_ path: String) throws -> Any {
        try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: "\(dist)/\(site)/current/\(path)")))
    }

    var versions: [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: "\(dist)/\(site)/versions")) ?? []).sorted()
    }

    var current: String? { try? FileManager.default.destinationOfSymbolicLink(atPath: "\(dist)/\(site)/current") }
}

/// Golden files: compared line by line; `QUIRE_RECORD_GOLDEN=1` writes them instead.
enum Golden {
    static var recording: Bool { ProcessInfo.processInfo.environment["QUIRE_RECORD_GOLDEN"] == "1" }

    /// Nil when `actual` matches the golden file (or was recorded); otherwise what differs.
    static func compare(_ actual: String, with relativePath: String) -> String? {
        let url = SiteFixture.fixtures.appendingPathComponent(relativePath)
        if recording {
            try? FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try? actual.write(to: url, atomically: true, encoding: .utf8)
            return nil
        }
        guard let expected = try? String(contentsOf: url, encoding: .utf8) else {
            return "no golden file \(relativePath): run with QUIRE_RECORD_GOLDEN=1 and review it"
        }
        if expected == actual { return nil }
        let expectedLines = expected.components(separatedBy: "\n")
        let actualLines = actual.components(separatedBy: "\n")
        for index in 0..<max(expectedLines.count, actualLines.count) {
            let want = index < expectedLines.count ? expectedLines[index] : "<end>"
            let got = index < actualLines.count ? actualLines[index] : "<end>"
            if want != got { return "\(relativePath):\(index + 1): expected\n  \(want)\nfound\n  \(got)" }
        }
        return "\(relativePath) differs"
    }
}
