import Foundation
import QuireCommandLine
import QuireCore
import QuireModel

/// `quire build` publishes every site once; `quire check` validates without publishing.
struct BuildCommand {
    static let buildSpec = CommandSpec(
        "build", abstract: "Validate, localize, render and publish every site once.",
        options: [.pages, .dist, .everySite, .format, .noPreview, .timings, .lockTimeout(30)],
        example: "quire build --pages pages --dist /srv/quire --site shop")
    static let checkSpec = CommandSpec(
        "check", abstract: "Validate every site without publishing (for pre-commit hooks and CI).",
        options: [.pages, .everySite, .format, .noPreview, .timings],
        example: "quire check --site shop --format json")

    var arguments: Arguments
    var publish: Bool

    func run() throws -> ExitCode {
        let format = try arguments.format()
        let folders = try Sites.folders(pages: arguments.pages, only: arguments.site)
        let sites = folders.names
        if sites.isEmpty { Console.shared.error("quire: warning: no sites in \(arguments.pages)/ (one folder per site)") }
        // A folder left out is a problem in the content, like a page that does not validate.
        var worst = folders.refused.isEmpty ? ExitCode.ok : .contentProblems
        var reports: [JSONValue] = []
        for site in sites {
            var options = BuildOptions()
            options.publish = publish
            options.previews = !arguments.flag(.noPreview)
            options.keepsSources = false
            options.faults = testFaults
            // Reproducible builds: the build's time (schedules, when a page was first listed) from
            // the environment, as other build tools take it.
            if let epoch = ProcessInfo.processInfo.environment["SOURCE_DATE_EPOCH"].flatMap(Int.init) {
                options.now = { Date(timeIntervalSince1970: Double(epoch)) }
            }
            if publish { options.lockTimeout = try arguments.seconds(.lockTimeout) ?? options.lockTimeout }
            options.log = { Console.shared.error("quire: \($0)") }
            options.progress = { Console.shared.progress(site, done: $0, total: $1) }
            // `quire check` publishes nothing, so it takes no --dist and the builder never opens one.
            let builder = SiteBuilder(site: site, pagesRoot: arguments.pages, distRoot: publish ? arguments.dist : "", options: options)
            let result = builder.build()
            // The last site's builder is kept until the process exits, which frees it at once:
            // letting go of a large site's inventory here costs tens of milliseconds for nothing.
            // Earlier sites' are freed as usual, so memory does not grow with the sites.
            if site == sites.last { _ = Unmanaged.passRetained(builder) }
            worst = max(worst, Self.report(result, format: format, publishing: publish))
            if publish && result.outcome != nil, let replicas = result.replicas, !replicas.isEmpty {
                worst = max(worst, Replicas.push(site: site, dist: arguments.dist, to: replicas))
            }
            if arguments.flag(.timings) { Self.reportStages(result) }
            reports.append(Self.json(result))
        }
        if format == .json { Console.shared.json(["sites": .array(reports)]) }
        return worst
    }

    /// Prints one site's outcome; returns the exit code it deserves.
    static func report(_ result: SiteBuildResult, format: OutputFormat, publishing: Bool) -> ExitCode {
        if format == .text { for diagnostic in result.diagnostics { Console.shared.diagnostic(diagnostic) } }
        if let failure = result.operationalError {
            Console.shared.error("quire: error: \(result.site): \(failure)")
            return .operational
        }
        let errors = result.diagnostics.filter(\.isError).count
        let warnings = result.diagnostics.count - errors
        let time = String(format: "%.0f ms", result.seconds * 1000)
        let counts = "\(errors) error\(errors == 1 ? "" : "s"), \(warnings) warning\(warnings == 1 ? "" : "s")"
        switch result.outcome {
        case .published(let version, let isCurrent):
            let comeAndGone = [(result.pagesAdded.count, "added"), (result.pagesRemoved.count, "removed")].filter { $0.0 > 0 }
                .map { "\(pages($0.0)) \($0.1), " }.joined()
            Console.shared.error(
                "quire: \(result.site): published \(version)\(isCurrent ? "" : " (site pinned: current unchanged)"), \(comeAndGone)\(pages(result.pagesRebuilt.count)) rebuilt, \(result.filesRendered) files rendered, \(time); \(counts)"
            )
        case .unchanged(let version):
            Console.shared.error("quire: \(result.site): no changes (newest is \(version)), \(time); \(counts)")
        case nil where result.isHeld:
            Console.shared.error(
                "quire: \(result.site): \(pages(result.pagesRebuilt.count)) rendered so far while files are still being written; published when they stop, \(time)"
            )
        case nil:
            Console.shared.error(
                "quire: \(result.site): \(publishing ? "nothing published" : "checked \(pages(result.pagesTotal))"), \(time); \(counts)")
        }
        return errors > 0 ? .contentProblems : .ok
    }

    /// "1 page", "3 pages".
    static func pages(_ count: Int) -> String { "\(count) page\(count == 1 ? "" : "s")" }

    /// `--timings`: where a build's time went, per stage (summed over worker threads, so the
    /// stages of a parallel build add up to more than its wall time).
    static func reportStages(_ result: SiteBuildResult) {
        let stages = result.stageMilliseconds.filter { $0.ms >= 0.05 }
            .map { "\($0.stage) " + String(format: "%.1f", $0.ms) }
        Console.shared.error("quire: \(result.site): stages (ms): \(stages.joined(separator: ", "))")
    }

    static func json(_ result: SiteBuildResult) -> JSONValue {
        var object = JSONObject()
        object["site"] = .string(result.site)
        switch result.outcome {
        case .published(let version, let isCurrent):
            object["published"] = .string(version.description)
            object["current_moved"] = .bool(isCurrent)
        case .unchanged(let version): object["unchanged"] = .string(version.description)
        case nil: break
        }
        object["pages_rebuilt"] = .array(result.pagesRebuilt.map { .string($0) })
        object["pages_added"] = .array(result.pagesAdded.map { .string($0) })
        object["pages_removed"] = .array(result.pagesRemoved.map { .string($0) })
        object["files_rendered"] = .integer(result.filesRendered)
        object["seconds"] = .number(result.seconds)
        if let failure = result.operationalError { object["operational_error"] = .string(failure) }
        object["diagnostics"] = .array(result.diagnostics.map(\.json))
        object["coverage"] = .array(result.coverage.map(\.json))
        return .object(object)
    }
}
