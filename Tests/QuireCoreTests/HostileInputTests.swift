import Foundation
import Glibc
import QuireModel
import Testing

@testable import QuireCore

/// The bad-input catalogue (issue 9): each folder under `Fixtures/hostile/` is one case. A good
/// base site (`_base/site`) is built and published as v1; the case's `site/` files are dropped
/// over it (and, for what git cannot hold, `HostileGenerator` makes the input at test time);
/// the site is built again with the same `SiteBuilder` the CLI runs. The diagnostics must equal
/// `expected.txt` line by line (as `quire check` prints them, from a folder holding `pages/`),
/// `current` must still verify, the good pages' published files must be unchanged, and what is
/// published must be safe (regular files 0644, folders 0755 under any umask, nothing from
/// outside `pages/<site>/`, no script in any HTML).
///
/// `QUIRE_RECORD_HOSTILE=1 swift test --filter HostileInputTests` rewrites every `expected.txt`;
/// review the diff before committing it.
@Suite(.serialized)
struct HostileInputTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/hostile").path
    static let site = "hostile"

    static var catalogue: [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: fixtures)) ?? []
        return names.filter { !$0.hasPrefix("_") && !$0.hasPrefix(".") }.sorted()
    }

    /// Cases whose input only a privileged process can make: each has a test of its own that
    /// says so when it is skipped.
    static let privilegedCases = ["device-file"]
    static var cases: [String] { catalogue.filter { !privilegedCases.contains($0) } }

    @Test func catalogueHasAtLeastSixtyCases() {
        #expect(Self.catalogue.count >= 60)
        #expect(Self.privilegedCases.allSatisfy(Self.catalogue.contains))
    }

    @Test(arguments: cases)
    func hostileInput(_ name: String) throws {
        try check(name)
    }

    @Test(.enabled(if: HostileGenerator.canMakeDevices, "a device file needs mknod (CAP_MKNOD)"))
    func deviceFile() throws {
        try check("device-file")
    }

    private func check(_ name: String) throws {
        let previousMask = umask(0o077)  // published modes must not depend on it
        defer { umask(previousMask) }
        let work = try HostileWorkspace()
        let caseFolder = "\(Self.fixtures)/\(name)"

        // v1 from the good base site.
        let first = work.builder().build()
        #expect(first.diagnostics.filter(\.isError).isEmpty, "base site: \(first.diagnostics)")
        guard case .published = first.outcome else {
            Issue.record("the base site did not publish: \(String(describing: first.outcome)) \(first.operationalError ?? "")")
            return
        }
        let good = try work.currentFiles()
        #expect(
            good["en/home.json"] != nil && good["fr/guides/safety.json"] != nil && good["assets/banner.jpg"] != nil,
            "the good output was not found under current/: \(good.keys.sorted())")

        // The hostile input.
        if FileManager.default.fileExists(atPath: "\(caseFolder)/site") {
            try work.overlay("\(caseFolder)/site")
        }
        try HostileGenerator.prepare(name, in: work)

        let result = work.builder().build()
        let actual = result.diagnostics.map { work.display($0.description) }
        #expect(result.operationalError == nil, "operational error: \(result.operationalError ?? "")")

        let expectedFile =
            getuid() != 0 && FileManager.default.fileExists(atPath: "\(caseFolder)/expected-nonroot.txt")
            ? "\(caseFolder)/expected-nonroot.txt" : "\(caseFolder)/expected.txt"
        if ProcessInfo.processInfo.environment["QUIRE_RECORD_HOSTILE"] == "1" {
            try (actual.map { $0 + "\n" }.joined()).write(toFile: expectedFile, atomically: true, encoding: .utf8)
        }
        let expectedText = (try? String(contentsOfFile: expectedFile, encoding: .utf8)) ?? "<missing expected.txt>"
        let expected = expectedText.split(separator: "\n", omittingEmptySubsequences: true).map(String.init)
        #expect(actual == expected)
        #expect(result.diagnostics.hasErrors == expected.contains { $0.contains(": error: ") })

        // The last good output survives: current verifies and the good pages did not change.
        let store = try SiteStore(dist: work.dist, site: Self.site)
        #expect(try store.operations.verify() == [], "current no longer verifies")
        let now = try work.currentFiles()
        // The page index lists every page, the hostile ones that built included.
        for (path, bytes) in good where !IncrementalBuildTests.isPageIndex(path) {
            #expect(now[path] == bytes, "\(path) changed or vanished")
        }

        try PublishedTreeSafety.check(dist: work.dist, site: Self.site)
    }

    /// A file deleted between the scan and the read: the race cannot be timed inside `build()`,
    /// so the two halves run here by hand, through the same scanner and reader.
    @Test func fileVanishingBetweenScanAndRead() throws {
        let work = try HostileWorkspace()
        try Data("title: News\nsections: []\n".utf8).write(to: URL(fileURLWithPath: "\(work.siteRoot)/news.yaml"))
        let inventory = SiteInventory.scan(root: work.siteRoot, site: Self.site, displayRoot: "pages/\(Self.site)")
        let source = try #require(inventory.pages["news"]?.first)
        try FileManager.default.removeItem(atPath: source.path)
        #expect(throws: SourceReadError.vanished) { try SourceFileReader().read(source.path) }
        // And the builder, which scans again, simply no longer sees it.
        let result = work.builder().build()
        #expect(!result.diagnostics.hasErrors)
    }
}

