import Foundation
import QuireCore
import QuireModel

/// `quire-bench feed-saves`: a generated site whose every page is in one feed (`all`, newest
/// first), so at 10,000 pages each locale's feed has 10,000 entries; single saves of a page
/// (a new title: its card changes) through a real `quire watch`, and for each version a save
/// published, what it wrote of the feeds and the page index. Counted from the version folders,
/// not from what the builder meant to do: a file whose inode differs from the previous version's
/// was written by this publish (a carried file is a hard link of the previous one).
struct BenchFeedSaves {
    /// What one version wrote.
    struct Version {
        var feedFiles = 0
        /// The most feed files written in one locale.
        var feedFilesInOneLocale = 0
        var indexFiles = 0
        var indexBytes = 0
        /// `build.json`: its `index` stage (the page index and feeds made), and the build's
        /// time up to the publish (the record is made before it).
        var indexMilliseconds: Double?
        var beforePublishMilliseconds: Double?
    }

    static let feedName = "all"
    static let pageSize = 20

    let site: SyntheticSite
    let dist: String

    static func measure(_ generated: SyntheticSite, out: String, options: BenchOptions, log: (String) -> Void) throws -> JSONValue {
        var site = generated
        site.feed = (feedName, pageSize)
        let pagesRoot = "\(out)/pages-feed"
        var leftovers = BenchLeftovers()
        leftovers.moveAside(pagesRoot)
        leftovers.makeWay(forOutput: "\(out)/dist-feed")
        defer { leftovers.removeAll() }
        log("writing \(site.pageCount) pages x \(site.locales.count) locales with a feed of every page to \(pagesRoot)")
        try site.write(pagesRoot: pagesRoot)
        let bench = BenchFeedSaves(site: site, dist: "\(out)/dist-feed")
        let watcher = try BenchWatcher(
            site: site, pagesRoot: pagesRoot, distRoot: bench.dist, previews: options.previews, log: "\(out)/feed-watch.log")
        defer { _ = watcher.stop() }
        log("quire watch: first publish")
        try watcher.waitForFirstPublish(timeout: 900)
        log("\(options.saves) saves, \(Int(options.saveGaps[0] * 1000)) ms apart")
        var versions: [Version] = []
        var seen = watcher.newestVersionNumber()
        let latency = try watcher.measureSaves(count: options.saves, gap: options.saveGaps[0]) {
            let newest = watcher.newestVersionNumber()
            if newest > seen { versions += (seen + 1...newest).map(bench.inspect) }
            seen = newest
        }
        _ = watcher.stop()
        return bench.report(latency: latency, versions: versions)
    }

    private func versionFolder(_ number: Int) -> String {
        "\(dist)/\(site.name)/versions/\(VersionID(number))"
    }

    /// What version `number` wrote of the feeds and the page index.
    func inspect(_ number: Int) -> Version {
        let (now, before) = (versionFolder(number), versionFolder(number - 1))
        var version = Version()
        for locale in site.locales {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: "\(now)/\(locale)/feeds")) ?? []
            let written = names.filter { name in
                Self.identity("\(now)/\(locale)/feeds/\(name)")?.inode != Self.identity("\(before)/\(locale)/feeds/\(name)")?.inode
            }.count
            version.feedFiles += written
            version.feedFilesInOneLocale = max(version.feedFilesInOneLocale, written)
            // The index file, then its parts: index.1.json, index.2.json, ... up to the first missing.
            var part = 0
            while let index = Self.identity("\(now)/\(locale)/index\(part == 0 ? "" : ".\(part)").json") {
                if index.inode != Self.identity("\(before)/\(locale)/index\(part == 0 ? "" : ".\(part)").json")?.inode {
                    version.indexFiles += 1
                    version.indexBytes += index.size
                }
                part += 1
            }
        }
        let record = BenchWatcher.readFile("\(now)/build.json").flatMap { try? JSONSerialization.jsonObject(with: Data($0)) }
        let stages = (record as? [String: Any])?["stages_ms"] as? [String: Any]
        version.indexMilliseconds = (stages?["index"] as? NSNumber)?.doubleValue
        let beforePublish = (record as? [String: Any])?["seconds_before_publish"] as? NSNumber
        version.beforePublishMilliseconds = beforePublish.map { $0.doubleValue * 1000 }
        return version
    }

    private static func identity(_ path: String) -> (inode: UInt, size: Int)? {
        var status = stat()
        guard stat(path, &status) == 0 else { return nil }
        return (UInt(status.st_ino), Int(status.st_size))
    }

    /// Entries and parts of the feed in `locale` as `current/` serves it: the newest part is
    /// `all.json`; every part before it is full.
    func feedLength(locale: String) -> (entries: Int, parts: Int)? {
        let path = "\(dist)/\(site.name)/current/\(locale)/feeds/\(Self.feedName).json"
        guard let bytes = BenchWatcher.readFile(path), let object = try? JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any],
            let part = (object["part"] as? NSNumber)?.intValue, let sections = object["sections"] as? [Any]
        else { return nil }
        return ((part - 1) * Self.pageSize + sections.count, part)
    }

    private func report(latency: BenchWatcher.Latency, versions: [Version]) -> JSONValue {
        func figures(_ values: [Double]) -> JSONValue {
            let statistics = BenchStatistics(values)
            return [
                "p50": BenchFormat.number(statistics.percentile(50)), "p90": BenchFormat.number(statistics.percentile(90)),
                "max": BenchFormat.number(statistics.maximum),
            ]
        }
        let length = feedLength(locale: site.defaultLocale)
        return .object(
            JSONObject([
                ("tool", "quire watch"), ("pages", .integer(site.pageCount)), ("locales", .array(site.locales.map { .string($0) })),
                (
                    "feed",
                    [
                        "name": .string(Self.feedName), "page_size": .integer(Self.pageSize),
                        "entries": length.map { .integer($0.entries) } ?? .null, "parts": length.map { .integer($0.parts) } ?? .null,
                    ]
                ),
                ("latency", latency.json),
                ("versions_inspected", .integer(versions.count)),
                ("feed_files_written", figures(versions.map { Double($0.feedFiles) })),
                ("feed_files_written_in_one_locale", figures(versions.map { Double($0.feedFilesInOneLocale) })),
                ("index_files_written", figures(versions.map { Double($0.indexFiles) })),
                ("index_kib_written", figures(versions.map { Double($0.indexBytes) / 1024 })),
                ("index_stage_ms", figures(versions.compactMap(\.indexMilliseconds))),
                ("before_publish_ms", figures(versions.compactMap(\.beforePublishMilliseconds))),
            ]))
    }
}
