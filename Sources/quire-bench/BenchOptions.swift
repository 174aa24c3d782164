import Foundation
import QuireCommandLine

/// The options of `quire-bench`, read against its option tables (`spec`). The defaults are this
/// struct's initial values: the tables print them.
struct BenchOptions {
    var sizes: [Int] = [100, 10_000]
    var locales = 3
    var saves = 200
    var layouts: [SyntheticSite.Layout] = [.flat, .nested]
    var sections = 4
    var markdownBytes = 3000
    var burst = 1000
    var seed: UInt64 = 2024
    /// Pause after each save is live, so the next one lands on an idle watcher.
    var saveGap = 0.05
    /// Most seconds the saves of one size may take; the loop stops there and says so.
    var saveBudget: Double = 600
    var out: String?
    var format: OutputFormat = .text
    /// Cold builds with and without previews unless `--no-preview`; the watcher with previews.
    var previews = true
    var watch = true
    var keepFiles = false
    var port = 1313
    var subcommand: String?

    init() {}

    init(_ arguments: Arguments) throws(UsageError) {
        subcommand = arguments.subcommand
        if let extra = arguments.positionals.first {
            throw UsageError("\(arguments.spec.invocation) takes no operands, found '\(extra)'", spec: arguments.spec)
        }
        format = try arguments.format()
        if let text = arguments.option("pages-count") {
            let parsed = text.split(separator: ",").map {
                Int($0.trimmingCharacters(in: .whitespaces).replacingOccurrences(of: "_", with: ""))
            }
            guard !parsed.isEmpty, parsed.allSatisfy({ ($0 ?? 0) >= 2 }) else {
                throw UsageError("--pages-count must be page counts of at least 2 separated by commas, like 100,10000; found '\(text)'")
            }
            sizes = parsed.compactMap { $0 }
        }
        locales = try Self.integer(arguments, "locales", minimum: 1) ?? locales
        saves = try Self.integer(arguments, "saves", minimum: 1) ?? saves
        sections = try Self.integer(arguments, "sections", minimum: 1) ?? sections
        markdownBytes = try Self.integer(arguments, "markdown-bytes", minimum: 1) ?? markdownBytes
        burst = try Self.integer(arguments, "burst", minimum: 0) ?? burst
        port = try Self.integer(arguments, "port", minimum: 1) ?? port
        if let text = arguments.option("seed") {
            guard let value = UInt64(text) else { throw UsageError("--seed must be a whole number, found '\(text)'") }
            seed = value
        }
        if let text = arguments.option("save-budget") {
            guard let value = Double(text.hasSuffix("s") ? String(text.dropLast()) : text), value > 0 else {
                throw UsageError("--save-budget must be seconds, like 600s, found '\(text)'")
            }
            saveBudget = value
        }
        if let text = arguments.option("save-gap") {
            guard let value = Double(text.hasSuffix("ms") ? String(text.dropLast(2)) : text), value >= 0 else {
                throw UsageError("--save-gap must be milliseconds, like 50ms, found '\(text)'")
            }
            saveGap = value / 1000
        }
        switch arguments.option("layout") ?? "both" {
        case "both": layouts = [.flat, .nested]
        case let name:
            guard let layout = SyntheticSite.Layout(rawValue: name) else {
                throw UsageError("--layout must be flat, nested or both, found '\(name)'")
            }
            layouts = [layout]
        }
        out = arguments.option("out")
        previews = !arguments.flag("no-preview")
        watch = !arguments.flag("no-watch")
        keepFiles = arguments.flag("keep-files") || out != nil
    }

    /// A whole number option; given only (the struct holds the default).
    private static func integer(_ arguments: Arguments, _ name: String, minimum: Int) throws(UsageError) -> Int? {
        guard arguments.isGiven(name), let text = arguments.option(name) else { return nil }
        guard let value = Int(text.replacingOccurrences(of: "_", with: "")), value >= minimum else {
            throw UsageError("--\(name) must be a whole number of at least \(minimum), found '\(text)'")
        }
        return value
    }

    func site(pages: Int, layout: SyntheticSite.Layout) -> SyntheticSite {
        SyntheticSite(
            pageCount: pages, sectionsPerPage: sections, locales: SyntheticSite.locales(count: locales),
            layout: layout, markdownBytes: markdownBytes, seed: seed)
    }
}