/// A temporary `pages/` with the base site (and a second site, `other`, whose content must never
/// leak into the first) and an empty `dist/`.
final class HostileWorkspace {
    let root: String
    var pages: String { "\(root)/pages" }
    var dist: String { "\(root)/dist" }
    var siteRoot: String { "\(pages)/\(HostileInputTests.site)" }

    init() throws {
        var template = Array((NSTemporaryDirectory() + "quire-hostile-XXXXXX").utf8CString)
        guard let made = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
            throw StoreError("mkdtemp failed")
        }
        root = String(cString: made)
        chmod(root, 0o755)
        let manager = FileManager.default
        try manager.createDirectory(atPath: pages, withIntermediateDirectories: true)
        try manager.copyItem(atPath: "\(HostileInputTests.fixtures)/_base/site", toPath: siteRoot)
        try manager.copyItem(atPath: "\(HostileInputTests.fixtures)/_base/other", toPath: "\(pages)/other")
    }

    deinit {
        // Undo what a case may have done that blocks removal (chmod 000 folders).
        for path in (try? FileManager.default.subpathsOfDirectory(atPath: root)) ?? [] { chmod("\(root)/\(path)", 0o755) }
        try? FileSystem.removeTree(root)
    }

    func builder() -> SiteBuilder {
        var options = BuildOptions()
        options.lockTimeout = 5
        return SiteBuilder(site: HostileInputTests.site, pagesRoot: pages, distRoot: dist, options: options)
    }

    /// Diagnostics as `quire check` prints them when run next to `pages/`.
    func display(_ line: String) -> String {
        line.replacingOccurrences(of: "\(pages)/", with: "pages/")
    }

    /// Copies a case's files over the site, replacing what is there.
    func overlay(_ folder: String) throws {
        let manager = FileManager.default
        for relative in try manager.subpathsOfDirectory(atPath: folder).sorted() {
            let source = "\(folder)/\(relative)"
            let target = "\(siteRoot)/\(relative)"
            var isDirectory: ObjCBool = false
            _ = manager.fileExists(atPath: source, isDirectory: &isDirectory)
            if isDirectory.boolValue {
                try manager.createDirectory(atPath: target, withIntermediateDirectories: true)
            } else {
                if manager.fileExists(atPath: target) { try manager.removeItem(atPath: target) }
                try manager.copyItem(atPath: source, toPath: target)
            }
        }
    }

    /// Every page and asset file `current` serves, following shared-folder links, by path.
    func currentFiles() throws -> [String: Data] {
        var files: [String: Data] = [:]
        try Self.collect("\(dist)/\(HostileInputTests.site)/current", prefix: "", into: &files, depth: 0)
        return files.filter { $0.key.hasPrefix("en/") || $0.key.hasPrefix("fr/") || $0.key.hasPrefix("assets/") }
    }

    private static func collect(_ folder: String, prefix: String, into files: inout [String: Data], depth: Int) throws {
        guard depth < 16 else { return }
        for name in try FileManager.default.contentsOfDirectory(atPath: folder) {
            let path = "\(folder)/\(name)"
            var info = stat()
            guard stat(path, &info) == 0 else { continue }
            if info.st_mode & S_IFMT == S_IFDIR {
                if prefix.isEmpty && name == "preview" { continue }
                try collect(path, prefix: "\(prefix)\(name)/", into: &files, depth: depth + 1)
            } else if info.st_mode & S_IFMT == S_IFREG {
                files[prefix + name] = try Data(contentsOf: URL(fileURLWithPath: path))
            }
        }
    }
}

/// What every published tree must be, whatever the input.
enum PublishedTreeSafety {
    static let forbidden = ["root:x:0:0", "OTHER-SITE-SECRET"]
    static let forbiddenInHTML = [
        "<script>alert", "<img src=x", "<iframe", "href=\"javascript:", "src=\"javascript:", "href=\"vbscript:", "<div onclick",
    ]

    static func check(dist: String, site: String) throws {
        let siteDist = "\(dist)/\(site)"
        let manager = FileManager.default
        let realDist = URL(fileURLWithPath: dist).resolvingSymlinksInPath().path
        for relative in try manager.subpathsOfDirectory(atPath: siteDist) {
            let path = "\(siteDist)/\(relative)"
            var info = stat()
            guard lstat(path, &info) == 0 else { continue }
            let mode = info.st_mode & 0o7777
            let isPublic = relative.hasPrefix("versions/") || relative.hasPrefix("trees/") || relative.hasPrefix("objects/")
            switch info.st_mode & S_IFMT {
            case S_IFREG:
                if isPublic { #expect(mode == 0o644, "\(relative) has mode \(String(mode, radix: 8))") }
                let data = try Data(contentsOf: URL(fileURLWithPath: path))
                let text = String(decoding: data, as: UTF8.self)
                for needle in forbidden { #expect(!text.contains(needle), "\(relative) holds '\(needle)' from outside the site") }
                if relative.hasSuffix(".html") {
                    for needle in forbiddenInHTML { #expect(!text.contains(needle), "\(relative) holds '\(needle)'") }
                }
            case S_IFDIR:
                if isPublic { #expect(mode == 0o755, "\(relative)/ has mode \(String(mode, radix: 8))") }
            case S_IFLNK:
                // Shared folders and `current`: links that stay inside dist/.
                let resolved = URL(fileURLWithPath: path).resolvingSymlinksInPath().path
                #expect(resolved.hasPrefix(realDist + "/"), "\(relative) points outside dist/: \(resolved)")
            default:
                Issue.record("\(relative) is not a regular file, folder or link")
            }
        }
    }
}
