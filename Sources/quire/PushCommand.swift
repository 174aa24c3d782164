import Foundation
import QuireCommandLine
import QuireCore

/// `quire push --site S [--dist DIR] [DEST...]`: copies the site's versions to each destination
/// with rsync and moves their `current` together (`ReplicaPush`). Without destinations, the
/// site's `replicas:` in site.yaml.
struct PushCommand {
    static let spec = CommandSpec(
        "push", abstract: "Copy a site's versions to other servers with rsync and move their current together.",
        options: [
            .oneSite, .dist,
            OptionSpec(
                .pages, "DIR", default: "pages", help: "the pages folder, whose site.yaml names the replicas when no DEST is given"),
            .lockTimeout(600),
            .flag(.check, help: "push nothing: probe each destination (reachable, writable, links kept) and print its version"),
        ],
        operands: "[DEST...]", example: "quire push --site shop /mnt/replica rsync://mirror.example/quire")

    var arguments: Arguments

    func run() throws -> ExitCode {
        guard let site = arguments.site else { throw UsageError("push needs --site NAME: quire push --site S [--dist DIR] DEST...") }
        guard Identifier.isValid(site) else { throw UsageError("'\(site)' is not a site name: \(Identifier.rule)") }
        let checking = arguments.flag(.check)
        guard FileManager.default.fileExists(atPath: "\(arguments.dist)/\(site)/\(checking ? "" : "current")") else {
            throw CommandFailure(
                .operational, "\(arguments.dist)/\(site): no published version to push (run quire build first, or give --dist)")
        }
        var destinations: [ReplicaDestination] = []
        do {
            destinations = try arguments.positionals.map { text throws(StoreError) in try ReplicaDestination(text) }
        } catch {
            throw UsageError(error.description)
        }
        if destinations.isEmpty { destinations = Replicas.configured(site: site, pages: arguments.pages) }
        guard !destinations.isEmpty else {
            throw UsageError("push needs a destination: quire push --site S DEST... (or replicas: in \(arguments.pages)/\(site)/site.yaml)")
        }
        let lockTimeout = try arguments.seconds(.lockTimeout) ?? 600
        if checking { return Replicas.check(site: site, dist: arguments.dist, destinations, lockTimeout: lockTimeout) }
        return Replicas.push(site: site, dist: arguments.dist, to: destinations, lockTimeout: lockTimeout)
    }
}

/// Pushing after a publish, rollback or unpin to the replicas site.yaml names.
enum Replicas {
    /// `replicas:` of the site's site.yaml; none when it has none or cannot be read (its errors
    /// are the build's to report).
    static func configured(site: String, pages: String) -> [ReplicaDestination] {
        ReplicaPush.configured(site: site, pages: pages)
    }

    /// Pushes to `replicas:` when the site has some; exit code `.ok` when it has none.
    static func pushConfigured(site: String, pages: String, dist: String) -> ExitCode {
        let destinations = configured(site: site, pages: pages)
        return destinations.isEmpty ? .ok : push(site: site, dist: dist, to: destinations)
    }

    /// Prints what happened to each destination. Unreachable ones are warnings (exit 0); a
    /// destination reached but not made whole is an operational failure (exit 3).
    @discardableResult
    /// `statusRewrite`: see `ReplicaPush.statusRewrite`.
    static func push(
        site: String, dist: String, to destinations: [ReplicaDestination], lockTimeout: Double = 600,
        statusRewrite: (@Sendable () -> Void)? = nil
    ) -> ExitCode {
        let report: ReplicaPush.Report
        do {
            var push = try ReplicaPush(dist: dist, site: site)
            push.statusRewrite = statusRewrite
            report = try push.run(to: destinations, lockTimeout: lockTimeout) {
                Console.shared.error("quire: \($0)")
            }
        } catch {
            Console.shared.error("quire: error: \(site): push failed: \(error)")
            return .operational
        }
        for (destination, state) in report.destinations {
            switch state {
            case .current:
                Console.shared.error("quire: \(site): \(destination): current is \(report.version)")
            case .unreachable(let reason):
                Console.shared.error(
                    "quire: warning: \(site): \(destination) is unreachable (\(reason)); it keeps its version until the next push")
            case .failed(let reason):
                let after = report.flipped ? "its current may not name \(report.version)" : "no destination's current moved"
                Console.shared.error("quire: error: \(site): \(destination): \(reason); \(after)")
            }
        }
        for warning in report.warnings { Console.shared.error("quire: warning: \(site): \(warning)") }
        return report.failures.isEmpty ? .ok : .operational
    }

    /// `quire push --check`: a line per destination; exit code 3 unless every one is ready.
    static func check(site: String, dist: String, _ destinations: [ReplicaDestination], lockTimeout: Double) -> ExitCode {
        let probes: [(destination: ReplicaDestination, outcome: ReplicaProbe.Outcome)]
        do {
            probes = try ReplicaPush(dist: dist, site: site).check(destinations, lockTimeout: lockTimeout) {
                Console.shared.error("quire: \($0)")
            }
        } catch {
            Console.shared.error("quire: error: \(site): check failed: \(error)")
            return .operational
        }
        for (destination, outcome) in probes {
            switch outcome {
            case .ready(let version):
                let holds = version.map { "its current is \($0)" } ?? "no version pushed yet"
                Console.shared.error("quire: \(site): \(destination): reachable, writable, links kept; \(holds)")
            case .unreachable(let reason): Console.shared.error("quire: error: \(site): \(destination) is unreachable (\(reason))")
            case .failed(let reason): Console.shared.error("quire: error: \(site): \(destination): \(reason)")
            }
        }
        return probes.allSatisfy { if case .ready = $0.outcome { true } else { false } } ? .ok : .operational
    }
}

extension FlagName {
    fileprivate static let check = FlagName("check")
}
