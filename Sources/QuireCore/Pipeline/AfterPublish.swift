/// What follows a publish and cannot undo it: retention (`keep:` in site.yaml, a gc under the
/// lock of its own) and the publish hook. Their failures are warnings on site.yaml.
struct AfterPublish {
    let site: String
    let distRoot: String
    /// site.yaml as diagnostics name it.
    let siteFile: String

    func run(_ version: VersionID, config: SiteConfig, store: SiteStore) -> [Diagnostic] {
        var warnings: [Diagnostic] = []
        // Only when there is something to remove: gc walks every kept version's trees.
        if let keep = config.keep, (try? store.versionCount()).map({ $0 > keep }) ?? true {
            do { try store.gc(keep: keep, reason: "keep: \(keep) in site.yaml") } catch {
                warnings.append(.warning(siteFile, "retention (keep: \(keep)) failed: \(error)"))
            }
        }
        if let hook = config.publishHook, let failure = PublishHook.run(hook, site: site, version: version, dist: distRoot) {
            warnings.append(.warning(siteFile, "\(failure); \(version) stays published"))
        }
        return warnings
    }
}
