import Foundation
import QuireCommandLine
import QuireCore
import QuireModel

/// The ops commands: `versions`, `diff`, `rollback`, `unpin`, `verify`, `gc`, `export`.
/// Each opens the site's store and calls one operation of it.
struct OperationsCommand {
    static let specs: [CommandSpec] = [
        CommandSpec(
            "versions", abstract: "List a site's versions.", options: [.oneSite, .dist, .format],
            example: "quire versions --site shop --format json"),
        CommandSpec(
            "diff", abstract: "Show what changed between two versions.", options: [.oneSite, .dist, .format],
            operands: "V1 V2", example: "quire diff --site shop v000011 v000012"),
        CommandSpec(
            "rollback", abstract: "Point current at an earlier version and pin it there.",
            options: [.oneSite, .dist, .pagesForReplicas, .reason, .lockTimeout(30)],
            operands: "[VERSION]", example: "quire rollback --site shop --reason 'broken banner' 11"),
        CommandSpec(
            "unpin", abstract: "Let the newest version go live again.",
            options: [.oneSite, .dist, .pagesForReplicas, .reason, .lockTimeout(30)], example: "quire unpin --site shop"),
        CommandSpec(
            "verify", abstract: "Re-hash a version against its manifest, or a folder quire export wrote.",
            options: [
                OptionSpec(
                    .site, "NAME", absent: .meaning("required unless DIR, a folder quire export wrote, is given"), help: "the site"),
                .dist, .format,
            ],
            operands: "[VERSION | DIR]", example: "quire verify --site shop v000012"),
        CommandSpec(
            "gc", abstract: "Remove old versions beyond --keep N.",
            options: [
                .oneSite, .dist,
                OptionSpec(
                    .keep, "N", unit: "versions", absent: .required, help: "keep the newest N versions; current and a pinned one stay too"),
                .pagesForReplicas, .reason, .lockTimeout(30),
            ],
            example: "quire gc --site shop --keep 20"),
        CommandSpec(
            "export", abstract: "Write a version as plain files, without symbolic links.", options: [.oneSite, .dist],
            operands: "[VERSION] DIR", example: "quire export --site shop v000012 /tmp/shop-v12"),
    ]

    var name: String
    var arguments: Arguments

    func run() throws -> ExitCode {
        if name == "verify", let folder = arguments.positionals.first, (try? version(folder)) == nil {
            return try verifyExport(folder)
        }
        guard let site = arguments.site else {
            throw UsageError("\(name) needs --site NAME (or a folder quire export wrote)", spec: arguments.spec)
        }
        guard Identifier.isValid(site) else { throw UsageError("'\(site)' is not a site name: \(Identifier.rule)") }
        guard FileManager.default.fileExists(atPath: "\(arguments.dist)/\(site)") || name == "export" else {
            throw CommandFailure(.operational, "\(arguments.dist)/\(site): no such site in dist (run quire build first, or give --dist)")
        }
        let store = try SiteStore(dist: arguments.dist, site: site, faults: testFaults)
        store.operationWaiting = { Console.shared.error("quire: \($0)") }
        // The commands that change the site take its lock and say why in its history.
        let changesSite = ["rollback", "unpin", "gc"].contains(name)
        if changesSite { store.operationLockTimeout = try arguments.seconds(.lockTimeout) ?? store.operationLockTimeout }
        let reason = changesSite ? arguments.value(.reason) ?? "" : ""
        switch name {
        case "versions": return try versions(store, format: try arguments.format())
        case "diff": return try diff(store, format: try arguments.format())
        case "rollback":
            let target = try arguments.positionals.first.map(version)
            let from = try store.reader.currentVersion()
            let to = try store.operations.rollback(to: target, reason: reason)
            Console.shared.error(
                "quire: \(site): current is now \(to) (was \(from.map(\.description) ?? "none")), pinned; `quire unpin --site \(site)` lets new versions go live again"
            )
            return Replicas.pushConfigured(site: site, pages: arguments.pages, dist: arguments.dist)
        case "unpin":
            let current = try store.operations.unpin(reason: reason)
            Console.shared.error("quire: \(site): unpinned; current is \(current.map(\.description) ?? "none")")
            return Replicas.pushConfigured(site: site, pages: arguments.pages, dist: arguments.dist)
        case "verify": return try verify(store, format: try arguments.format())
        case "gc":
            guard let keepText = arguments.value(.keep), let keep = Int(keepText), keep >= 1 else {
                throw UsageError("gc needs --keep N (at least 1)")
            }
            let report = try store.operations.gc(keep: keep, reason: reason)
            Console.shared.error(
                "quire: \(site): removed \(report.removedVersions.count) version\(report.removedVersions.count == 1 ? "" : "s") (\(report.removedVersions.map(\.description).joined(separator: ", "))) and \(report.removedTrees) unreachable tree\(report.removedTrees == 1 ? "" : "s")"
            )
            // The replicas drop what the origin dropped (the push trims them to its versions).
            return Replicas.pushConfigured(site: site, pages: arguments.pages, dist: arguments.dist)
        case "export":
            let positionals = arguments.positionals
            guard let destination = positionals.last else {
                throw UsageError("export needs a destination folder: quire export --site S [VERSION] DIR")
            }
            let target = positionals.count > 1 ? try version(positionals[0]) : nil
            try store.operations.export(version: target, to: destination)
            Console.shared.error("quire: \(site): exported \(target.map(\.description) ?? "current") to \(destination)")
            return .ok
        default: throw UsageError("unknown command '\(name)'")
        }
    }

