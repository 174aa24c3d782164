import Foundation
import QuireModel

// What every build does once its planner has said what the new version is (ARCHITECTURE.md,
// "Two planners, one tail"): publish it under the site lock (announced the moment it is live,
// retention inside the same lock), let the planner keep what the next build builds on, then
// the spare folders and the publish hook. A planner adds its own steps before this, never a
// copy of it.

/// What a planner made of a build: a whole version, the changes against the version its base
/// came from, or nothing to publish (that version stays the newest).
enum PlannedVersion {
    case whole(PublishRequest)
    case delta(PublishDelta)
    case unchanged(VersionID)
}

extension SiteBuilder {
    /// Publishes `plan` and runs what follows a publish. `keepBase` runs once the outcome is
    /// known and before the hook, with the version now the newest and `result` as it stands
    /// (retention's findings not added yet): the planner keeps its base for the next build there.
    func publish(
        _ plan: PlannedVersion, config: SiteConfig, clock: StageClock, result: inout SiteBuildResult,
        keepBase: (VersionID, SiteBuildResult) -> Void
    ) throws {
        let store = try openStore()
        var outcome: PublishOutcome
        var retention: [Diagnostic] = []
        switch plan {
        case .unchanged(let version):
            outcome = .unchanged(version)
        case .whole, .delta:
            (outcome, retention) = try clock.measure(.publish) {
                try store.withPublishLock(timeout: options.lockTimeout, waiting: options.log) { lock in
                    let outcome =
                        switch plan {
                        case .whole(let request): try store.publish(request, holding: lock)
                        case .delta(let delta): try store.publish(delta, holding: lock)
                        case .unchanged(let version): PublishOutcome.unchanged(version)
                        }
                    announce(outcome, result)
                    return (outcome, outcome.isPublished ? afterPublish.retain(config: config, store: store, holding: lock) : [])
                }
            }
        }
        result.outcome = outcome
        switch outcome {
        case .published(let version, _), .unchanged(let version): keepBase(version, result)
        }
        if case .published(let version, _) = outcome {
            result.diagnostics += retention
            prepareSpareFolders(config: config)
            result.diagnostics += afterPublish.runHook(version, config: config)
        }
    }

    /// A page's line in `build.json`: how long it took, how many files it rendered, and whether
    /// it validated. Both planners record pages here.
    static func pageRecord(_ output: PageOutput?, ok: Bool) -> JSONValue {
        guard let output else { return ["ms": 0, "rendered": 0, "ok": .bool(ok)] }
        return .object(
            JSONObject(distinctKeys: [
                ("ms", .number((output.milliseconds * 100).rounded() / 100)), ("rendered", .integer(output.rendered)), ("ok", .bool(ok)),
            ]))
    }
}
