import Foundation
import QuireModel

/// `quire-bench watch-restart`: what a restarted `quire watch` costs on a site already published.
/// A cold `quire build` publishes the site; one page is edited while no watcher runs; a watcher
/// starts on the same dist/. Measured: the cold build, the start until "watching", until the edit
/// made meanwhile is read back published, and the saves made from the moment "watching" is
/// printed (no wait for an idle watcher: "watching" must mean ready).
struct BenchRestart {
    var coldBuildSeconds: Double = 0
    var watchingSeconds: Double = 0
    var editLiveSeconds: Double = 0
    var saves = BenchWatcher.Latency()

    static func measure(_ site: SyntheticSite, out: String, options: BenchOptions, progress: (String) -> Void) throws -> BenchRestart {
        var run = BenchRestart()
        let (pages, dist) = ("\(out)/pages", "\(out)/dist-restart")
        var leftovers = BenchLeftovers()
        leftovers.moveAside(dist)
        defer { leftovers.removeAll() }
        progress("cold quire build of \(site.pageCount) pages")
        var arguments = ["build", "--pages", pages, "--dist", dist]
        if !options.previews { arguments.append("--no-preview") }
        let cold = try BenchProcess(BenchProcess.quireExecutable, arguments, stderrLog: "\(out)/restart-build.log").wait()
        guard cold.status == 0 else { throw BenchError("quire build exited \(cold.status): see \(out)/restart-build.log") }
        run.coldBuildSeconds = cold.wallSeconds

        // The edit made while no watcher runs.
        let page = site.pageCount / 2
        let token = "Restart \(getpid())t\(BenchClock.now % 1_000_000_007)"
        _ = try BenchWatcher.saveAtomically(site.sourcePath(pagesRoot: pages, page: page), site.pageSource(page, heroTitle: token))
        progress("quire watch restarted on it, one page edited meanwhile")
        let watcher = try BenchWatcher(site: site, pagesRoot: pages, distRoot: dist, previews: options.previews, log: "\(out)/restart.log")
        defer { _ = watcher.stop() }
        let started = watcher.process.started
        let target = site.publishedPath(distRoot: dist, page: page)
        let deadline = started + 900_000_000_000
        var live: UInt64?
        var watching: UInt64?
        while (live == nil || watching == nil) && BenchClock.now < deadline {
            if live == nil, let bytes = BenchWatcher.readFile(target), BenchWatcher.contains(bytes, Array(token.utf8)) {
                live = BenchClock.now
            }
            if watching == nil, watcher.process.stderrLines.contains(where: { $0.text.hasPrefix("quire: watching") }) {
                watching = BenchClock.now
            }
            if watcher.process.stderrLines.contains(where: { $0.text.hasPrefix("quire: error") }) { break }
            usleep(500)
        }
        guard let live, let watching else { throw BenchError("quire watch did not catch up: see \(out)/restart.log") }
        run.watchingSeconds = Double(watching - started) / 1e9
        run.editLiveSeconds = Double(live - started) / 1e9
        progress("\(options.saves) saves from \"watching\" on")
        run.saves = try watcher.measureSaves(count: options.saves, gap: options.saveGaps[0])
        return run
    }

    var json: JSONValue {
        let percent = { (seconds: Double) in BenchFormat.number((seconds / max(coldBuildSeconds, 1e-9) * 1000).rounded() / 10) }
        return [
            "tool": "quire watch, restarted", "cold_build_s": BenchFormat.number(coldBuildSeconds),
            "watching_s": BenchFormat.number(watchingSeconds), "watching_percent_of_cold": percent(watchingSeconds),
            "edit_live_s": BenchFormat.number(editLiveSeconds), "edit_live_percent_of_cold": percent(editLiveSeconds),
            "saves_after_watching": saves.json,
        ]
    }
}
