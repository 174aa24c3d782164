import Foundation
import QuireCommandLine
import QuireCore
import QuireModel

/// `quire l10n export | import | status`: what localization teams need, without publishing.
/// The work is in `SiteTranslations` (QuireCore); this parses arguments, prints and exits.
struct L10nCommand {
    static let spec = CommandSpec(
        "l10n", abstract: "Translation export, import and status.", options: [], example: "",
        subcommands: [
            CommandSpec(
                "l10n export", abstract: "Write what a locale lacks as files for translators (one per page).",
                options: [
                    .oneSite, .pages, OptionSpec(.locale, "LOCALE", absent: .required, help: "the locale to translate into"),
                    OptionSpec(.format, "xliff12|xliff20|po|json", default: "xliff12", help: "the translation file format"),
                    OptionSpec(
                        .only, "STATES", default: "missing,stale,translated",
                        help: "which strings, comma-separated: missing, stale, translated"),
                    OptionSpec(.out, "DIR", absent: .meaning("l10n-export/SITE/LOCALE"), help: "where the files go"),
                ],
                example: "quire l10n export --site shop --locale fr --format po --only missing,stale"),
            CommandSpec(
                "l10n import", abstract: "Merge translated files into the site's l10n/ folder.",
                options: [
                    .oneSite, .pages,
                    OptionSpec(.locale, "LOCALE", absent: .meaning("the one the file names"), help: "the files' locale"),
                    .flag(.replace, help: "replace the page's translations instead of merging into them"),
                ],
                operands: "FILE...", example: "quire l10n import out/fr/*.po --site shop"),
            CommandSpec(
                "l10n status", abstract: "How much of each locale is translated, per site.",
                options: [.pages, .everySite, .format], example: "quire l10n status --format json"),
        ],
        runsAlone: false)

    var arguments: Arguments

    func run() throws -> ExitCode {
        let files = arguments.positionals
        switch arguments.subcommand {
        case "export":
            guard files.isEmpty else { throw UsageError("l10n export takes no files (got '\(files[0])')", spec: arguments.spec) }
            return try export()
        case "import":
            guard !files.isEmpty else { throw UsageError("l10n import needs the translated files: quire l10n import FILE... --site S") }
            return try importFiles(files)
        case "status":
            guard files.isEmpty else { throw UsageError("l10n status takes no operands (got '\(files[0])')", spec: arguments.spec) }
            return try status()
        default:
            throw UsageError("unknown l10n subcommand '\(arguments.subcommand ?? "")'", spec: Self.spec)
        }
    }

    // MARK: export

