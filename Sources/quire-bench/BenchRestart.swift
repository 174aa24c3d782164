import Foundation
import QuireModel

/// `quire-bench watch-restart`: what a restarted `quire watch` costs on a site already published.
/// A cold `quire build` publishes the site; a watcher starts on it, makes `--history` saves a
/// second apart (a site in use has versions to keep: retention then removes some from the first
/// save after the restart) and is stopped (SIGTERM). Then
/// twice: one page is edited while no watcher runs and a watcher starts again on the same dist/,
/// first with the file the stopped watcher left (`state/watch-cache`), then without it (as
/// before there was one). Measured each time: the start until "watching", until the edit made
/// meanwhile is read back published, and the saves made from the moment "watching" is printed (no
/// wait for an idle watcher: "watching" must mean ready).
struct BenchRestart {
    struct Restart {
        var withCache: Bool
        var watchingSeconds: Double = 0
        var editLiveSeconds: Double = 0
        var saves = BenchWatcher.Latency()
    }

    var coldBuildSeconds: Double = 0
    var historySaves = 0
    var restarts: [Restart] = []

    static func measure(_ site: SyntheticSite, out: String, options: BenchOptions, progress: (String) -> Void) throws -> BenchRestart {
        var run = BenchRestart()
        let (pages, dist) = ("\(out)/pages", "\(out)/dist-restart")
        var leftovers = BenchLeftovers()
        leftovers.makeWay(forOutput: dist)
        defer { leftovers.removeAll() }
        progress("cold quire build of \(site.pageCount) pages")
        var arguments = ["build", "--pages", pages, "--dist", dist]
        if !options.previews { arguments.append("--no-preview") }
        let cold = try BenchProcess(BenchProcess.quireExecutable, arguments, stderrLog: "\(out)/restart-build.log").wait()
        guard cold.status == 0 else { throw BenchError("quire build exited \(cold.status): see \(out)/restart-build.log") }
        run.coldBuildSeconds = cold.wallSeconds
        progress("quire watch started on it, then stopped")
        let first = try BenchWatcher(site: site, pagesRoot: pages, distRoot: dist, previews: options.previews, log: "\(out)/restart-0.log")
        _ = try waitForWatching(first, log: "\(out)/restart-0.log")
        if options.history > 0 { _ = try first.measureSaves(count: options.history, gap: 1) }
        run.historySaves = options.history
        _ = first.process.waitUntilIdle()
        _ = first.stop()
        // With the cache first: the restart without it is not the one that starts on the disk
        // writes the other's saves left.
        for withCache in [true, false] {
            if !withCache { unlink("\(dist)/\(site.name)/state/watch-cache") }
            sync()
            progress("quire watch restarted \(withCache ? "with" : "without") the stopped one's cache, one page edited meanwhile")
            run.restarts.append(
                try restart(
                    site, pages: pages, dist: dist, withCache: withCache, log: "\(out)/restart-\(run.restarts.count + 1).log",
                    options: options))
        }
        return run
    }

    private static func restart(
        _ site: SyntheticSite, pages: String, dist: String, withCache: Bool, log: String, options: BenchOptions
    ) throws -> Restart {
        var restart = Restart(withCache: withCache)
        let page = site.pageCount / 2
        let token = "Restart \(getpid())t\(BenchClock.now % 1_000_000_007)"
        _ = try BenchWatcher.saveAtomically(site.sourcePath(pagesRoot: pages, page: page), site.pageSource(page, heroTitle: token))
        let watcher = try BenchWatcher(site: site, pagesRoot: pages, distRoot: dist, previews: options.previews, log: log)
        defer { _ = watcher.stop() }
        let started = watcher.process.started
        let target = site.publishedPath(distRoot: dist, page: page)
        var live: UInt64?
        let watching = try waitForWatching(watcher, log: log) {
            if live == nil, let bytes = BenchWatcher.readFile(target), BenchWatcher.contains(bytes, Array(token.utf8)) {
                live = BenchClock.now
            }
        }
        restart.watchingSeconds = Double(watching - started) / 1e9
        // The edit is published by the first build, before "watching".
        guard let live else { throw BenchError("quire watch said \"watching\" before the edit was live: see \(log)") }
        restart.editLiveSeconds = Double(live - started) / 1e9
        restart.saves = try watcher.measureSaves(count: options.saves, gap: options.saveGaps[0])
        return restart
    }

    /// When the watcher printed "watching"; `each` runs between looks.
    private static func waitForWatching(_ watcher: BenchWatcher, log: String, each: () -> Void = {}) throws -> UInt64 {
        let deadline = watcher.process.started + 900_000_000_000
        while BenchClock.now < deadline {
            each()
            if let line = watcher.process.stderrLines.first(where: { $0.text.hasPrefix("quire: watching") }) {
                each()
                return line.nanoseconds
            }
            if watcher.process.stderrLines.contains(where: { $0.text.hasPrefix("quire: error") }) { break }
            usleep(500)
        }
        throw BenchError("quire watch did not start watching: see \(log)")
    }

    var json: JSONValue {
        let percent = { (seconds: Double) in BenchFormat.number((seconds / max(coldBuildSeconds, 1e-9) * 1000).rounded() / 10) }
        return [
            "tool": "quire watch, restarted", "cold_build_s": BenchFormat.number(coldBuildSeconds),
            "history_saves": .integer(historySaves),
            "restarts": .array(
                restarts.map { restart in
                    [
                        "with_cache": .bool(restart.withCache), "watching_s": BenchFormat.number(restart.watchingSeconds),
                        "watching_percent_of_cold": percent(restart.watchingSeconds),
                        "edit_live_s": BenchFormat.number(restart.editLiveSeconds),
                        "edit_live_percent_of_cold": percent(restart.editLiveSeconds), "saves_after_watching": restart.saves.json,
                    ]
                }),
        ]
    }
}
