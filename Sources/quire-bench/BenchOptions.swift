import Foundation
import QuireCommandLine

/// The options of `quire-bench`, read against its option tables (`spec`). The defaults are this
/// struct's initial values: the tables print them.
struct BenchOptions {
    var sizes: [Int] = [100, 10_000]
    var locales = 3
    var saves = 100
    /// `watch-restart`: saves made through the first watcher, one a second, before it stops.
    var history = 0
    var layouts: [SyntheticSite.Layout] = [.flat, .nested]
    var sections = 4
    var markdownBytes = 3000
    var translationFiles: SyntheticSite.TranslationFiles = .yaml
    var burst = 1000
    var seed: UInt64 = 2024
    /// One series of saves per gap, in order: the pause after a save is read back published
    /// before the next one is written. 1 s is an editor's pace (the watcher is idle again);
    /// 0 is back to back: the next save is written the moment the previous one is read back.
    var saveGaps: [Double] = [1, 0]
    /// `keep:` in the generated site.yaml (0: none). Every version a one-folder site publishes
    /// takes an inode per entry on tmpfs; without it a long run there runs out of inodes.
    var keepVersions = 5
    /// Most seconds the saves of one size may take; the loop stops there and says so.
    var saveBudget: Double = 600
    var out: String?
    var format: OutputFormat = .text
    /// Cold builds and the watcher with previews (the default), then without, unless
    /// `--no-preview`: then only without.
    var previews = true
    var watch = true
    var keepFiles = false
    var port = 1313
    var subcommand: String?

    init() {}

    init(_ given: Arguments) throws(UsageError) {
        // One struct for every subcommand: an option a subcommand does not take keeps its default.
        let arguments = given.sharedByCommands()
        subcommand = arguments.subcommand
        if let extra = arguments.positionals.first {
            throw UsageError("\(arguments.spec.invocation) takes no operands, found '\(extra)'", spec: arguments.spec)
        }
        format = try arguments.format()
        if let text = arguments.value(.pagesCount) {
            let parsed = text.split(separator: ",").map {
                Int($0.trimmingCharacters(in: .whitespaces).replacingOccurrences(of: "_", with: ""))
            }
            guard !parsed.isEmpty, parsed.allSatisfy({ ($0 ?? 0) >= 2 }) else {
                throw UsageError("--pages-count must be page counts of at least 2 separated by commas, like 100,10000; found '\(text)'")
            }
            sizes = parsed.compactMap { $0 }
        }
        locales = try Self.integer(arguments, .locales, minimum: 1) ?? locales
        saves = try Self.integer(arguments, .saves, minimum: 1) ?? saves
        history = try Self.integer(arguments, .history, minimum: 0) ?? history
        sections = try Self.integer(arguments, .sections, minimum: 1) ?? sections
        markdownBytes = try Self.integer(arguments, .markdownBytes, minimum: 1) ?? markdownBytes
        burst = try Self.integer(arguments, .burst, minimum: 0) ?? burst
        port = try Self.integer(arguments, .port, minimum: 1) ?? port
        keepVersions = try Self.integer(arguments, .keepVersions, minimum: 0) ?? keepVersions
        if let text = arguments.value(.seed) {
            guard let value = UInt64(text) else { throw UsageError("--seed must be a whole number, found '\(text)'") }
            seed = value
        }
        if let text = arguments.value(.saveBudget) {
            guard let value = Double(text.hasSuffix("s") ? String(text.dropLast()) : text), value > 0 else {
                throw UsageError("--save-budget must be seconds, like 600s, found '\(text)'")
            }
            saveBudget = value
        }
        if let text = arguments.value(.saveGap) {
            saveGaps = try Self.milliseconds(text, option: .saveGap)
            if subcommand != nil && saveGaps.count > 1 {
                throw UsageError("quire-bench \(subcommand ?? "") takes one --save-gap, found '\(text)'")
            }
        } else if subcommand != nil {
            saveGaps = [1]
        }
        switch arguments.value(.layout) ?? "both" {
        case "both": layouts = [.flat, .nested]
        case let name:
            guard let layout = SyntheticSite.Layout(rawValue: name) else {
                throw UsageError("--layout must be flat, nested or both, found '\(name)'")
            }
            layouts = [layout]
        }
        if let name = arguments.value(.translations) {
            guard let files = SyntheticSite.TranslationFiles(rawValue: name) else {
                throw UsageError("--translations must be yaml or po, found '\(name)'")
            }
            translationFiles = files
        }
        out = arguments.value(.out)
        previews = !arguments.flag(.noPreview)
        watch = !arguments.flag(.noWatch)
        keepFiles = arguments.flag(.keepFiles) || out != nil
    }

    /// "1000,0" or "1000ms,0ms" -> [1, 0] seconds.
    private static func milliseconds(_ text: String, option: OptionName) throws(UsageError) -> [Double] {
        let values = text.split(separator: ",").map { item -> Double? in
            let trimmed = item.trimmingCharacters(in: .whitespaces)
            return Double(trimmed.hasSuffix("ms") ? String(trimmed.dropLast(2)) : trimmed).flatMap { $0 >= 0 ? $0 / 1000 : nil }
        }
        guard !values.isEmpty, values.allSatisfy({ $0 != nil }) else {
            throw UsageError("\(option) must be milliseconds separated by commas, like 1000ms,0ms, found '\(text)'")
        }
        return values.compactMap { $0 }
    }

    /// A whole number option; given only (the struct holds the default).
    private static func integer(_ arguments: Arguments, _ name: OptionName, minimum: Int) throws(UsageError) -> Int? {
        guard arguments.isGiven(name), let text = arguments.value(name) else { return nil }
        guard let value = Int(text.replacingOccurrences(of: "_", with: "")), value >= minimum else {
            throw UsageError("\(name) must be a whole number of at least \(minimum), found '\(text)'")
        }
        return value
    }

    func site(pages: Int, layout: SyntheticSite.Layout) -> SyntheticSite {
        SyntheticSite(
            pageCount: pages, sectionsPerPage: sections, locales: SyntheticSite.locales(count: locales),
            layout: layout, markdownBytes: markdownBytes, seed: seed, keepVersions: keepVersions > 0 ? keepVersions : nil,
            translationFiles: translationFiles)
    }
}
