import Foundation
import QuireCommandLine
import QuireModel

/// One `quire watch` child on a generated site, with or without previews: its first publish,
/// one series of single saves per save gap (an editor's pace, then back to back), pages coming
/// and going, and two bursts; its memory is read from `/proc` before it stops.
struct BenchWatchRun {
    struct Series {
        /// Seconds between a save read back published and the next save; 0 is back to back.
        var gap: Double
        var latency: BenchWatcher.Latency
        /// The series' wall time: its saves' latencies, the gaps between them and the final check.
        var seconds: Double = 0
        /// The machine's load average when the series ended.
        var loadAverage = BenchRun.loadAverage

        var json: JSONValue {
            guard case .object(var object) = latency.json else { return latency.json }
            object["gap_ms"] = BenchFormat.number(gap * 1000)
            object["seconds"] = BenchFormat.number(seconds)
            object["load_average"] = .string(loadAverage)
            return .object(object)
        }

        var label: String { gap > 0 ? "\(BenchFormat.text(gap * 1000, decimals: 0)) ms apart" : "back to back" }
    }

    var previews: Bool
    var initialPublishSeconds: Double = 0
    var settleSeconds: Double = 0
    var series: [Series] = []
    var pageSetChanges: BenchWatcher.PageSetChanges?
    var burst: BenchWatcher.Burst?
    var burstSpread: BenchWatcher.Burst?
    /// `VmHWM` just before the stop: the most the watcher held at any moment of the run.
    var peakRSSKilobytes: Int?
    /// `VmRSS` just before the stop: what it holds once the work is done.
    var residentAtEndKilobytes: Int?

    /// Pages coming and going are this far apart: their figures are not the issue's, and at a
    /// second apart 20 of each would add 40 s a watcher.
    static let pageSetGap = 0.05

    static func measure(
        _ site: SyntheticSite, pagesRoot: String, dist: String, log: String, previews: Bool, options: BenchOptions,
        progress: (String) -> Void
    ) throws -> BenchWatchRun {
        var run = BenchWatchRun(previews: previews)
        let watcher = try BenchWatcher(site: site, pagesRoot: pagesRoot, distRoot: dist, previews: previews, log: log)
        defer { _ = watcher.stop() }
        try watcher.waitForFirstPublish(timeout: 900)
        run.initialPublishSeconds = watcher.initialPublishSeconds
        run.settleSeconds = watcher.settleSeconds
        for gap in options.saveGaps {
            progress("\(options.saves) saves, \(Series(gap: gap, latency: BenchWatcher.Latency()).label)")
            let started = BenchClock.now
            let latency = try watcher.measureSaves(count: options.saves, gap: gap, budget: options.saveBudget)
            run.series.append(Series(gap: gap, latency: latency, seconds: Double(BenchClock.now - started) / 1e9))
            // The next series starts on an idle watcher, as the first did.
            _ = watcher.process.waitUntilIdle()
        }
        let pageSetChanges = min(20, options.saves)
        progress("\(pageSetChanges) pages added, then removed")
        run.pageSetChanges = try watcher.measurePageSetChanges(count: pageSetChanges, gap: Self.pageSetGap)
        if options.burst > 0 {
            progress("burst of \(options.burst) files")
            run.burst = try watcher.measureBurst(files: options.burst, shape: .consecutive)
            progress("burst of \(options.burst) files spread over the site")
            run.burstSpread = try watcher.measureBurst(files: options.burst, shape: .spread)
        }
        run.residentAtEndKilobytes = watcher.process.residentKilobytes
        run.peakRSSKilobytes = watcher.stop().peakRSSKilobytes
        return run
    }

    var json: JSONValue {
        var object = JSONObject([
            ("previews", .bool(previews)),
            ("initial_publish_s", BenchFormat.number(initialPublishSeconds)),
            ("settled_s", BenchFormat.number(settleSeconds)),
            ("peak_rss_mib", BenchFormat.number(peakRSSKilobytes.map(BenchFormat.mebibytes))),
            ("rss_at_end_mib", BenchFormat.number(residentAtEndKilobytes.map(BenchFormat.mebibytes))),
            ("save_to_published", .array(series.map(\.json))),
        ])
        object["page_added_to_published"] = pageSetChanges.map { BenchRun.pageSetJSON($0.added) } ?? .null
        object["page_removed_to_gone"] = pageSetChanges.map { BenchRun.pageSetJSON($0.removed) } ?? .null
        object["burst"] = burst?.json ?? .null
        object["burst_spread"] = burstSpread?.json ?? .null
        return .object(object)
    }

    /// `flat/10000 previews on` or `... off`.
    func label(_ result: BenchRun.SizeResult) -> String { "\(result.label) previews \(previews ? "on" : "off")" }

    static let saveHeader = [
        "layout/pages, watcher", "saves", "gap", "p50 ms", "p90 ms", "p99 ms", "max ms", "torn", "missing", "timeouts", "lost",
        "first publish s", "settled s", "watch RSS MiB peak", "at end", "load at end",
    ]

    func saveRows(_ result: BenchRun.SizeResult) -> [[String]] {
        series.map { series in
            let latency = series.latency
            let statistics = BenchStatistics(latency.milliseconds)
            return [
                label(result), "\(latency.milliseconds.count)",
                series.gap > 0 ? BenchFormat.text(series.gap * 1000, decimals: 0) + " ms" : "0",
                BenchFormat.text(statistics.percentile(50), decimals: 2), BenchFormat.text(statistics.percentile(90), decimals: 2),
                BenchFormat.text(statistics.percentile(99), decimals: 2), BenchFormat.text(statistics.maximum, decimals: 2),
                "\(latency.tornReads)", "\(latency.missingReads)", "\(latency.timeouts)", "\(latency.lost)",
                BenchFormat.text(initialPublishSeconds, decimals: 2), BenchFormat.text(settleSeconds, decimals: 2),
                BenchFormat.text(peakRSSKilobytes.map(BenchFormat.mebibytes), decimals: 0),
                BenchFormat.text(residentAtEndKilobytes.map(BenchFormat.mebibytes), decimals: 0), series.loadAverage,
            ]
        }
    }

    func pageSetRows(_ result: BenchRun.SizeResult) -> [[String]] {
        [("added -> published", pageSetChanges?.added), ("removed -> gone", pageSetChanges?.removed)].compactMap {
            what, latency -> [String]? in
            guard let latency else { return nil }
            let statistics = BenchStatistics(latency.milliseconds)
            return [
                label(result), what, "\(latency.milliseconds.count + latency.timeouts)",
                BenchFormat.text(statistics.percentile(50), decimals: 2),
                BenchFormat.text(statistics.percentile(90), decimals: 2), BenchFormat.text(statistics.maximum, decimals: 2),
                "\(latency.timeouts)",
            ]
        }
    }

    func burstRows(_ result: BenchRun.SizeResult) -> [[String]] {
        [(BenchWatcher.BurstShape.consecutive, burst), (.spread, burstSpread)].compactMap { shape, burst -> [String]? in
            guard let burst else { return nil }
            return [
                label(result), shape.rawValue, "\(burst.files)", BenchFormat.text(burst.writeMilliseconds, decimals: 0),
                "\(burst.versionsPublished)", "\(burst.versionNumberDelta)",
                BenchFormat.text(burst.lastPublishAfterLastWriteMilliseconds, decimals: 0),
                BenchFormat.text(burst.allVisibleAfterLastWriteMilliseconds, decimals: 0), "\(burst.lost)",
            ]
        }
    }
}
