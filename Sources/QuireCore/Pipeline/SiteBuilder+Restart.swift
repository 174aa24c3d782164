import Foundation
import QuireModel

// A restarted watcher (ARCHITECTURE.md, "The pipeline"): the restart file a stopped watcher
// left (`RestartCache`) lets the first build cost what changed since. When the newest version
// is still the one the file names, and the settings and the asset set are the same, that build
// is a delta: every source is read and hashed (`RestartChanges`), the base the saves edit is
// made again from the file and the newest version (`DeltaBase.restored`), and only what changed
// is built and published. Otherwise the full path runs, reusing what the file vouches for.
extension SiteBuilder {
    /// The first build as a delta on what the last watcher published; nil when the full path
    /// must run (no restart file, another version is newest, the settings or the asset set
    /// changed, the newest version's tables are not what a full build makes, or a change the
    /// delta path does not take).
    func restartBuild(inventory: SiteInventory, clock: StageClock, started: UInt64) -> SiteBuildResult? {
        guard options.publish, options.keepsSources, burst.base == nil, state.lastContext == nil,
            let cache = pendingRestartCache?.value, let recorded = cache.base, let last = cache.context,
            let store = try? openStore(), let newest = try? store.reader.newestVersion(), newest == recorded.version
        else { return nil }
        let settings = SiteSettings.load(inventory, site: site, displayRoot: displayRoot)
        guard let context = settings.context, settings.digest == last.settings, context.assets == last.assets else { return nil }
        let now = options.now()
        // The newest version's files (read since the build started) and the tables made from
        // them on one core, while the sources are hashed on all of them.
        let config = context.config
        let historyKept = options.spareFolders ? config.keep : nil
        let restoring = BackgroundValue { [self] () -> RestoredTables? in
            guard let published = try? publishedFiles() else { return nil }
            // The big trees of the history, noted before this build's retention removes the
            // oldest version: it recycles them into the next saves' spares, which otherwise link
            // every entry anew before "watching" (a second a folder of 100,000).
            let remembering = BackgroundValue { historyKept.map { store.spareFolders.rememberTrees(ofNewest: $0 + 1) } }
            let tables = clock.measure(.index) { restoredTables(config: config, version: newest, published: published, now: now) }
            _ = remembering.value
            return tables
        }
        let reader = SourceFileReader(maxBytes: config.limits.maxFileBytes)
        var changed = clock.measure(.read) {
            RestartChanges.paths(
                in: inventory, skipping: settings.drillCatalogPageID, cache: cache,
                diagnostics: inventory.diagnostics + recorded.diagnostics,
                displayRoot: displayRoot, reader: reader)
        }
        // Built again besides: a page whose schedule reached a change while no watcher ran.
        for (path, cached) in cache.sources where cached.page.scheduledChanges(after: recorded.builtAt).contains(where: { $0.at <= now }) {
            changed.insert(path)
        }
        guard let tables = restoring.value else { return nil }
        let base = DeltaBase.restored(
            from: cache, diagnostics: recorded.diagnostics, settings: settings, context: context, version: newest, tables: tables,
            manifest: Self.manifestFields(context: context, pages: 0, coverage: []), now: now)
        guard deltaScope(changed, inventory: inventory, base: base) != nil else { return nil }
        pendingRestartCache = nil
        // Its outputs are the newest version's (the one the file names): a full build checks them.
        restore(cache, store: store)
        burst.keep(base)
        return deltaBuild(changed: changed, hold: false, inventory: inventory, clock: clock, started: started)
    }

    /// The newest version's tables as a full build of the same pages makes them: nil unless
    /// every file they make is the one the version holds, and the version holds no index part
    /// or feed file they do not make.
    private func restoredTables(config: SiteConfig, version: VersionID, published: [String: PublishedFile], now: Date) -> RestoredTables? {
        // Three passes over the version's files, side by side (the cores are free by now: the
        // sources were hashed while its manifests were read).
        let site = site
        let listing = BackgroundValue { () -> (pagePaths: [String: Set<String>], feedFiles: Set<String>) in
            var feedFiles = Set<String>()
            let pagePaths = DeltaBase.pagePaths(published.lazy.map { ($0.key, $0.value.metadata) }) { path, metadata in
                if OutputMetadata(metadata).feed != nil { feedFiles.insert(path) }
            }
            return (pagePaths, feedFiles)
        }
        let rendering = BackgroundValue { () -> (CacheHeaderFiles, [OutputFile]) in
            var headers = CacheHeaderFiles(site: site, files: published.lazy.map { ($0.key, $0.value.metadata) })
            return (headers, headers.files(published: published))
        }
        // The index as the version lists it; a feed's cards need what only the page files say.
        let files =
            config.feeds.isEmpty
            ? nil
            : published.map { OutputFile(path: $0.key, content: .carried, inputDigest: $0.value.inputDigest, metadata: $0.value.metadata) }
        let (index, feeds, indexFiles) = indexAndFeeds(
            config: config, files: files, published: published, parent: version, next: VersionID(version.number + 1), now: now)
        let (headers, headerFiles) = rendering.value
        let (pagePaths, feedFiles) = listing.value
        let made = indexFiles + headerFiles
        let madePaths = Set(made.lazy.map(\.path))
        let indexParts = config.locales.flatMap { locale in
            (1...).lazy.map { PageIndexFiles.partPath(locale: locale, part: $0) }.prefix { published[$0] != nil }
        }
        guard made.allSatisfy({ if case .carried = $0.content { true } else { false } }), feedFiles.isSubset(of: madePaths),
            indexParts.allSatisfy(madePaths.contains)
        else { return nil }
        return RestoredTables(pagePaths: pagePaths, cacheHeaders: headers, pageIndex: index, feeds: feeds)
    }
}

/// What a delta base keeps of a whole version besides its pages, made from the version's files.
struct RestoredTables: Sendable {
    var pagePaths: [String: Set<String>]
    var cacheHeaders: CacheHeaderFiles
    var pageIndex: PageIndexFiles
    var feeds: FeedFiles
}

extension SiteBuilder {
    /// At a watcher's first build: what the last watcher left, if it is there and this builder
    /// knows nothing yet. Returns whether the caches were restored.
    func restoreCaches() -> Bool {
        guard let pending = pendingRestartCache else { return false }
        pendingRestartCache = nil
        guard state.lastContext == nil, let cache = pending.value else { return false }
        restore(cache, store: try? openStore())
        return true
    }

    private func restore(_ cache: RestartCache, store: SiteStore?) {
        state.restore(cache)
        store?.treeChildren.learn(cache.treeChildren)
    }

    /// Starts reading the restart file beside the scan, before the first build needs it.
    func startReadingRestartCache() {
        guard options.restartCache, options.publish, !restartCacheRead, let store = try? openStore() else { return }
        restartCacheRead = true
        let (path, previews, root) = (RestartCache.path(store.layout), options.previews, displayRoot)
        pendingRestartCache = BackgroundValue { RestartCache.read(path, previews: previews, displayRoot: root) }
    }

    /// Leaves what this watcher knows for the next one (when it stops).
    public func saveRestartCache() {
        guard options.restartCache, options.publish, state.lastBuildPublished, let store = try? openStore() else { return }
        var cache = RestartCache(state)
        cache.treeChildren = store.treeChildren.known
        if let base = burst.base, !burst.isHolding { cache.base = (base.version, base.builtAt, base.diagnostics) }
        try? cache.write(RestartCache.path(store.layout), previews: options.previews, displayRoot: displayRoot)
    }
}
