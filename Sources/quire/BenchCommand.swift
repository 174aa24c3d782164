import Foundation
import QuireCore
import QuireModel

/// `quire bench`: generates synthetic sites and measures, from outside the measured process,
/// cold builds (`quire build` as a child: wall time, pages/s, peak RSS), save→published latency
/// through a real `quire watch`, a burst of saves, and the per-stage time of one build.
///
///   quire bench [--pages-count 100,10000] [--locales 3] [--saves 200] [--layout flat|nested|both]
///               [--sections 4] [--markdown-bytes 3000] [--burst 1000] [--save-gap 50ms]
///               [--no-preview] [--no-watch] [--out DIR] [--keep-files] [--format text|json]
///   quire bench generate --out DIR [--pages-count N] [--layout flat|nested]   (pages/ and hugo/)
///   quire bench watch-edits --out DIR [--pages-count N] [--saves 20]       (on a generated DIR)
///   quire bench hugo-edits --out DIR [--pages-count N] [--saves 20] [--port 1313]
struct BenchCommand {
    static let abstract = "Measure build and publish speed on generated sites."

    var raw: [String]

    init(arguments: [String]) { raw = arguments }

    func run() throws -> ExitCode {
        let options = try BenchOptions(raw)
        do {
            switch options.subcommand {
            case nil: return try BenchRun(options: options).run()
            case "generate": return try generate(options)
            case "watch-edits": return try watchEdits(options)
            case "hugo-edits": return try hugoEdits(options)
            case let other?: throw UsageError("unknown bench subcommand '\(other)': use generate, watch-edits or hugo-edits")
            }
        } catch let error as BenchError {
            throw CommandFailure(.operational, "bench: \(error.description)")
        }
    }

    /// The folder a subcommand works in: `--out`, required.
    private func folder(_ options: BenchOptions) throws -> String {
        guard let out = options.out else { throw UsageError("bench \(options.subcommand ?? ""): give the folder with --out DIR") }
        return out
    }

    private func generate(_ options: BenchOptions) throws -> ExitCode {
        let out = try folder(options)
        let site = options.site(pages: options.sizes[0], layout: options.layouts[0])
        let started = BenchClock.now
        let bytes = try site.write(pagesRoot: "\(out)/pages")
        try site.writeHugo(root: "\(out)/hugo")
        let seconds = Double(BenchClock.now - started) / 1e9
        let report: JSONValue = ["pages": .string("\(out)/pages"), "hugo": .string("\(out)/hugo"), "site": .string(site.name),
                                 "page_count": .integer(site.pageCount), "locales": .array(site.locales.map { .string($0) }),
                                 "layout": .string(site.layout.rawValue), "source_bytes": .integer(bytes), "seconds": BenchFormat.number(seconds)]
        if options.format == .json {
            Console.shared.json(report)
        } else {
            Console.shared.out("generated \(site.pageCount) pages x \(site.locales.count) locales (\(site.layout.rawValue)) in \(out)/pages and \(out)/hugo, \(bytes / 1024) KiB of sources, \(BenchFormat.text(seconds, decimals: 2)) s")
        }
        return .ok
    }

    private func watchEdits(_ options: BenchOptions) throws -> ExitCode {
        let out = try folder(options)
        let site = options.site(pages: options.sizes[0], layout: options.layouts[0])
        let dist = "\(out)/dist-watch"
        var leftovers = BenchLeftovers()
        leftovers.moveAside(dist)
        defer { leftovers.removeAll() }
        let session = try BenchWatchSession(site: site, pagesRoot: "\(out)/pages", distRoot: dist, previews: options.previews, log: "\(out)/watch.log")
        defer { _ = session.stop() }
        try session.waitForFirstPublish(timeout: 900)
        let latency = try session.measureSaves(count: options.saves, gap: options.saveGap)
        let report: JSONValue = ["tool": "quire watch", "initial_publish_s": BenchFormat.number(session.initialPublishSeconds),
                                  "settled_s": BenchFormat.number(session.settleSeconds), "latency": latency.json]
        if options.format == .json { Console.shared.json(report) } else { Console.shared.out(JSONWriter(pretty: true).string(report)) }
        return .ok
    }

    private func hugoEdits(_ options: BenchOptions) throws -> ExitCode {
        let out = try folder(options)
        let site = options.site(pages: options.sizes[0], layout: options.layouts[0])
        let output = "\(out)/hugo-server-public"
        var leftovers = BenchLeftovers()
        leftovers.moveAside(output)
        defer { leftovers.removeAll() }
        let session = try BenchHugoSession(site: site, hugoRoot: "\(out)/hugo", output: output, port: options.port, log: "\(out)/hugo-server.log")
        defer { _ = session.stop() }
        try session.waitForFirstRender(timeout: 900)
        let latency = try session.measureEdits(count: options.saves, gap: max(options.saveGap, 0.2))
        let report: JSONValue = ["tool": "hugo server --renderToDisk", "initial_render_s": BenchFormat.number(session.initialRenderSeconds), "latency": latency.json]
        if options.format == .json { Console.shared.json(report) } else { Console.shared.out(JSONWriter(pretty: true).string(report)) }
        return .ok
    }
}
