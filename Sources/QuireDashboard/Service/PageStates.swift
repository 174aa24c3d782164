import Foundation
import QuireCore
import QuireModel

/// What the page list shows of each page besides its source: its diagnostics in the watcher's
/// last build of its site, and the version it last changed in (since the service started), kept
/// from each build result, so listing 10,000 pages reads no build. Titles and schedules come
/// from the sources, parsed once per change of a file's size or time (`SourceSummaries`).
final class PageStates: @unchecked Sendable {
    struct Counts {
        var errors = 0
        var warnings = 0
    }

    private let lock = NSLock()
    /// Site -> page id -> its source's diagnostics in the last build that looked at it.
    private var counts: [String: [String: Counts]] = [:]
    /// Site -> page id -> the version it last changed in.
    private var versions: [String: [String: String]] = [:]
    /// Site -> whether the last build published or kept the site, its current version.
    private var current: [String: String] = [:]

    func record(_ result: SiteBuildResult) {
        guard !result.isHeld else { return }
        var found: [String: Counts] = [:]
        for diagnostic in result.diagnostics {
            guard let pageID = result.pageSources[diagnostic.file] else { continue }
            if diagnostic.isError { found[pageID, default: Counts()].errors += 1 }
            if diagnostic.severity == .warning { found[pageID, default: Counts()].warnings += 1 }
        }
        let examined = Set(result.pageSources.values)
        lock.withLock {
            var site = counts[result.site] ?? [:]
            for pageID in examined { site[pageID] = found[pageID] }
            counts[result.site] = site
            if case .published(let version, _) = result.outcome {
                for pageID in result.pagesRebuilt + result.pagesAdded { versions[result.site, default: [:]][pageID] = version.description }
            }
            switch result.outcome {
            case .published(let version, _), .unchanged(let version): current[result.site] = version.description
            case nil: break
            }
        }
    }

    func counts(site: String) -> [String: Counts] { lock.withLock { counts[site] ?? [:] } }
    func versions(site: String) -> [String: String] { lock.withLock { versions[site] ?? [:] } }
    func currentVersion(site: String) -> String? { lock.withLock { current[site] } }
}

/// What the page list needs of a source: its title and whether it is a draft or scheduled,
/// parsed once per (path, size, modification time).
final class SourceSummaries: @unchecked Sendable {
    struct Summary: Sendable {
        var title: String?
        var draft = false
        var publishAt: Date?
        var expiresAt: Date?
        var parses = true
    }

    private let lock = NSLock()
    private var cache: [String: (stamp: [Int], summary: Summary)] = [:]

    /// Summaries of `paths` (absolute), parsing on every core those not cached.
    func summaries(_ paths: [String]) -> [Summary] {
        let stamps = paths.map(Self.stamp)
        var results = [Summary?](repeating: nil, count: paths.count)
        var missing: [Int] = []
        lock.withLock {
            for (index, path) in paths.enumerated() {
                if let cached = cache[path], cached.stamp == stamps[index] {
                    results[index] = cached.summary
                } else {
                    missing.append(index)
                }
            }
        }
        let wanted = missing.map { paths[$0] }
        let parsed = Self.parallelMap(wanted, Self.summarize)
        lock.withLock {
            for (slot, index) in missing.enumerated() {
                results[index] = parsed[slot]
                cache[paths[index]] = (stamps[index], parsed[slot])
            }
        }
        return results.map { $0 ?? Summary(parses: false) }
    }

    /// `transform` of each element, on every core, in order.
    private static func parallelMap(_ elements: [String], _ transform: @escaping @Sendable (String) -> Summary) -> [Summary] {
        final class Slots: @unchecked Sendable {
            let lock = NSLock()
            var values: [Summary?]
            init(_ count: Int) { values = Array(repeating: nil, count: count) }
        }
        let slots = Slots(elements.count)
        DispatchQueue.concurrentPerform(iterations: elements.count) { index in
            let value = transform(elements[index])
            slots.lock.withLock { slots.values[index] = value }
        }
        return slots.values.map { $0 ?? Summary(parses: false) }
    }

    private static func stamp(_ path: String) -> [Int] {
        var info = stat()
        guard lstat(path, &info) == 0 else { return [] }
        return [Int(info.st_size), info.st_mtim.tv_sec, info.st_mtim.tv_nsec, Int(info.st_ino)]
    }

    private static func summarize(_ path: String) -> Summary {
        let format: SourceFormat = path.hasSuffix(".json") ? .json : .yaml
        guard let bytes = try? SourceFileReader().read(path), let root = try? SourceParser.parse(bytes, format: format, file: path) else {
            return Summary(parses: false)
        }
        var summary = Summary()
        summary.title = root["title"]?.string
        if case .bool(let draft)? = root["draft"]?.value { summary.draft = draft }
        summary.publishAt = root["publish_at"]?.string.flatMap(ScheduleDate.parse)
        summary.expiresAt = root["expires_at"]?.string.flatMap(ScheduleDate.parse)
        return summary
    }
}
