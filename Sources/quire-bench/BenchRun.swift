import Foundation
import QuireCommandLine
import QuireCore
import QuireModel

/// One full `quire-bench` run: for each layout and size, generate the site, then
///
///   cold build (child `quire build`, with and without previews)
///   -> the machine's floor (`Floor`: the output written with no work, libyaml and cmark alone,
///      a save's barrier alone)
///   -> per-stage breakdown (in-process `SiteBuilder.build()`: cold, then after a one-page edit)
///   -> `quire watch` child: first publish, N single saves, then two bursts (consecutive pages,
///      then pages spread over every folder)
///
/// and print the figures as tables (text) or one JSON document.
struct BenchRun {
    var options: BenchOptions

    struct ColdBuild {
        var previews: Bool
        var exit: BenchProcess.Exit
        var pages: Int
        var files: Int

        var json: JSONValue {
            .object(JSONObject([
                ("previews", .bool(previews)),
                ("exit_status", .integer(Int(exit.status))),
                ("wall_s", BenchFormat.number(exit.wallSeconds)),
                ("pages_per_s", BenchFormat.number(Double(pages) / exit.wallSeconds)),
                ("page_files_per_s", BenchFormat.number(Double(files) / exit.wallSeconds)),
                ("peak_rss_mib", BenchFormat.number(BenchFormat.mebibytes(exit.peakRSSKilobytes))),
                ("user_s", BenchFormat.number(exit.userSeconds)),
                ("system_s", BenchFormat.number(exit.systemSeconds)),
            ]))
        }
    }

    struct SizeResult {
        var layout: SyntheticSite.Layout
        var pages: Int
        var locales: Int
        var sourceBytes = 0
        var generateSeconds: Double = 0
        var coldBuilds: [ColdBuild] = []
        var stagesCold: [(stage: String, ms: Double)] = []
        var stagesColdWall: Double = 0
        var stagesEdit: [(stage: String, ms: Double)] = []
        var stagesEditWall: Double = 0
        var latency: BenchWatchSession.Latency?
        var pageSetChanges: BenchWatchSession.PageSetChanges?
        var burst: BenchWatchSession.Burst?
        var burstSpread: BenchWatchSession.Burst?
        var watcherInitialPublishSeconds: Double?
        var watcherSettleSeconds: Double?
        var watcherPeakRSSKilobytes: Int?
        var floor: Floor?
        var problems: [String] = []

        var label: String { "\(layout.rawValue)/\(pages)" }
    }

    func run() throws -> ExitCode {
        let cpuAtStart = BenchMachineCPU.now
        let out = try outputFolder()
        defer { if !options.keepFiles { try? FileManager.default.removeItem(atPath: out) } }
        var results: [SizeResult] = []
        var leftovers = BenchLeftovers()
        defer { leftovers.removeAll() }
        for layout in options.layouts {
            for pages in options.sizes {
                let root = "\(out)/\(layout.rawValue)-\(pages)"
                leftovers.moveAside(root)
                results.append(try measure(options.site(pages: pages, layout: layout), in: root))
            }
        }
        let conditions = self.conditions(out: out, cpuAtStart: cpuAtStart)
        let document = json(results, conditions: conditions)
        let table = text(results, conditions: conditions)
        if options.keepFiles {
            // Both forms next to the sites, whichever was printed.
            try? Data(JSONWriter(pretty: true).string(document).utf8).write(to: URL(fileURLWithPath: "\(out)/bench.json"))
            try? Data((table + "\n").utf8).write(to: URL(fileURLWithPath: "\(out)/bench.txt"))
        }
        if options.format == .json { Console.shared.json(document) } else { Console.shared.out(table) }
        return results.contains(where: { !$0.problems.isEmpty }) ? .operational : .ok
    }