    private func version(_ text: String) throws(UsageError) -> VersionID {
        if let id = VersionID(text) { return id }
        if text.hasPrefix("v"), let number = Int(text.dropFirst()), number > 0 { return VersionID(number) }
        if let number = Int(text), number > 0 { return VersionID(number) }
        throw UsageError("'\(text)' is not a version (write v000012 or 12)")
    }

    private func versions(_ store: SiteStore, format: OutputFormat) throws -> ExitCode {
        let versions = try store.operations.versions()
        if format == .json {
            Console.shared.json(["site": .string(store.site), "versions": .array(versions.map(\.json))])
            return .ok
        }
        Console.shared.out("VERSION   BUILT                 PAGES  LOCALES          SIZE       CHANGES (+added ~changed -removed)")
        for info in versions {
            let marks = (info.isCurrent ? " current" : "") + (info.isPinned ? " pinned" : "")
            let changes = info.changes.map { "+\($0.added.count) ~\($0.changed.count) -\($0.removed.count)" } ?? "-"
            let line = [
                info.id.description.padding(toLength: 9, withPad: " ", startingAt: 0),
                info.builtAt.padding(toLength: 21, withPad: " ", startingAt: 0),
                String(info.pages).padding(toLength: 6, withPad: " ", startingAt: 0),
                info.locales.joined(separator: ",").padding(toLength: 16, withPad: " ", startingAt: 0),
                Self.size(info.bytes).padding(toLength: 10, withPad: " ", startingAt: 0),
                changes + marks,
            ].joined(separator: " ")
            Console.shared.out(line)
        }
        return .ok
    }

    static func size(_ bytes: Int) -> String {
        bytes < 1024
            ? "\(bytes) B"
            : bytes < 1 << 20 ? String(format: "%.1f KiB", Double(bytes) / 1024) : String(format: "%.1f MiB", Double(bytes) / 1_048_576)
    }

    private func diff(_ store: SiteStore, format: OutputFormat) throws -> ExitCode {
        guard arguments.positionals.count == 2 else { throw UsageError("diff needs two versions: quire diff --site S V1 V2") }
        let changes = try store.operations.diff(from: try version(arguments.positionals[0]), to: try version(arguments.positionals[1]))
        let (added, changed, removed) = (changes.added, changes.changed, changes.removed)
        if format == .json {
            Console.shared.json(changes.json)
        } else {
            for path in added { Console.shared.out("+ \(path)") }
            for path in changed { Console.shared.out("~ \(path)") }
            for path in removed { Console.shared.out("- \(path)") }
            Console.shared.error("quire: \(added.count) added, \(changed.count) changed, \(removed.count) removed")
        }
        return .ok
    }

    /// `quire verify DIR`: a folder written by `quire export`.
    private func verifyExport(_ folder: String) throws -> ExitCode {
        let problems = try StoreOperations.verify(exportedFolder: folder)
        for problem in problems { Console.shared.error("\(folder): error: \(problem)") }
        Console.shared.error(
            "quire: \(folder): \(problems.isEmpty ? "verified" : "\(problems.count) problem\(problems.count == 1 ? "" : "s")")")
        return problems.isEmpty ? .ok : .contentProblems
    }

    private func verify(_ store: SiteStore, format: OutputFormat) throws -> ExitCode {
        let target = try arguments.positionals.first.map(version)
        let problems = try store.operations.verify(version: target)
        if format == .json {
            Console.shared.json(["site": .string(store.site), "problems": .array(problems.map { .string($0.description) })])
        } else {
            for problem in problems { Console.shared.error("\(arguments.dist)/\(store.site): error: \(problem)") }
            let name = try target ?? store.reader.currentVersion()
            Console.shared.error(
                "quire: \(store.site): \(name.map(\.description) ?? "current"): \(problems.isEmpty ? "verified" : "\(problems.count) problem\(problems.count == 1 ? "" : "s")")"
            )
        }
        return problems.isEmpty ? .ok : .contentProblems
    }
}

extension OptionName {
    fileprivate static let keep = OptionName("keep")
}
