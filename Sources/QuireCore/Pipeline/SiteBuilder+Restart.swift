import Foundation
import QuireModel

// A restarted watcher (ARCHITECTURE.md, "The pipeline"): the restart file a stopped watcher
// left (`RestartCache`) lets the first build cost what changed since. When the newest version
// is still the one the file names, with the same manifest, and the settings and the asset set
// are the same, that build is a delta: every source is checked (`RestartChanges`: its stamp,
// else its bytes), the base the saves edit is made again from the file (`DeltaBase.restored`),
// and only what changed is built and published. Otherwise the full path runs, reusing what the file vouches for.
extension SiteBuilder {
    /// The first build as a delta on what the last watcher published; nil when the full path
    /// must run (no restart file, another version is newest, the settings or the asset set
    /// changed, or a change the delta path does not take).
    func restartBuild(inventory: SiteInventory, clock: StageClock, started: UInt64) -> SiteBuildResult? {
        guard options.publish, options.keepsSources, burst.base == nil, state.lastContext == nil,
            let cache = pendingRestartCache?.value, let recorded = cache.base, let last = cache.context, let store = try? openStore(),
            let newest = try? store.reader.newestVersion(), let recordedTables = cache.tables(of: newest, reader: store.reader)
        else { return nil }
        let settings = SiteSettings.load(inventory, site: site, displayRoot: displayRoot)
        guard let context = settings.context, settings.digest == last.settings, context.assets == last.assets else { return nil }
        // The version's tables come from the file, its index too (the delta publishes against
        // it, `startReadingPublishedFiles`): not every file by path.
        stopReadingPublishedFiles()
        let now = options.now()
        let (config, site) = (context.config, site)
        let historyKept = options.spareFolders ? config.keep : nil
        // The base from the file, on one core while the sources are checked on all of them.
        var restoring: BackgroundValue? = BackgroundValue { () -> DeltaBase? in
            let tables = clock.measure(.index) {
                recordedTables.tables.parse { reader throws(BinaryReader.Malformed) in
                    try RestoredTables(reading: &reader, config: config, site: site)
                }
            }
            return tables.map { tables in
                DeltaBase.restored(
                    from: cache, diagnostics: recorded.diagnostics, settings: settings, context: context, version: newest, tables: tables,
                    manifest: Self.manifestFields(context: context, pages: 0, coverage: []), now: now)
            }
        }
        // The big trees of the history, noted before this build's retention removes the oldest
        // version: it recycles them into the next saves' spares, which otherwise link every
        // entry anew before "watching" (a second a folder of 100,000). Queued behind the base:
        // it starts once the version's index is read (which the delta publishes against).
        let remembering = BackgroundValue { [self] () -> Bool in
            guard readNewestIndex() == newest else { return false }
            if let historyKept { store.spareFolders.rememberTrees(ofNewest: historyKept + 1) }
            return true
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
        // Let go of, once taken: a second reference to the base would make the delta's first
        // change to it copy every page's entries.
        let restored = remembering.value ? restoring?.value : nil
        restoring = nil
        guard let base = consume restored else { return nil }
        guard deltaScope(changed, inventory: inventory, base: base) != nil else { return nil }
        pendingRestartCache = nil
        // Its outputs are the newest version's (the one the file names): a full build checks them.
        restore(cache, store: store)
        burst.keep(consume base)
        return deltaBuild(changed: changed, hold: false, inventory: inventory, clock: clock, started: started)
    }
}

/// What a delta base keeps of a whole version besides its pages (`DeltaBase`): kept in the
/// restart file, for a restart on the same version.
struct RestoredTables: Sendable {
    var pagePaths: [String: Set<String>]
    var cacheHeaders: CacheHeaderFiles
    var pageIndex: PageIndexFiles
    var feeds: FeedFiles

    /// The tables of `base`, once published (nil: it made no index or feeds).
    init?(_ base: DeltaBase) {
        guard let pageIndex = base.pageIndex, let feeds = base.feeds else { return nil }
        (pagePaths, cacheHeaders, self.pageIndex, self.feeds) = (base.pagePaths, base.cacheHeaders, pageIndex, feeds)
    }

    func write(to writer: inout BinaryWriter) {
        writer.array(pagePaths) { writer, page in
            writer.string(page.key)
            writer.strings(page.value)
        }
        cacheHeaders.write(to: &writer)
        pageIndex.write(to: &writer)
        feeds.write(to: &writer)
    }

    /// The tables `write(to:)` wrote, for a site of `config`'s locales, app routes and feeds.
    init(reading reader: inout BinaryReader, config: SiteConfig, site: String) throws(BinaryReader.Malformed) {
        let count = try reader.count()
        var pagePaths: [String: Set<String>] = [:]
        pagePaths.reserveCapacity(count)
        for _ in 0..<count { pagePaths[try reader.string()] = Set(try reader.strings()) }
        self.pagePaths = pagePaths
        cacheHeaders = try CacheHeaderFiles(site: site, reading: &reader)
        pageIndex = try PageIndexFiles(locales: config.locales, appRoutes: config.appRoutes, feeds: config.feeds, reading: &reader)
        feeds = try FeedFiles(feeds: config.feeds, locales: config.locales, ttl: config.ttl, index: pageIndex, reading: &reader)
        guard reader.isAtEnd else { throw BinaryReader.Malformed() }
    }
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

    /// The reading of the restart file, at the first build (which waits for it as
    /// `pendingRestartCache`), for the caller to run beside the scan: it returns the cache too.
    func readingRestartCache() -> (@Sendable () -> RestartCache?)? {
        guard options.restartCache, options.publish, !restartCacheRead, let store = try? openStore() else { return nil }
        restartCacheRead = true
        let (path, previews, root) = (RestartCache.path(store.layout), options.previews, displayRoot)
        let pending = BackgroundValue<RestartCache?>()
        pendingRestartCache = pending
        return {
            let cache = RestartCache.read(path, previews: previews, displayRoot: root)
            pending.set(cache)
            return cache
        }
    }

    /// Leaves what this watcher knows for the next one (when it stops).
    public func saveRestartCache() {
        guard options.restartCache, options.publish, state.lastBuildPublished, let store = try? openStore() else { return }
        var cache = RestartCache(state)
        cache.treeChildren = store.treeChildren.known
        var tables: RestartCache.VersionTables?
        if let base = burst.base, !burst.isHolding {
            cache.base = (base.version, base.builtAt, base.diagnostics)
            if let restored = RestoredTables(base), let manifest = try? store.reader.manifestDigest(of: base.version) {
                tables = .init(versionManifest: manifest, tables: restored, index: store.reader.cachedIndex(of: base.version))
            }
        }
        try? cache.write(RestartCache.path(store.layout), previews: options.previews, displayRoot: displayRoot, tables: tables)
        try? FileSystem.remove(RestartCache.jsonPath(store.layout))
    }
}
