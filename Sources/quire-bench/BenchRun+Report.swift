import Foundation
import QuireCommandLine
import QuireCore
import QuireModel

/// The figures of a run as one JSON document or as tables of text.
extension BenchRun {
    func json(_ results: [SizeResult], conditions: JSONValue) -> JSONValue {
        let runs: [JSONValue] = results.map { result in
            var object = JSONObject([
                ("layout", .string(result.layout.rawValue)),
                ("pages", .integer(result.pages)),
                ("locales", .integer(result.locales)),
                ("page_files", .integer(result.pages * result.locales)),
                ("source_bytes", .integer(result.sourceBytes)),
                ("generate_s", BenchFormat.number(result.generateSeconds)),
                ("cold_builds", .array(result.coldBuilds.map(\.json))),
                ("stages_cold_ms", Self.stagesJSON(result.stagesCold, wall: result.stagesColdWall)),
                ("stages_one_edit_ms", Self.stagesJSON(result.stagesEdit, wall: result.stagesEditWall)),
            ])
            object["watchers"] = .array(result.watchRuns.map(\.json))
            object["floor"] = result.floor?.json ?? .null
            object["problems"] = .array(result.problems.map { .string($0) })
            return .object(object)
        }
        return .object(
            JSONObject([
                ("conditions", conditions),
                ("runs", .array(runs)),
                (
                    "ratios",
                    .array(
                        ratios(results).map { ratio in
                            .object(
                                JSONObject([
                                    ("layout", .string(ratio.layout)), ("large", .integer(ratio.large)), ("small", .integer(ratio.small)),
                                    ("save_p50", BenchFormat.number(ratio.p50)), ("save_p99", BenchFormat.number(ratio.p99)),
                                    ("edit_build_wall", BenchFormat.number(ratio.editWall)),
                                ]))
                        })
                ),
            ]))
    }

    static func pageSetJSON(_ latency: BenchWatcher.Latency) -> JSONValue {
        let statistics = BenchStatistics(latency.milliseconds)
        return .object(
            JSONObject([
                ("pages", .integer(latency.milliseconds.count + latency.timeouts)),
                ("p50_ms", BenchFormat.number(statistics.percentile(50))),
                ("p90_ms", BenchFormat.number(statistics.percentile(90))),
                ("max_ms", BenchFormat.number(statistics.maximum)),
                ("torn_reads", .integer(latency.tornReads)),
                ("timeouts", .integer(latency.timeouts)),
            ]))
    }

    static func stagesJSON(_ stages: [(stage: String, ms: Double)], wall: Double) -> JSONValue {
        var object = JSONObject()
        for (stage, ms) in stages { object[stage] = BenchFormat.number(ms) }
        object["wall"] = BenchFormat.number(wall)
        return .object(object)
    }

    struct Ratio {
        var layout: String
        var large: Int
        var small: Int
        var p50: Double?
        var p99: Double?
        var editWall: Double?
    }

    /// The first watcher's first series of saves (with previews unless `--no-preview`, at the first gap).
    static func firstSeries(_ result: SizeResult) -> BenchWatcher.Latency? { result.watchRuns.first?.series.first?.latency }

    /// A one-page edit at the largest size over the same at the smallest, per layout.
    func ratios(_ results: [SizeResult]) -> [Ratio] {
        options.layouts.compactMap { layout in
            let runs = results.filter { $0.layout == layout }.sorted { $0.pages < $1.pages }
            guard let small = runs.first, let large = runs.last, large.pages > small.pages else { return nil }
            func divide(_ a: Double?, _ b: Double?) -> Double? {
                guard let a, let b, b > 0 else { return nil }
                return a / b
            }
            let largeStats = BenchStatistics(Self.firstSeries(large)?.milliseconds ?? [])
            let smallStats = BenchStatistics(Self.firstSeries(small)?.milliseconds ?? [])
            return Ratio(
                layout: layout.rawValue, large: large.pages, small: small.pages,
                p50: divide(largeStats.percentile(50), smallStats.percentile(50)),
                p99: divide(largeStats.percentile(99), smallStats.percentile(99)),
                editWall: divide(large.stagesEditWall, small.stagesEditWall))
        }
    }

