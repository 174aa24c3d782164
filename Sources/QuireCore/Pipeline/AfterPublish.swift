/// What follows a publish and cannot undo it: retention (`keep:` in site.yaml, a gc in the
/// publish's lock) and the publish hook. Their failures are warnings on site.yaml.
struct AfterPublish {
    let site: String
    let distRoot: String
    /// site.yaml as diagnostics name it.
    let siteFile: String

    /// Retention, in the lock the publish took: it comes before the spare folders are made,
    /// which may take the folders it removes.
    func retain(config: SiteConfig, store: SiteStore, holding lock: borrowing HeldPublishLock) -> [Diagnostic] {
        guard let keep = config.keep else { return [] }
        // While the new trees' manifests are in memory: no gc reads them from disk later.
        store.reader.learnNewestTrees()
        // Only when there is something to remove: gc walks every kept version's trees.
        guard (try? store.reader.versionCount()).map({ $0 > keep }) ?? true else { return [] }
        do { try store.operations.gc(keep: keep, reason: "keep: \(keep) in site.yaml", retaining: true, holding: lock) } catch {
            return [.warning(siteFile, "retention (keep: \(keep)) failed: \(error)")]
        }
        return []
    }

    func runHook(_ version: VersionID, config: SiteConfig) -> [Diagnostic] {
        guard let hook = config.publishHook, let failure = PublishHook.run(hook, site: site, version: version, dist: distRoot) else {
            return []
        }
        return [.warning(siteFile, "\(failure); \(version) stays published")]
    }
}