    private func export() throws -> ExitCode {
        let site = try requiredSite("export")
        guard let locale = arguments.value(.locale) else { throw UsageError("l10n export needs --locale L") }
        let formatName = arguments.value(.format) ?? "xliff12"
        guard let format = ExportFormat(rawValue: formatName) else {
            throw UsageError(
                "--format must be one of \(ExportFormat.allCases.map(\.rawValue).joined(separator: ", ")), not '\(formatName)'")
        }
        let states = try onlyStates()
        let translations = try load(site)
        guard translations.config.locales.contains(locale), locale != translations.config.defaultLocale else {
            let others = translations.config.locales.filter { $0 != translations.config.defaultLocale }
            throw UsageError(
                "'\(locale)' is not a locale to translate for site '\(site)' (its translated locales: \(others.joined(separator: ", ")))")
        }
        printProblems(translations.diagnostics)
        let out = arguments.value(.out) ?? "l10n-export/\(site)/\(locale)"
        var written = 0
        var counts: [ExportUnit.State: Int] = [:]
        for page in translations.pages {
            let units = translations.exportUnits(pageID: page.pageID, locale: locale).filter { states.contains($0.state) }
            guard !units.isEmpty else { continue }
            let bytes = TranslationFileWriter.write(
                units: units, pageID: page.pageID, sourceLocale: translations.config.defaultLocale, targetLocale: locale, format: format)
            let path = "\(out)/\(page.pageID).\(format.pathExtension)"
            do {
                try FileManager.default.createDirectory(
                    atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
                try Data(bytes).write(to: URL(fileURLWithPath: path), options: .atomic)
            } catch {
                throw CommandFailure(.operational, "cannot write \(path): \(error.localizedDescription)")
            }
            Console.shared.out(path)
            written += 1
            for unit in units { counts[unit.state, default: 0] += 1 }
        }
        let summary = ExportUnit.State.allCases.map { "\(counts[$0] ?? 0) \($0.rawValue)" }.joined(separator: ", ")
        Console.shared.error("quire: \(site) \(locale): wrote \(written) file\(written == 1 ? "" : "s") to \(out)/ (\(summary))")
        return translations.diagnostics.hasErrors ? .contentProblems : .ok
    }

    /// `--only missing,stale`: which states to export (default all).
    private func onlyStates() throws(UsageError) -> Set<ExportUnit.State> {
        guard let only = arguments.value(.only) else { return Set(ExportUnit.State.allCases) }
        var states: Set<ExportUnit.State> = []
        for name in only.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces) }) {
            switch name {
            case "missing", "new": states.insert(.new)
            case "stale", "fuzzy": states.insert(.stale)
            case "translated": states.insert(.translated)
            default: throw UsageError("--only takes missing, stale and translated, comma-separated, not '\(name)'")
            }
        }
        return states
    }

    // MARK: import

    private func importFiles(_ files: [String]) throws -> ExitCode {
        let site = try requiredSite("import")
        let translations = try load(site)
        var worst = ExitCode.ok
        for file in files {
            let result = translations.importFile(file, locale: arguments.value(.locale), replace: arguments.flag(.replace))
            for diagnostic in result.diagnostics { Console.shared.diagnostic(diagnostic) }
            if let destination = result.destination {
                Console.shared.error(
                    "quire: \(file): \(result.entries) translation\(result.entries == 1 ? "" : "s") of page '\(result.pageID ?? "?")' for \(result.locale ?? "?") imported to \(destination)"
                )
            } else {
                Console.shared.error("quire: \(file): not imported")
                if result.hasErrors { worst = .contentProblems }
            }
        }
        return worst
    }

    // MARK: status

    private func status() throws -> ExitCode {
        let format = try arguments.format()
        var worst = ExitCode.ok
        var reports: [JSONValue] = []
        var rows: [[String]] = [["site", "locale", "translated", "stale", "missing", "total", "percent", "fallback chain"]]
        for site in try Sites.names(pages: arguments.pages, only: arguments.site) {
            let status: SiteTranslations.Status
            do throws(SiteTranslations.LoadFailure) {
                status = try SiteTranslations.status(site: site, pagesRoot: arguments.pages)
            } catch {
                for diagnostic in error.diagnostics where diagnostic.isError { Console.shared.diagnostic(diagnostic) }
                Console.shared.error("quire: \(site): site settings have errors: no status")
                worst = .contentProblems
                continue
            }
            var locales: [JSONValue] = []
            for coverage in status.coverage {
                let chain = status.config.chain(for: coverage.locale)
                var object = coverage.json.objectValue ?? JSONObject()
                object["chain"] = .array(chain.map { .string($0) })
                object["default"] = .bool(coverage.locale == status.config.defaultLocale)
                locales.append(.object(object))
                rows.append([
                    site, coverage.locale, "\(coverage.translated)", "\(coverage.stale)", "\(coverage.missing)", "\(coverage.total)",
                    String(format: "%.1f%%", coverage.percent), chain.joined(separator: " -> "),
                ])
            }
            reports.append([
                "site": .string(site), "pages": .integer(status.pageCount), "errors": .integer(status.errorCount),
                "locales": .array(locales),
            ])
        }
        if format == .json {
            Console.shared.json(["sites": .array(reports)])
        } else {
            Console.shared.out(Self.table(rows))
        }
        return worst
    }

    /// Left-aligned text columns, right-aligned numbers.
    static func table(_ rows: [[String]]) -> String {
        guard let header = rows.first else { return "" }
        let widths = header.indices.map { column in rows.map { $0[column].count }.max() ?? 0 }
        let numeric: Set<Int> = [2, 3, 4, 5, 6]
        return rows.map { row in
            row.enumerated().map { column, cell in
                let padding = String(repeating: " ", count: widths[column] - cell.count)
                return numeric.contains(column) ? padding + cell : cell + padding
            }.joined(separator: "  ").trimmingCharacters(in: .whitespaces)
        }.joined(separator: "\n")
    }

    // MARK: shared

    private func requiredSite(_ subcommand: String) throws -> String {
        guard let site = arguments.site else { throw UsageError("l10n \(subcommand) needs --site NAME") }
        return try Sites.names(pages: arguments.pages, only: site)[0]
    }

    private func load(_ site: String) throws -> SiteTranslations {
        do throws(SiteTranslations.LoadFailure) {
            return try SiteTranslations.load(site: site, pagesRoot: arguments.pages)
        } catch {
            for diagnostic in error.diagnostics { Console.shared.diagnostic(diagnostic) }
            throw CommandFailure(.contentProblems, "\(site): site.yaml or the vocabulary has errors: fix them first (quire check)")
        }
    }

    /// Errors only: a translator does not need the site's warnings (quire check prints them).
    private func printProblems(_ diagnostics: [Diagnostic]) {
        for diagnostic in diagnostics where diagnostic.isError { Console.shared.diagnostic(diagnostic) }
    }
}

extension OptionName {
    fileprivate static let locale = OptionName("locale")
    fileprivate static let only = OptionName("only")
}

extension FlagName {
    fileprivate static let replace = FlagName("replace")
}