    func text(_ results: [SizeResult], conditions: JSONValue) -> String {
        var sections: [String] = []
        let c = conditions
        sections.append(
            "quire-bench, \(c["date"]?.stringValue ?? ""): \(c["cores"]?.intValue ?? 0) cores (\(c["cpu"]?.stringValue ?? "")), kernel \(c["kernel"]?.stringValue ?? "")\n"
                + "file system \(c["file_system"]?.stringValue ?? "") (\(c["folder"]?.stringValue ?? "")); sync: \(c["sync"]?.stringValue ?? ""); allocator: \(c["allocator"]?.stringValue ?? "")\n"
                + "\(options.locales) locales, \(options.sections) sections a page, ~\(options.markdownBytes) B of markdown a page; "
                + (options.keepVersions > 0
                    ? "site.yaml sets keep: \(options.keepVersions) (--keep-versions); " : "no keep: in site.yaml; ")
                + "page cache warm; load average at start \(c["load_average_at_start"]?.stringValue ?? ""), at end \(c["load_average_at_end"]?.stringValue ?? ""); "
                + "inodes cached by the kernel at end \(c["cached_inodes_at_end"]?.intValue.map(String.init) ?? "unknown"); "
                + "busy CPU time the host took (steal) \(c["cpu_stolen_by_host_percent"].flatMap(BenchFormat.percent) ?? "unknown")")

        var cold: [[String]] = []
        for result in results {
            for build in result.coldBuilds {
                cold.append([
                    result.label, "\(result.pages * result.locales)", build.previews ? "on" : "off",
                    BenchFormat.text(build.exit.wallSeconds, decimals: 2),
                    BenchFormat.text(Double(result.pages) / build.exit.wallSeconds, decimals: 0),
                    BenchFormat.text(Double(result.pages * result.locales) / build.exit.wallSeconds, decimals: 0),
                    BenchFormat.text(BenchFormat.mebibytes(build.exit.peakRSSKilobytes), decimals: 0),
                    BenchFormat.text(build.exit.userSeconds + build.exit.systemSeconds, decimals: 2), "\(build.exit.status)",
                    build.loadAverage,
                ])
            }
        }
        sections.append(
            "Cold build (quire build as a child process)\n"
                + BenchFormat.table(
                    ["layout/pages", "files", "previews", "wall s", "pages/s", "files/s", "peak RSS MiB", "cpu s", "exit", "load at end"],
                    cold))
        let floorRows: [[String]] = results.compactMap { result in result.floor.map { [result.label] + $0.row } }
        if !floorRows.isEmpty {
            sections.append(
                "Machine floor (the first cold build's output files written again with no work, on every core, then one syncfs; "
                    + "libyaml's events of every source file and cmark's HTML of every page-locale's markdown, one core; "
                    + "a save's barrier alone: its files in a new folder, one syncfs, a link swapped)\n"
                    + BenchFormat.table(Floor.header, floorRows))
        }

        let saveRows = results.flatMap { result in result.watchRuns.flatMap { $0.saveRows(result) } }
        let budgetNotes = results.flatMap { result in
            result.watchRuns.filter { $0.series.contains { $0.latency.stoppedByBudget } }.map {
                "\($0.label(result)): saves stopped after \(Int(options.saveBudget)) s (--save-budget)"
            }
        }
        if !saveRows.isEmpty {
            sections.append(
                "Save -> published (quire watch child, with previews then without; read from current/ by this process; "
                    + "gap: wait after a save was read back before the next, 0 = back to back; "
                    + "watch RSS: VmHWM, the peak over the watcher's whole run, and VmRSS at its end)\n"
                    + BenchFormat.table(BenchWatchRun.saveHeader, saveRows) + budgetNotes.map { "\n" + $0 }.joined())
        }
        let pageSetRows = results.flatMap { result in result.watchRuns.flatMap { $0.pageSetRows(result) } }
        if !pageSetRows.isEmpty {
            sections.append(
                "Pages coming and going (a new page beside an existing one, then removed; 50 ms apart)\n"
                    + BenchFormat.table(
                        ["layout/pages, watcher", "change", "pages", "p50 ms", "p90 ms", "max ms", "timeouts"], pageSetRows))
        }
        let burstRows = results.flatMap { result in result.watchRuns.flatMap { $0.burstRows(result) } }
        if !burstRows.isEmpty {
            sections.append(
                "Burst (consecutive pages, then pages spread over every folder)\n"
                    + BenchFormat.table(
                        [
                            "layout/pages, watcher", "which pages", "files", "write ms", "versions", "version delta",
                            "last publish after last write ms", "all visible ms", "lost",
                        ], burstRows))
        }

        let stageNames = results.first?.stagesCold.map(\.stage) ?? []
        var header = ["stage ms"]
        for result in results { header += ["\(result.label) cold", "\(result.label) edit"] }
        var stageRows: [[String]] = stageNames.map { stage in
            var row = [stage]
            for result in results {
                row.append(BenchFormat.text(result.stagesCold.first(where: { $0.stage == stage })?.ms, decimals: 1))
                row.append(BenchFormat.text(result.stagesEdit.first(where: { $0.stage == stage })?.ms, decimals: 1))
            }
            return row
        }
        var wallRow = ["wall"]
        for result in results {
            wallRow += [BenchFormat.text(result.stagesColdWall, decimals: 1), BenchFormat.text(result.stagesEditWall, decimals: 1)]
        }
        stageRows.append(wallRow)
        sections.append(
            "Stages (in-process SiteBuilder.build(); stage times summed over threads, cold then after one page edit)\n"
                + BenchFormat.table(header, stageRows))

        let ratioLines = ratios(results).map { ratio in
            "\(ratio.layout): one-page save at \(ratio.large) pages vs \(ratio.small): p50 x\(BenchFormat.text(ratio.p50, decimals: 2)), p99 x\(BenchFormat.text(ratio.p99, decimals: 2)); in-process edit build x\(BenchFormat.text(ratio.editWall, decimals: 2))"
        }
        if !ratioLines.isEmpty { sections.append("Ratios\n" + ratioLines.joined(separator: "\n")) }
        let problems = results.flatMap { result in result.problems.map { "\(result.label): \($0)" } }
        if !problems.isEmpty { sections.append("Problems\n" + problems.joined(separator: "\n")) }
        return sections.joined(separator: "\n\n")
    }
}
