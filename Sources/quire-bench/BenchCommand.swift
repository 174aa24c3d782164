import Foundation
import QuireCommandLine
import QuireCore
import QuireModel

/// `quire-bench`: generates synthetic sites and measures, from outside the measured process,
/// cold builds (`quire build` as a child: wall time, pages/s, peak RSS), save→published latency
/// through a real `quire watch`, a burst of saves, and the per-stage time of one build. The
/// subcommands are the steps `bench/compare-hugo.sh` runs one at a time.
struct BenchCommand {
    /// The generated site's shape: every subcommand takes these, so each can rebuild the model
    /// of a site an earlier step generated.
    private static func generatorOptions(layouts: String, layoutDefault: String) -> [OptionSpec] {
        let standard = BenchOptions()
        return [
            OptionSpec(
                .pagesCount, "N,...", unit: "pages", default: standard.sizes.map(String.init).joined(separator: ","),
                help: "site sizes, one run each (the subcommands take the first)"),
            OptionSpec(.layout, layouts, default: layoutDefault, help: "page ids all in one folder, or in folders of 100"),
            OptionSpec(.locales, "N", unit: "locales", default: "\(standard.locales)", help: "en plus N-1 translated locales"),
            OptionSpec(.sections, "N", unit: "sections", default: "\(standard.sections)", help: "sections a page"),
            OptionSpec(.markdownBytes, "N", unit: "bytes", default: "\(standard.markdownBytes)", help: "markdown a page"),
            OptionSpec(
                .translations, SyntheticSite.TranslationFiles.allCases.map(\.rawValue).joined(separator: "|"),
                default: standard.translationFiles.rawValue, help: "the translation files' format"),
            OptionSpec(.seed, "N", default: "\(standard.seed)", help: "the generator's seed: output is a function of the options and it"),
            OptionSpec(
                .keepVersions, "N", unit: "versions", default: "\(standard.keepVersions)",
                help: "keep: N in site.yaml, so a long run on tmpfs keeps its inodes; 0 writes no keep:"),
        ]
    }

    private static let format = OptionSpec(.format, "text|json", default: "text", help: "tables on stdout, or one JSON document")

    /// `gaps`: the default, a list for the whole run, one gap for a subcommand.
    private static func saveOptions(gaps: String) -> [OptionSpec] {
        [
            OptionSpec(.saves, "N", unit: "saves", default: "\(BenchOptions().saves)", help: "single saves measured through the watcher"),
            OptionSpec(
                .saveGap, "MS,...", unit: "milliseconds", default: gaps,
                help: "wait after a save is read back published; one series each; 0: the next save at once (back to back)"),
        ]
    }

    private static let out = OptionSpec(.out, "DIR", absent: .required, help: "the folder with pages/ and hugo/")

