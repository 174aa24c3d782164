import Foundation
import QuireModel
import Synchronization

// The pipeline of one site (ARCHITECTURE.md, "One save, end to end"):
//
//   scan -> read + parse + validate -> check translations -> merge + render markdown -> encode
//        (concurrent, per page: PagePipeline, PagePass)   (concurrent, per page and locale)
//   -> assemble version -> publish atomically under the site lock -> status
//        (serial, one writer per site: SiteStore)                   (StatusWriter)
//
// A `SiteBuilder` lives as long as its caller: `quire build` uses it once, `quire watch` keeps
// it, so sources whose bytes did not change are not parsed again (`IncrementalState`). Files
// whose inputs did not change since the newest version are carried, not rendered. A change set
// the fast path can take is planned as a delta (SiteBuilder+DeltaBuild), anything else in full
// (SiteBuilder+FullBuild); both publish through one tail (SiteBuilder+Publish). `BurstHold` owns
// the delta base and decides when a burst still being written is held.
//
// One build at a time: the caller serializes them (`quire watch` on its build queue).

public final class SiteBuilder: @unchecked Sendable {
    public let site: String
    public let siteRoot: String
    /// How diagnostics name the site folder: `pages/trex`.
    public let displayRoot: String
    public let distRoot: String
    public var options: BuildOptions

    /// What the last builds left for the next one (watch mode); touched by builds only.
    var state = IncrementalState()
    /// The delta base, and a burst's pages rendered and not yet published (watch mode).
    var burst = BurstHold()
    /// Opened at the first build that needs it.
    var store: SiteStore?
    let statusWriter = StatusWriter()
    private let spareFolders = SpareFolderMaker()
    /// The build whose publish started the spare folders already (`prepareSpareFolders`).
    private var sparesStartedBy = 0
    /// What a build leaves running besides the spare folders, which the next save would compete
    /// with for the cores: what a full build frees, the trees a watcher's first build notes.
    let backgroundWork = DispatchGroup()
    /// Whether the restart file was looked for (at the first build only), and its reading.
    var restartCacheRead = false
    var pendingRestartCache: BackgroundValue<RestartCache?>?
    /// The newest version's index (in the reader's cache once read), then its files by path,
    /// read on the other core while the first build scans (`startReadingPublishedFiles`).
    private var pendingIndex: BackgroundValue<VersionID?>?
    private var pendingPublished: BackgroundValue<(version: VersionID, files: [String: PublishedFile])?>?
    private let publishedFilesWanted = Atomic<Bool>(true)

    public init(site: String, pagesRoot: String, distRoot: String, options: BuildOptions = BuildOptions()) {
        self.site = site
        // Absolute, so the watcher's paths (absolute) match the inventory's.
        self.siteRoot = URL(fileURLWithPath: pagesRoot).standardizedFileURL.path + "/\(site)"
        self.displayRoot = "\(pagesRoot)/\(site)"
        self.distRoot = distRoot
        self.options = options
    }

    /// The background queues' threads hold the queues until stopped.
    deinit {
        statusWriter.stop()
        spareFolders.stop()
    }

    /// The per-page stages, as the options stand for this build.
    var pipeline: PagePipeline { PagePipeline(site: site, displayRoot: displayRoot, previews: options.previews) }

    var afterPublish: AfterPublish { AfterPublish(site: site, distRoot: distRoot, siteFile: "\(displayRoot)/site.yaml") }

