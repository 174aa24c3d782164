import Foundation
import QuireModel

@testable import QuireCore

/// The sites under `Fixtures/sites6/`, built into a temporary `dist/` at a fixed time.
struct FixtureSiteBuild {
    static let pagesRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("Fixtures/sites6").path
    static let before2030 = ScheduleDate.parse("2029-01-01T00:00:00Z")!

    let dist = TemporaryDist()
    let site: String
    let builder: SiteBuilder

    init(_ site: String, now: Date = FixtureSiteBuild.before2030) {
        self.site = site
        var options = BuildOptions()
        options.lockTimeout = 5
        options.now = { now }
        builder = SiteBuilder(site: site, pagesRoot: Self.pagesRoot, distRoot: dist.path, options: options)
    }

    func build(at now: Date? = nil) -> SiteBuildResult {
        if let now { builder.options.now = { now } }
        return builder.build()
    }

    /// A published file of `current/`, as text.
    func text(_ path: String) -> String? { readText("\(dist.path)/\(site)/current/\(path)") }

    func json(_ path: String) -> JSONValue? {
        guard let text = text(path) else { return nil }
        return try? SourceParser.parse(Array(text.utf8), format: .json, file: path).json
    }

    /// Every file a client without `audience` can fetch, or with it: paths under `current/`.
    func publishedPaths() -> [String] {
        Self.files(under: "\(dist.path)/\(site)/current")
    }

    /// Every file under `folder`, relative to it and sorted, following the symbolic links into
    /// shared trees as a web server does (FileManager's enumerators do not follow them).
    static func files(under folder: String) -> [String] {
        var paths: [String] = []
        func walk(_ relative: String) {
            let current = relative.isEmpty ? folder : "\(folder)/\(relative)"
            for name in (try? FileManager.default.contentsOfDirectory(atPath: current)) ?? [] {
                let path = relative.isEmpty ? name : "\(relative)/\(name)"
                var isDirectory: ObjCBool = false
                guard FileManager.default.fileExists(atPath: "\(current)/\(name)", isDirectory: &isDirectory) else { continue }
                if isDirectory.boolValue { walk(path) } else { paths.append(path) }
            }
        }
        walk("")
        return paths.sorted()
    }
}

extension JSONValue {
    /// The `id`s of a list of sections.
    var sectionIDs: [String] { arrayValue?.compactMap { $0["id"]?.stringValue } ?? [] }
}