    static let spec = CommandSpec(
        program: "quire-bench", "", abstract: "Measure build and publish speed on generated sites.",
        options: generatorOptions(layouts: "flat|nested|both", layoutDefault: "both") + saveOptions(gaps: "1000,0") + [
            OptionSpec(
                .saveBudget, "SECONDS", unit: "seconds", default: "\(Int(BenchOptions().saveBudget))",
                help: "most time the saves of one size may take"),
            OptionSpec(
                .burst, "N", unit: "files", default: "\(BenchOptions().burst)",
                help: "files written at once for each of the two bursts; 0 skips them"),
            .flag(.noPreview, help: "build and watch only without HTML previews (else with, the default, then without)"),
            .flag(.noWatch, help: "skip the watcher's measures"),
            OptionSpec(
                .out, "DIR", absent: .meaning("a fresh folder in bench/out/ or the current folder, removed after"),
                help: "where sites and dist/ folders go; kept when given"),
            .flag(.keepFiles, help: "keep the generated sites, dist/ folders and logs"),
            format,
        ],
        example: "quire-bench --pages-count 1000 --saves 50 --burst 300 --layout flat",
        subcommands: [
            CommandSpec(
                program: "quire-bench", "generate",
                abstract: "Write a site to DIR/pages/bench/ and the same content as a Hugo site to DIR/hugo/.",
                options: [out] + generatorOptions(layouts: "flat|nested", layoutDefault: "flat") + [format],
                example: "quire-bench generate --out /tmp/g --pages-count 10000 --layout nested"),
            CommandSpec(
                program: "quire-bench", "watch-edits", abstract: "Run quire watch on a generated DIR/pages and measure saves.",
                options: [out] + generatorOptions(layouts: "flat|nested", layoutDefault: "flat") + saveOptions(gaps: "1000") + [
                    .flag(.noPreview, help: "watch without HTML previews"), format,
                ],
                example: "quire-bench watch-edits --out /tmp/g --pages-count 10000 --layout nested --saves 60"),
            CommandSpec(
                program: "quire-bench", "watch-restart",
                abstract: "Publish a generated DIR/pages cold, edit a page, restart quire watch on it and measure its catch-up.",
                options: [out] + generatorOptions(layouts: "flat|nested", layoutDefault: "flat") + saveOptions(gaps: "1000") + [
                    OptionSpec(
                        .history, "N", unit: "saves", default: "\(BenchOptions().history)",
                        help: "saves the first watcher makes before it is stopped (a store with history, as a site in use has)"),
                    .flag(.noPreview, help: "build and watch without HTML previews"), format,
                ],
                example: "quire-bench watch-restart --out /tmp/g --pages-count 10000 --saves 30 --save-gap 100"),
            CommandSpec(
                program: "quire-bench", "feed-saves",
                abstract: "Watch a site with a feed of every page (DIR/pages-feed): time saves, count feed and index files written.",
                options: [out] + generatorOptions(layouts: "flat|nested", layoutDefault: "flat") + saveOptions(gaps: "1000") + [
                    .flag(.noPreview, help: "watch without HTML previews"), format,
                ],
                example: "quire-bench feed-saves --out /tmp/g --pages-count 10000 --saves 60"),
            CommandSpec(
                program: "quire-bench", "hugo-edits", abstract: "Run hugo server --renderToDisk on a generated DIR/hugo and measure edits.",
                options: [out] + generatorOptions(layouts: "flat|nested", layoutDefault: "flat") + saveOptions(gaps: "1000") + [
                    OptionSpec(.port, "PORT", default: "\(BenchOptions().port)", help: "hugo server's port"), format,
                ],
                example: "quire-bench hugo-edits --out /tmp/g --pages-count 10000 --layout nested --saves 60"),
            CommandSpec(
                program: "quire-bench", "draft-checks",
                abstract: "Ask the dashboard's service to check and render drafts of a generated DIR/pages, and to list its pages.",
                options: [out] + generatorOptions(layouts: "flat|nested", layoutDefault: "flat") + [
                    OptionSpec(
                        .saves, "N", unit: "checks", default: "\(BenchOptions().saves)", help: "drafts checked, each of another page"),
                    format,
                ],
                example: "quire-bench draft-checks --out /tmp/g --pages-count 10000 --saves 200"),
        ])

    var options: BenchOptions

    func run() throws -> ExitCode {
        do {
            switch options.subcommand {
            case nil: return try BenchRun(options: options).run()
            case "generate": return try generate(options)
            case "watch-edits": return try watchEdits(options)
            case "hugo-edits": return try hugoEdits(options)
            case "watch-restart":
                let (out, site) = try generated(options)
                let run = try BenchRestart.measure(site, out: out, options: options) { Console.shared.error("quire-bench: \($0)") }
                return show(run.json, options)
            case "draft-checks": return try draftChecks(options)
            case "feed-saves":
                let out = try folder(options)
                let site = options.site(pages: options.sizes[0], layout: options.layouts[0])
                let report = try BenchFeedSaves.measure(site, out: out, options: options) { Console.shared.error("quire-bench: \($0)") }
                return show(report, options)
            case let other?:
                throw UsageError(
                    "unknown subcommand '\(other)': use generate, watch-edits, watch-restart, feed-saves, hugo-edits or draft-checks",
                    spec: Self.spec)
            }
        } catch let error as BenchError {
            throw CommandFailure(.operational, error.description)
        }
    }

    /// The folder a subcommand works in: `--out`, required.
    private func folder(_ options: BenchOptions) throws -> String {
        guard let out = options.out else { throw UsageError("quire-bench \(options.subcommand ?? ""): give the folder with --out DIR") }
        return out
    }

    /// `--out` and its site, generated first (as `generate` does) when `--out` holds none yet.
    private func generated(_ options: BenchOptions) throws -> (out: String, site: SyntheticSite) {
        let out = try folder(options)
        let site = options.site(pages: options.sizes[0], layout: options.layouts[0])
        if !FileManager.default.fileExists(atPath: "\(out)/pages/\(site.name)/site.yaml") {
            Console.shared.error("quire-bench: generating \(site.pageCount) pages (\(site.layout.rawValue)) in \(out)")
            _ = try site.write(pagesRoot: "\(out)/pages")
            try site.writeHugo(root: "\(out)/hugo")
        }
        return (out, site)
    }