    /// Builds the site from what is on disk now and publishes it (unless `options.publish` is off).
    /// `changed`: absolute paths that changed since the last build of this builder (from the
    /// watcher); nil reads everything. Only changed sources are read again.
    ///
    /// `hold` (the watcher, while a burst is still being written): when the changes can be
    /// published as a delta, render them but publish nothing yet; the next build adds its own
    /// changes (an empty set adds none) and publishes all of them as one version (`BurstHold`).
    ///
    /// `user`: who caused these changes, when not this process's user (the history line says so).
    public func build(changed: Set<String>? = nil, hold: Bool = false, user: String? = nil) -> SiteBuildResult {
        burst.start(user: user)
        defer { burst.finish() }
        let started = DispatchTime.now().uptimeNanoseconds
        let generation = spareFolders.buildStarts()
        let clock = StageClock()
        let readRestartCache = readingRestartCache()
        // Alone when the newest version is not read (not the first build, or no store).
        if !(generation == 1 && startReadingPublishedFiles(after: readRestartCache)), let readRestartCache {
            DispatchQueue.global().async { _ = readRestartCache() }
        }
        // Before the first publish, which takes spares a stopped watcher handed over.
        if generation == 1, options.spareFolders, options.publish { try? openStore().spareFolders.keep() }
        var result = build(clock: clock, changed: changed, hold: hold)
        (pendingIndex, pendingPublished) = (nil, nil)  // a build that stopped before it needs no more
        if result.operationalError != nil {
            // Another process may have published meanwhile: start again from what is on disk.
            forgetCaches()
            if changed != nil { result = build(clock: clock, changed: nil, hold: false) }
            // A build that failed before reading the change set's files must not leave a context
            // under which the next build trusts their cached (older) sources.
            if result.operationalError != nil { forgetCaches() }
        }
        result.seconds = Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9
        result.stageMilliseconds = clock.milliseconds.map { ($0.stage.rawValue, $0.ms) }
        // Unless its publish started them: a second request would replace the first in the queue.
        if options.spareFolders, options.publish, sparesStartedBy != generation, let store = try? openStore() {
            spareFolders.prepare(store, untilBuild: generation + 1, config: burst.base?.context.config)
        }
        // A watcher's first build: the big trees of the history it starts on are noted for
        // recycling (first: the next saves' spares want them; those a restart noted before its
        // publish are not read again), then read for retention.
        if generation == 1, options.spareFolders, let keep = burst.base?.context.config.keep, let store = try? openStore() {
            DispatchQueue.global(qos: .utility).async(group: backgroundWork) {
                store.spareFolders.rememberTrees(ofNewest: keep + 1)
                store.reader.learnTrees(ofNewest: keep + 1)
            }
        }
        return result
    }

    /// Starts making the spare folders of the version just published, right after its swap and
    /// retention (whose removed folders it may recycle): the hook and the status files come
    /// after, and the next save wants them ready.
    func prepareSpareFolders(config: SiteConfig) {
        guard options.spareFolders, options.publish, let store else { return }
        sparesStartedBy = spareFolders.builds
        spareFolders.prepare(store, untilBuild: spareFolders.builds + 1, config: config, made: options.spareFoldersMade)
    }

    /// Tells `options.published` of a new version the moment it is live, before retention, the
    /// spare folders, the hook and the status: `result` as it stands, with its outcome.
    func announce(_ outcome: PublishOutcome, _ result: SiteBuildResult) {
        guard outcome.isPublished, let published = options.published else { return }
        var announced = result
        announced.outcome = outcome
        published(announced)
    }

    /// Whether rendered pages wait for the next build to be published (see `build(changed:hold:)`).
    public var isHolding: Bool { burst.isHolding }

    /// Waits for spare folders being made in the background.
    public func flushSpareFolders() { spareFolders.flush() }

    /// Waits for what the last build left running (`backgroundWork`), then for the spare folders.
    public func flushBackgroundWork() {
        backgroundWork.wait()
        spareFolders.flush()
    }

    /// Waits for what the last build left running, then for the spares of its publish, not for
    /// the reserve copies made after them: what `quire watch` waits for before "watching".
    public func waitUntilSavesAreReady() {
        backgroundWork.wait()
        spareFolders.waitForSpares()
    }

    /// Stops making spare folders and removes them, or (`quire watch` stopping cleanly) hands
    /// the whole ones to the next watcher, whose first publish takes them.
    public func closeSpareFolders(handingOver: Bool = false) { spareFolders.close(store, handingOver: handingOver) }

    /// Waits for status files still being written in the background.
    public func flushStatus() { statusWriter.flush() }

    /// The status files written again for what changed beside the builds (a push's outcome).
    public func rewriteStatus() { statusWriter.rewrite() }

    private func forgetCaches() {
        burst.discard(from: &state)
        state.forget()
    }

