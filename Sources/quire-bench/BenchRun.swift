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
///   -> `quire watch` child, with previews, then again without (`BenchWatchRun`): first publish,
///      N single saves a second apart, N back to back, pages coming and going, then two bursts
///      (consecutive pages, then pages spread over every folder)
///
/// and print the figures as tables (text) or one JSON document.
struct BenchRun {
    var options: BenchOptions

    struct ColdBuild {
        var previews: Bool
        var exit: BenchProcess.Exit
        var pages: Int
        var files: Int
        /// The machine's load average when the build ended (others' work shares the cores).
        var loadAverage = BenchRun.loadAverage

        var json: JSONValue {
            .object(
                JSONObject([
                    ("previews", .bool(previews)),
                    ("exit_status", .integer(Int(exit.status))),
                    ("wall_s", BenchFormat.number(exit.wallSeconds)),
                    ("pages_per_s", BenchFormat.number(Double(pages) / exit.wallSeconds)),
                    ("page_files_per_s", BenchFormat.number(Double(files) / exit.wallSeconds)),
                    ("peak_rss_mib", BenchFormat.number(BenchFormat.mebibytes(exit.peakRSSKilobytes))),
                    ("user_s", BenchFormat.number(exit.userSeconds)),
                    ("system_s", BenchFormat.number(exit.systemSeconds)),
                    ("load_average", .string(loadAverage)),
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
        /// With previews, then without (only without under `--no-preview`).
        var watchRuns: [BenchWatchRun] = []
        var floor: Floor?
        var problems: [String] = []

        var label: String { "\(layout.rawValue)/\(pages)" }
    }

    func run() throws -> ExitCode {
        let cpuAtStart = BenchMachineCPU.now
        let loadAtStart = Self.loadAverage
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
        let conditions = self.conditions(out: out, cpuAtStart: cpuAtStart, loadAtStart: loadAtStart)
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
        guard mkdtemp(&template) != nil else {
            throw BenchError("cannot make a folder in \(FileManager.default.currentDirectoryPath): \(String(cString: strerror(errno)))")
        }
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
            let exit = try BenchProcess(
                BenchProcess.quireExecutable, arguments, stderrLog: "\(root)/build-\(previews ? "preview" : "no-preview").log"
            ).wait()
            if exit.status > 1 { result.problems.append("quire build exited \(exit.status): see \(root)/build-*.log") }
            result.coldBuilds.append(ColdBuild(previews: previews, exit: exit, pages: site.pageCount, files: files))
        }
        do {
            progress(
                "\(result.label): the machine's floor (libyaml and cmark alone; the first cold build's files written again, with no work)")
            let firstDist = "\(root)/dist-cold-\(options.previews ? "preview" : "no-preview")/\(site.name)"
            let markdown = (0..<site.pageCount).flatMap { page in site.locales.map { site.markdown(page, locale: $0) } }
            result.floor = try Floor.measure(
                copying: firstDist, pages: pagesRoot, markdown: markdown,
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
        if let error = cold.diagnostics.first(where: \.isError) { result.problems.append("in-process build: \(error)") }
        let edited = site.sourcePath(pagesRoot: pagesRoot, page: 0)
        try BenchWatcher.saveAtomically(edited, site.pageSource(0, heroTitle: "Stage breakdown edit"))
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
        for previews in options.previews ? [true, false] : [false] {
            let mode = previews ? "preview" : "no-preview"
            let label = "\(result.label) quire watch\(previews ? "" : " --no-preview")"
            progress("\(label): starting")
            result.watchRuns.append(
                try BenchWatchRun.measure(
                    site, pagesRoot: pagesRoot, dist: "\(root)/dist-watch-\(mode)", log: "\(root)/watch-\(mode).log",
                    previews: previews, options: options, progress: { progress("\(label): \($0)") }))
        }
    }

    // MARK: Conditions

    /// The 1, 5 and 15 minute load averages: the machine is shared, so a figure comes with them.
    static var loadAverage: String {
        ((try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8)) ?? "").split(separator: " ").prefix(3).joined(separator: " ")
    }

    private func conditions(out: String, cpuAtStart: BenchMachineCPU?, loadAtStart: String) -> JSONValue {
        var name = utsname()
        uname(&name)
        let kernel = withUnsafeBytes(of: &name.release) { String(decoding: $0.prefix(while: { $0 != 0 }), as: UTF8.self) }
        let cpuInfo = (try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)) ?? ""
        let model =
            cpuInfo.split(separator: "\n").first(where: { $0.hasPrefix("model name") })?
            .split(separator: ":", maxSplits: 1).last?.trimmingCharacters(in: .whitespaces) ?? "unknown"
        let fileSystem = BenchProcess.output("/usr/bin/stat", ["-f", "-c", "%T", out]) ?? "unknown"
        let formatter = ISO8601DateFormatter()
        // Millions of cached inodes (a machine that made and removed many trees) made each file
        // creation here about twice as slow (bench/RESULTS.md), so the count is a condition.
        let cachedInodes = ((try? String(contentsOfFile: "/proc/sys/fs/inode-nr", encoding: .utf8)) ?? "")
            .split(whereSeparator: \.isWhitespace).first.flatMap { Int($0) }
        let stolen = cpuAtStart.flatMap { start in BenchMachineCPU.now?.stolenPercent(since: start) }
        return .object(
            JSONObject([
                ("date", .string(formatter.string(from: Date()))),
                ("cpu", .string(model)),
                ("cores", .integer(ProcessInfo.processInfo.activeProcessorCount)),
                ("memory_gib", BenchFormat.number(Double(ProcessInfo.processInfo.physicalMemory) / 1_073_741_824)),
                ("kernel", .string(kernel)),
                ("load_average_at_start", .string(loadAtStart)),
                ("load_average_at_end", .string(Self.loadAverage)),
                ("cached_inodes_at_end", cachedInodes.map { .integer($0) } ?? .null),
                ("cpu_stolen_by_host_percent", BenchFormat.number(stolen)),
                ("file_system", .string(fileSystem)),
                ("folder", .string(out)),
                ("sync", .string("the store's: one syncfs per published version, no fsync per file")),
                ("allocator", .string(Allocator.name)),
                ("previews", .string(options.previews ? "on (the default), then off" : "off")),
                ("page_cache", .string("warm: sources were just written")),
                ("locales", .integer(options.locales)),
                ("sections_per_page", .integer(options.sections)),
                ("markdown_bytes", .integer(options.markdownBytes)),
                ("saves", .integer(options.saves)),
                ("save_gaps_ms", .array(options.saveGaps.map { BenchFormat.number($0 * 1000) })),
                ("keep_versions", options.keepVersions > 0 ? .integer(options.keepVersions) : .null),
                ("save_method", .string("write a hidden temp file, rename it over the page source")),
                ("quire", .string(BenchProcess.quireExecutable)),
            ]))
    }
}