    /// `--out`, or a fresh folder next to the current directory (same file system as the
    /// repository, unlike a tmpfs `/tmp`), removed afterwards unless `--keep-files`.
    private func outputFolder() throws -> String {
        if let out = options.out {
            try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
            return out
        }
        // In a checkout, under the ignored `bench/out/`.
        let here = FileManager.default.currentDirectoryPath
        var parent = here
        if FileManager.default.fileExists(atPath: "\(here)/bench/compare-hugo.sh") {
            parent = "\(here)/bench/out"
            try? FileManager.default.createDirectory(atPath: parent, withIntermediateDirectories: true)
        }
        var template = Array((parent + "/.quire-bench-XXXXXX").utf8CString)
        guard mkdtemp(&template) != nil else { throw BenchError("cannot make a folder in \(FileManager.default.currentDirectoryPath): \(String(cString: strerror(errno)))") }
        return String(decoding: template.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    private func progress(_ text: String) { Console.shared.error("bench: \(text)") }

    // MARK: One size

    private func measure(_ site: SyntheticSite, in root: String) throws -> SizeResult {
        var result = SizeResult(layout: site.layout, pages: site.pageCount, locales: site.locales.count)
        let pagesRoot = "\(root)/pages"
        progress("\(result.label): generating \(site.pageCount) pages x \(site.locales.count) locales in \(pagesRoot)")
        let generated = BenchClock.now
        result.sourceBytes = try site.write(pagesRoot: pagesRoot)
        result.generateSeconds = Double(BenchClock.now - generated) / 1e9
        let files = site.pageCount * site.locales.count

        for previews in options.previews ? [true, false] : [false] {
            let dist = "\(root)/dist-cold-\(previews ? "preview" : "no-preview")"
            progress("\(result.label): cold quire build\(previews ? "" : " --no-preview")")
            var arguments = ["build", "--pages", pagesRoot, "--dist", dist]
            if !previews { arguments.append("--no-preview") }
            let exit = try BenchProcess(BenchProcess.quireExecutable, arguments, stderrLog: "\(root)/build-\(previews ? "preview" : "no-preview").log").wait()
            if exit.status > 1 { result.problems.append("quire build exited \(exit.status): see \(root)/build-*.log") }
            result.coldBuilds.append(ColdBuild(previews: previews, exit: exit, pages: site.pageCount, files: files))
        }
        do {
            progress("\(result.label): the machine's floor (libyaml and cmark alone; the first cold build's files written again, with no work)")
            let firstDist = "\(root)/dist-cold-\(options.previews ? "preview" : "no-preview")/\(site.name)"
            let markdown = (0..<site.pageCount).flatMap { page in site.locales.map { site.markdown(page, locale: $0) } }
            result.floor = try Floor.measure(copying: firstDist, pages: pagesRoot, markdown: markdown,
                                             filesPerSave: site.locales.count * (options.previews ? 2 : 1), in: root)
        } catch {
            result.problems.append("floor: \(error)")
        }

        progress("\(result.label): in-process build for the stage breakdown")
        var buildOptions = BuildOptions()
        buildOptions.previews = options.previews
        let stagesDist = "\(root)/dist-stages"
        let builder = SiteBuilder(site: site.name, pagesRoot: pagesRoot, distRoot: stagesDist, options: buildOptions)
        let cold = builder.build()
        result.stagesCold = cold.stageMilliseconds
        result.stagesColdWall = cold.seconds * 1000
        if let failure = cold.operationalError { result.problems.append("in-process build: \(failure)") }
        let edited = site.sourcePath(pagesRoot: pagesRoot, page: 0)
        try BenchWatchSession.saveAtomically(edited, site.pageSource(0, heroTitle: "Stage breakdown edit"))
        // Told what changed, as the watcher tells it.
        let edit = builder.build(changed: [URL(fileURLWithPath: edited).standardizedFileURL.path])
        result.stagesEdit = edit.stageMilliseconds
        result.stagesEditWall = edit.seconds * 1000

        if options.watch {
            do {
                try measureWatch(site, pagesRoot: pagesRoot, root: root, into: &result)
            } catch {
                result.problems.append("watch: \(error)")
                progress("\(result.label): \(error)")
            }
        }
        // Nothing is removed before the end of the run (`out` goes then): on ext4 without a
        // journal, files made within minutes of removing a large tree are slower to create.
        return result
    }

    private func measureWatch(_ site: SyntheticSite, pagesRoot: String, root: String, into result: inout SizeResult) throws {
        progress("\(result.label): starting quire watch")
        let session = try BenchWatchSession(site: site, pagesRoot: pagesRoot, distRoot: "\(root)/dist-watch", previews: options.previews, log: "\(root)/watch.log")
        var stopped = false
        defer { if !stopped { _ = session.stop() } }
        try session.waitForFirstPublish(timeout: 900)
        result.watcherInitialPublishSeconds = session.initialPublishSeconds
        result.watcherSettleSeconds = session.settleSeconds
        progress("\(result.label): \(options.saves) saves")
        result.latency = try session.measureSaves(count: options.saves, gap: options.saveGap, budget: options.saveBudget)
        let pageSetChanges = min(20, options.saves)
        progress("\(result.label): \(pageSetChanges) pages added, then removed")
        result.pageSetChanges = try session.measurePageSetChanges(count: pageSetChanges, gap: options.saveGap)
        if options.burst > 0 {
            progress("\(result.label): burst of \(options.burst) files")
            result.burst = try session.measureBurst(files: options.burst, shape: .consecutive)
            progress("\(result.label): burst of \(options.burst) files spread over the site")
            result.burstSpread = try session.measureBurst(files: options.burst, shape: .spread)
        }
        let exit = session.stop()
        stopped = true
        result.watcherPeakRSSKilobytes = exit.peakRSSKilobytes
    }

    // MARK: Conditions

    private func conditions(out: String, cpuAtStart: BenchMachineCPU?) -> JSONValue {
        var name = utsname()
        uname(&name)
        let kernel = withUnsafeBytes(of: &name.release) { String(decoding: $0.prefix(while: { $0 != 0 }), as: UTF8.self) }
        let cpuInfo = (try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)) ?? ""
        let model = cpuInfo.split(separator: "\n").first(where: { $0.hasPrefix("model name") })?
            .split(separator: ":", maxSplits: 1).last?.trimmingCharacters(in: .whitespaces) ?? "unknown"
        let fileSystem = BenchProcess.output("/usr/bin/stat", ["-f", "-c", "%T", out]) ?? "unknown"
        let formatter = ISO8601DateFormatter()
        let load = ((try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8)) ?? "").split(separator: " ").prefix(3).joined(separator: " ")
        // Millions of cached inodes (a machine that made and removed many trees) made each file
        // creation here about twice as slow (bench/RESULTS.md), so the count is a condition.
        let cachedInodes = ((try? String(contentsOfFile: "/proc/sys/fs/inode-nr", encoding: .utf8)) ?? "")
            .split(whereSeparator: \.isWhitespace).first.flatMap { Int($0) }
        let stolen = cpuAtStart.flatMap { start in BenchMachineCPU.now?.stolenPercent(since: start) }
        return .object(JSONObject([
            ("date", .string(formatter.string(from: Date()))),
            ("cpu", .string(model)),
            ("cores", .integer(ProcessInfo.processInfo.activeProcessorCount)),
            ("memory_gib", BenchFormat.number(Double(ProcessInfo.processInfo.physicalMemory) / 1_073_741_824)),
            ("kernel", .string(kernel)),
            ("load_average_at_end", .string(load)),
            ("cached_inodes_at_end", cachedInodes.map { .integer($0) } ?? .null),
            ("cpu_stolen_by_host_percent", BenchFormat.number(stolen)),
            ("file_system", .string(fileSystem)),
            ("folder", .string(out)),
            ("sync", .string("the store's: one syncfs per published version, no fsync per file")),
            ("allocator", .string(Allocator.name)),
            ("previews", .string(options.previews ? "cold builds with and without; watcher with" : "off")),
            ("page_cache", .string("warm: sources were just written")),
            ("locales", .integer(options.locales)),
            ("sections_per_page", .integer(options.sections)),
            ("markdown_bytes", .integer(options.markdownBytes)),
            ("saves", .integer(options.saves)),
            ("save_gap_ms", BenchFormat.number(options.saveGap * 1000)),
            ("save_method", .string("write a hidden temp file, rename it over the page source")),
            ("quire", .string(BenchProcess.quireExecutable)),
        ]))
    }