    /// One build: the delta path when the change set allows it, else the full path.
    private func build(clock: StageClock, changed: Set<String>?, hold: Bool) -> SiteBuildResult {
        let started = DispatchTime.now().uptimeNanoseconds
        var updatedPaths: Set<String>?
        let inventory = clock.measure(.scan) { () -> SiteInventory in
            if let changed, var previous = state.takeInventory(), let paths = previous.update(changed: changed, displayRoot: displayRoot) {
                updatedPaths = paths
                return previous
            }
            return SiteInventory.scan(root: siteRoot, site: site, displayRoot: displayRoot)
        }
        state.keep(inventory)
        // A folder that came or went stands for its files from here on.
        let changed = updatedPaths ?? changed
        if updatedPaths != nil, let changed,
            let result = deltaBuild(changed: changed, hold: hold, inventory: inventory, clock: clock, started: started)
        {
            return result
        }
        // A restarted watcher's first build: a delta when the restart file allows it.
        if changed == nil, pendingRestartCache != nil, let result = restartBuild(inventory: inventory, clock: clock, started: started) {
            return result
        }
        return fullBuild(inventory: inventory, changed: changed, clock: clock, started: started)
    }

    /// Said once for the site while a page has a drill carousel and the site no drill catalog.
    var uncheckedDrillsWarning: Diagnostic {
        .warning(
            "\(displayRoot)/site.yaml",
            "drill ids are not checked: this site has no drill catalog (name one with 'drill_catalog: drills.yaml' in site.yaml)")
    }

    /// The files of the newest version (what can be carried); none when only checking.
    func publishedFiles() throws -> [String: PublishedFile] {
        guard options.publish else { return [:] }
        let store = try openStore()
        guard let newest = try store.reader.newestVersion() else { return [:] }
        if let read = pendingPublished.take()?.value, read.version == newest { return read.files }
        return try store.reader.files(of: newest)
    }

    /// Starts reading the newest version's manifests beside the scan, before the full build needs
    /// them: at 100,000 pages they are over a second of parsing, and the scan keeps one core.
    /// First, in the same task, the restart file (`readRestartCache`): when it holds the
    /// version's index, that is taken instead of the manifests. False when nothing is read.
    private func startReadingPublishedFiles(after readRestartCache: (@Sendable () -> RestartCache?)?) -> Bool {
        guard options.publish, let store = try? openStore() else { return false }
        let indexed = BackgroundValue<VersionID?>()
        pendingIndex = indexed
        pendingPublished = BackgroundValue { [self] in
            let cache = readRestartCache?()
            guard let newest = (try? store.reader.newestVersion()).flatMap({ $0 }) else {
                indexed.set(nil)
                return nil
            }
            if let index = cache?.tables(of: newest, reader: store.reader)?.index?.parse({ reader throws(BinaryReader.Malformed) in
                try FileIndex(reading: &reader, layout: store.layout)
            }) {
                store.reader.restoreCachedIndex(index, of: newest)
            }
            guard (try? store.reader.index(of: newest)) != nil else {
                indexed.set(nil)
                return nil
            }
            indexed.set(newest)
            guard publishedFilesWanted.load(ordering: .relaxed), let files = try? store.reader.files(of: newest) else { return nil }
            return (newest, files)
        }
        return true
    }

    /// The newest version's files by path are not needed (a restart whose file holds its
    /// tables): they are not listed unless the listing has begun.
    func stopReadingPublishedFiles() { publishedFilesWanted.store(false, ordering: .relaxed) }

    /// The newest version once its index is read (waiting for the read begun beside the scan).
    func readNewestIndex() -> VersionID? {
        if let read = pendingIndex?.value { return read }
        guard let store = try? openStore(), let newest = try? store.reader.newestVersion(), (try? store.reader.index(of: newest)) != nil
        else { return nil }
        return newest
    }

    func openStore() throws -> SiteStore {
        if let store { return store }
        let opened = try SiteStore(dist: distRoot, site: site, faults: options.faults)
        store = opened
        return opened
    }

    /// `pages`: the pages the newest version serves, when the builder knows them (else the store lists them).
    func writeStatus(_ result: SiteBuildResult, context: ValidationContext?, pages: Set<String>? = nil) {
        guard options.publish, let store = try? openStore() else { return }
        statusWriter.write(
            result, store: store, locales: context?.config.locales ?? [], pages: pages, inBackground: options.statusInBackground)
    }
}