    private func generate(_ options: BenchOptions) throws -> ExitCode {
        let out = try folder(options)
        let site = options.site(pages: options.sizes[0], layout: options.layouts[0])
        let started = BenchClock.now
        let bytes = try site.write(pagesRoot: "\(out)/pages")
        try site.writeHugo(root: "\(out)/hugo")
        let seconds = Double(BenchClock.now - started) / 1e9
        let report: JSONValue = [
            "pages": .string("\(out)/pages"), "hugo": .string("\(out)/hugo"), "site": .string(site.name),
            "page_count": .integer(site.pageCount), "locales": .array(site.locales.map { .string($0) }),
            "layout": .string(site.layout.rawValue), "source_bytes": .integer(bytes), "seconds": BenchFormat.number(seconds),
        ]
        if options.format == .json {
            Console.shared.json(report)
        } else {
            Console.shared.out(
                "generated \(site.pageCount) pages x \(site.locales.count) locales (\(site.layout.rawValue)) in \(out)/pages and \(out)/hugo, \(bytes / 1024) KiB of sources, \(BenchFormat.text(seconds, decimals: 2)) s"
            )
        }
        return .ok
    }

    private func watchEdits(_ options: BenchOptions) throws -> ExitCode {
        let (out, site) = try generated(options)
        let dist = "\(out)/dist-watch"
        var leftovers = BenchLeftovers()
        leftovers.makeWay(forOutput: dist)
        defer { leftovers.removeAll() }
        let watcher = try BenchWatcher(
            site: site, pagesRoot: "\(out)/pages", distRoot: dist, previews: options.previews, log: "\(out)/watch.log")
        defer { _ = watcher.stop() }
        try watcher.waitForFirstPublish(timeout: 900)
        let latency = try watcher.measureSaves(count: options.saves, gap: options.saveGaps[0])
        let resident = watcher.process.residentKilobytes
        let peak = watcher.stop().peakRSSKilobytes
        let report: JSONValue = [
            "tool": "quire watch", "initial_publish_s": BenchFormat.number(watcher.initialPublishSeconds),
            "settled_s": BenchFormat.number(watcher.settleSeconds), "save_gap_ms": BenchFormat.number(options.saveGaps[0] * 1000),
            "peak_rss_mib": BenchFormat.number(BenchFormat.mebibytes(peak)),
            "rss_at_end_mib": BenchFormat.number(BenchFormat.mebibytes(resident)), "latency": latency.json,
        ]
        return show(report, options)
    }

    private func hugoEdits(_ options: BenchOptions) throws -> ExitCode {
        let (out, site) = try generated(options)
        let output = "\(out)/hugo-server-public"
        var leftovers = BenchLeftovers()
        leftovers.moveAside(output)
        defer { leftovers.removeAll() }
        let server = try BenchHugoServer(
            site: site, hugoRoot: "\(out)/hugo", output: output, port: options.port, log: "\(out)/hugo-server.log")
        defer { _ = server.stop() }
        try server.waitForFirstRender(timeout: 900)
        let latency = try server.measureEdits(count: options.saves, gap: max(options.saveGaps[0], 0.2))
        let report: JSONValue = [
            "tool": "hugo server --renderToDisk", "initial_render_s": BenchFormat.number(server.initialRenderSeconds),
            "peak_rss_mib": BenchFormat.number(BenchFormat.mebibytes(server.process.peakRSSKilobytes)),
            "rss_at_end_mib": BenchFormat.number(BenchFormat.mebibytes(server.process.residentKilobytes)), "latency": latency.json,
        ]
        return show(report, options)
    }

    private func draftChecks(_ options: BenchOptions) throws -> ExitCode {
        let out = try folder(options)
        let site = options.site(pages: options.sizes[0], layout: options.layouts[0])
        return show(try BenchDraftChecks(site: site, pagesRoot: "\(out)/pages", count: options.saves).run(), options)
    }

    /// An edit run's figures: one JSON document, compact for `--format json`, else indented.
    private func show(_ report: JSONValue, _ options: BenchOptions) -> ExitCode {
        if options.format == .json { Console.shared.json(report) } else { Console.shared.out(JSONWriter(pretty: true).string(report)) }
        return .ok
    }
}

extension OptionName {
    static let pagesCount = OptionName("pages-count")
    static let layout = OptionName("layout")
    static let locales = OptionName("locales")
    static let sections = OptionName("sections")
    static let markdownBytes = OptionName("markdown-bytes")
    static let translations = OptionName("translations")
    static let seed = OptionName("seed")
    static let keepVersions = OptionName("keep-versions")
    static let saves = OptionName("saves")
    static let history = OptionName("history")
    static let saveGap = OptionName("save-gap")
    static let saveBudget = OptionName("save-budget")
    static let burst = OptionName("burst")
    static let port = OptionName("port")
}

extension FlagName {
    static let noWatch = FlagName("no-watch")
    static let keepFiles = FlagName("keep-files")
}