    // MARK: Output

    private func json(_ results: [SizeResult], conditions: JSONValue) -> JSONValue {
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
            object["save_to_published"] = result.latency?.json ?? .null
            object["page_added_to_published"] = result.pageSetChanges.map { Self.pageSetJSON($0.added) } ?? .null
            object["page_removed_to_gone"] = result.pageSetChanges.map { Self.pageSetJSON($0.removed) } ?? .null
            object["burst"] = result.burst?.json ?? .null
            object["burst_spread"] = result.burstSpread?.json ?? .null
            object["watcher_initial_publish_s"] = BenchFormat.number(result.watcherInitialPublishSeconds)
            object["watcher_settled_s"] = BenchFormat.number(result.watcherSettleSeconds)
            object["watcher_peak_rss_mib"] = BenchFormat.number(result.watcherPeakRSSKilobytes.map(BenchFormat.mebibytes))
            object["floor"] = result.floor?.json ?? .null
            object["problems"] = .array(result.problems.map { .string($0) })
            return .object(object)
        }
        return .object(JSONObject([
            ("conditions", conditions),
            ("runs", .array(runs)),
            ("ratios", .array(ratios(results).map { ratio in
                .object(JSONObject([
                    ("layout", .string(ratio.layout)), ("large", .integer(ratio.large)), ("small", .integer(ratio.small)),
                    ("save_p50", BenchFormat.number(ratio.p50)), ("save_p99", BenchFormat.number(ratio.p99)),
                    ("edit_build_wall", BenchFormat.number(ratio.editWall)),
                ]))
            })),
        ]))
    }

    private static func pageSetJSON(_ latency: BenchWatchSession.Latency) -> JSONValue {
        let statistics = BenchStatistics(latency.milliseconds)
        return .object(JSONObject([
            ("pages", .integer(latency.milliseconds.count + latency.timeouts)),
            ("p50_ms", BenchFormat.number(statistics.percentile(50))),
            ("p90_ms", BenchFormat.number(statistics.percentile(90))),
            ("max_ms", BenchFormat.number(statistics.maximum)),
            ("torn_reads", .integer(latency.tornReads)),
            ("timeouts", .integer(latency.timeouts)),
        ]))
    }

    private static func stagesJSON(_ stages: [(stage: String, ms: Double)], wall: Double) -> JSONValue {
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

    /// A one-page edit at the largest size over the same at the smallest, per layout.
    private func ratios(_ results: [SizeResult]) -> [Ratio] {
        options.layouts.compactMap { layout in
            let runs = results.filter { $0.layout == layout }.sorted { $0.pages < $1.pages }
            guard let small = runs.first, let large = runs.last, large.pages > small.pages else { return nil }
            func divide(_ a: Double?, _ b: Double?) -> Double? {
                guard let a, let b, b > 0 else { return nil }
                return a / b
            }
            let largeStats = BenchStatistics(large.latency?.milliseconds ?? [])
            let smallStats = BenchStatistics(small.latency?.milliseconds ?? [])
            return Ratio(layout: layout.rawValue, large: large.pages, small: small.pages,
                         p50: divide(largeStats.percentile(50), smallStats.percentile(50)),
                         p99: divide(largeStats.percentile(99), smallStats.percentile(99)),
                         editWall: divide(large.stagesEditWall, small.stagesEditWall))
        }
    }

    private func text(_ results: [SizeResult], conditions: JSONValue) -> String {
        var sections: [String] = []
        let c = conditions
        sections.append("quire-bench, \(c["date"]?.stringValue ?? ""): \(c["cores"]?.intValue ?? 0) cores (\(c["cpu"]?.stringValue ?? "")), kernel \(c["kernel"]?.stringValue ?? "")\n"
            + "file system \(c["file_system"]?.stringValue ?? "") (\(c["folder"]?.stringValue ?? "")); sync: \(c["sync"]?.stringValue ?? ""); allocator: \(c["allocator"]?.stringValue ?? "")\n"
            + "\(options.locales) locales, \(options.sections) sections a page, ~\(options.markdownBytes) B of markdown a page; page cache warm; load average at end \(c["load_average_at_end"]?.stringValue ?? ""); "
            + "inodes cached by the kernel at end \(c["cached_inodes_at_end"]?.intValue.map(String.init) ?? "unknown"); "
            + "busy CPU time the host took (steal) \(c["cpu_stolen_by_host_percent"].flatMap(BenchFormat.percent) ?? "unknown")")

        var cold: [[String]] = []
        for result in results {
            for build in result.coldBuilds {
                cold.append([result.label, "\(result.pages * result.locales)", build.previews ? "on" : "off",
                             BenchFormat.text(build.exit.wallSeconds, decimals: 2), BenchFormat.text(Double(result.pages) / build.exit.wallSeconds, decimals: 0),
                             BenchFormat.text(Double(result.pages * result.locales) / build.exit.wallSeconds, decimals: 0),
                             BenchFormat.text(BenchFormat.mebibytes(build.exit.peakRSSKilobytes), decimals: 0),
                             BenchFormat.text(build.exit.userSeconds + build.exit.systemSeconds, decimals: 2), "\(build.exit.status)"])
            }
        }
        sections.append("Cold build (quire build as a child process)\n" + BenchFormat.table(
            ["layout/pages", "files", "previews", "wall s", "pages/s", "files/s", "peak RSS MiB", "cpu s", "exit"], cold))
        let floorRows: [[String]] = results.compactMap { result in result.floor.map { [result.label] + $0.row } }
        if !floorRows.isEmpty {
            sections.append("Machine floor (the first cold build's output files written again with no work, on every core, then one syncfs; "
                + "libyaml's events of every source file and cmark's HTML of every page-locale's markdown, one core; "
                + "a save's barrier alone: its files in a new folder, one syncfs, a link swapped)\n"
                + BenchFormat.table(Floor.header, floorRows))
        }

        var latencyNotes: [String] = []
        let latencyRows: [[String]] = results.compactMap { result in
            guard let latency = result.latency else { return nil }
            let statistics = BenchStatistics(latency.milliseconds)
            return [result.label, "\(latency.milliseconds.count)", BenchFormat.text(statistics.percentile(50), decimals: 2),
                    BenchFormat.text(statistics.percentile(90), decimals: 2), BenchFormat.text(statistics.percentile(99), decimals: 2),
                    BenchFormat.text(statistics.maximum, decimals: 2), "\(latency.tornReads)", "\(latency.missingReads)", "\(latency.timeouts)",
                    BenchFormat.text(result.watcherInitialPublishSeconds, decimals: 2), BenchFormat.text(result.watcherSettleSeconds, decimals: 2),
                    BenchFormat.text(result.watcherPeakRSSKilobytes.map(BenchFormat.mebibytes), decimals: 0)]
        }
        for result in results where result.latency?.stoppedByBudget == true {
            latencyNotes.append("\(result.label): saves stopped after \(Int(options.saveBudget)) s (--save-budget)")
        }
        if !latencyRows.isEmpty {
            sections.append("Save -> published (quire watch child; read from current/ by this process)\n" + BenchFormat.table(
                ["layout/pages", "saves", "p50 ms", "p90 ms", "p99 ms", "max ms", "torn", "missing", "timeouts", "first publish s", "settled s", "watch RSS MiB"], latencyRows)
                + latencyNotes.map { "\n" + $0 }.joined())
        }
        let pageSetRows: [[String]] = results.flatMap { result in
            [("added -> published", result.pageSetChanges?.added), ("removed -> gone", result.pageSetChanges?.removed)].compactMap { what, latency -> [String]? in
                guard let latency else { return nil }
                let statistics = BenchStatistics(latency.milliseconds)
                return [result.label, what, "\(latency.milliseconds.count + latency.timeouts)", BenchFormat.text(statistics.percentile(50), decimals: 2),
                        BenchFormat.text(statistics.percentile(90), decimals: 2), BenchFormat.text(statistics.maximum, decimals: 2), "\(latency.timeouts)"]
            }
        }
        if !pageSetRows.isEmpty {
            sections.append("Pages coming and going (a new page beside an existing one, then removed)\n" + BenchFormat.table(
                ["layout/pages", "change", "pages", "p50 ms", "p90 ms", "max ms", "timeouts"], pageSetRows))
        }
        let burstRows: [[String]] = results.flatMap { result in
            [(BenchWatchSession.BurstShape.consecutive, result.burst), (.spread, result.burstSpread)].compactMap { shape, burst -> [String]? in
                guard let burst else { return nil }
                return [result.label, shape.rawValue, "\(burst.files)", BenchFormat.text(burst.writeMilliseconds, decimals: 0), "\(burst.versionsPublished)",
                        "\(burst.versionNumberDelta)", BenchFormat.text(burst.lastPublishAfterLastWriteMilliseconds, decimals: 0),
                        BenchFormat.text(burst.allVisibleAfterLastWriteMilliseconds, decimals: 0), "\(burst.lost)"]
            }
        }
        if !burstRows.isEmpty {
            sections.append("Burst (consecutive pages, then pages spread over every folder)\n" + BenchFormat.table(
                ["layout/pages", "pages", "files", "write ms", "versions", "version delta", "last publish after last write ms", "all visible ms", "lost"], burstRows))
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
        for result in results { wallRow += [BenchFormat.text(result.stagesColdWall, decimals: 1), BenchFormat.text(result.stagesEditWall, decimals: 1)] }
        stageRows.append(wallRow)
        sections.append("Stages (in-process SiteBuilder.build(); stage times summed over threads, cold then after one page edit)\n"
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
