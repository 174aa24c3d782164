import QuireModel
public import Foundation
import Synchronization

// The pipeline of one site (DESIGN.md §4):
//
//   scan -> read + parse + validate -> check translations -> merge + render markdown -> encode
//        (concurrent, per page)                            (concurrent, per page and locale)
//   -> assemble version -> publish atomically under the site lock -> status
//        (serial, one writer per site)
//
// A `SiteBuilder` lives as long as its caller: `quire build` uses it once, `quire watch` keeps
// it, so sources whose bytes did not change are not parsed again. Files whose inputs did not
// change since the newest version are carried, not rendered.

public struct BuildOptions: Sendable {
    /// False for `quire check`: validate and render, publish nothing.
    public var publish = true
    public var previews = true
    /// False for a one-shot `quire build`: nothing is kept for a next build that never comes
    /// (parse trees, carried outputs, the delta base: on a large site, memory held while the
    /// version is planned and written).
    public var keepsSources = true
    public var lockTimeout: Double = 30
    /// Told when another process holds the publish lock.
    public var log: @Sendable (String) -> Void = { _ in }
    /// Told (pages done, pages in all) as pages render, for a progress bar on long builds.
    public var progress: (@Sendable (Int, Int) -> Void)?
    /// Write the status files on a thread of their own, newest only (`quire watch`): the next
    /// build does not wait for them. `SiteBuilder.flushStatus()` waits for the last one.
    public var statusInBackground = false
    /// Keep pre-linked spare copies of the newest version's folders, made on a thread of their
    /// own between builds (`quire watch`), so a save writes only what it changes (`SpareFolders`).
    public var spareFolders = false
    /// The time `publish_at` / `expires_at` are judged at; tests fix it.
    public var now: @Sendable () -> Date = { Date() }

    public init() {}
}

public final class SiteBuilder: @unchecked Sendable {
    public let site: String
    public let siteRoot: String
    /// How diagnostics name the site folder: `pages/trex`.
    public let displayRoot: String
    public let distRoot: String
    public var options: BuildOptions

    /// Bump when published output changes for equal input, so every file is rebuilt once.
    static let outputFormat = "quire-output-3"
    /// Bump when previews change for equal pages.
    static let previewFormat = "quire-preview-5"

    // State kept between builds. Internal only so the stage files (SiteBuilder+Pages, +Translations,
    // +Rendering) can share it; nothing outside the builder touches it.
    var sourceCache: [String: CachedSource] = [:]
    /// Watch mode: the last scan, pages and outputs, reused for whatever a change set leaves alone.
    var inventory: SiteInventory?
    var outputCache: [String: (key: String, output: PageOutput)] = [:]
    var assetDigests: [String: String] = [:]
    var lastContext: (settings: String, pageIDs: Set<String>, assets: Set<String>)?
    /// True when the newest version holds every output of the last build (so it can be carried).
    var lastBuildPublished = false
    var translationCache: [String: CachedTranslation] = [:]
    var store: SiteStore?
    /// Watch mode: what the next change set can be published against as a delta.
    var deltaBase: DeltaBase?
    /// Watch mode: pages rendered while their burst went on, to publish with the next build.
    var heldDelta: HeldDelta?
    private let statusQueue = LatestOnlyQueue(label: "quire.status", minimumInterval: 0.25, idlePriority: true)
    /// The status files' pages as the last write left them.
    private let statusPages = StatusPageCache()
    private let spareQueue = LatestOnlyQueue(label: "quire.spares", durationFactor: 0)
    /// Builds started so far: spare folders are made only while this stays the same.
    private let buildsStarted = Atomic<Int>(0)
    private let isClosingSpareFolders = Atomic<Bool>(false)

    /// A page source as last read: its parse (reused while the bytes are equal) and the page
    /// validated from it (reused while the bytes and the validation context are equal).
    struct CachedSource {
        var digest: String
        var parsed: Result<SourceNode, Diagnostic>
        var page: ProcessedPage
    }

    struct CachedTranslation {
        var digest: String
        var parsed: Result<(TranslationCatalog, [Diagnostic]), Diagnostic>
    }

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
        statusQueue.stop()
        spareQueue.stop()
    }

    /// Builds the site from what is on disk now and publishes it (unless `options.publish` is off).
    /// `changed`: absolute paths that changed since the last build of this builder (from the
    /// watcher); nil reads everything. Only changed sources are read again.
    ///
    /// `hold` (the watcher, while a burst is still being written): when the changes can be
    /// published as a delta, render them but publish nothing yet; the next build adds its own
    /// changes (an empty set adds none) and publishes all of them as one version. So a burst
    /// is rendered while it is written, and its folders are written once.
    public func build(changed: Set<String>? = nil, hold: Bool = false) -> SiteBuildResult {
        let started = DispatchTime.now().uptimeNanoseconds
        let generation = buildsStarted.add(1, ordering: .relaxed).newValue
        let clock = StageClock()
        var result = build(clock: clock, changed: changed, hold: hold)
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
        if options.spareFolders { prepareSpareFolders(untilBuild: generation + 1) }
        return result
    }

    /// Makes spare folders for the next save in the background, until build `next` starts.
    private func prepareSpareFolders(untilBuild next: Int) {
        guard options.publish, let store = try? openStore(), (try? store.keepSpareFolders()) != nil else { return }
        spareQueue.submit { [self] in
            guard !isClosingSpareFolders.load(ordering: .relaxed) else { return }
            store.prepareSpareFolders { buildsStarted.load(ordering: .relaxed) >= next || isClosingSpareFolders.load(ordering: .relaxed) }
        }
    }

    /// Waits for spare folders being made in the background.
    public func flushSpareFolders() { spareQueue.flush() }

    /// Stops making spare folders and removes them (`quire watch` stopping: no staging left).
    public func closeSpareFolders() {
        isClosingSpareFolders.store(true, ordering: .relaxed)
        spareQueue.flush()
        store?.closeSpareFolders()
    }

    /// Whether rendered pages wait for the next build to be published (see `build(changed:hold:)`).
    public var isHolding: Bool { heldDelta != nil }

    private func forgetCaches() {
        discard(heldDelta.take())
        inventory = nil
        outputCache = [:]
        assetDigests = [:]
        lastContext = nil
        lastBuildPublished = false
        deltaBase = nil
    }

    private func build(clock: StageClock, changed: Set<String>?, hold: Bool) -> SiteBuildResult {
        let started = DispatchTime.now().uptimeNanoseconds
        var result = SiteBuildResult(site: site)
        var updatedPaths: Set<String>?
        var inventory = clock.measure(.scan) { () -> SiteInventory in
            // Taken, not copied: updating an inventory that the builder still held copied its
            // 10,000 pages' and 20,000 translation files' entries on every save.
            if let changed, var previous = self.inventory.take(), let paths = previous.update(changed: changed, displayRoot: displayRoot) {
                updatedPaths = paths
                return previous
            }
            return SiteInventory.scan(root: siteRoot, site: site, displayRoot: displayRoot)
        }
        self.inventory = inventory
        // A folder that came or went stands for its files from here on.
        let changed = updatedPaths ?? changed
        if updatedPaths != nil, let changed, let result = deltaBuild(changed: changed, hold: hold, inventory: inventory, clock: clock, started: started) {
            return result
        }
        // The full path renders every page that a held delta rendered, and publishes them.
        discard(heldDelta.take())
        deltaBase = nil
        result.diagnostics += inventory.diagnostics

        let settings = SiteSettings.load(inventory, site: site, displayRoot: displayRoot)
        result.diagnostics += settings.diagnostics
        guard let context = settings.context else {
            writeStatus(result, context: nil)
            return result
        }
        let reader = SourceFileReader(maxBytes: context.config.limits.maxFileBytes)
        // What may be reused: sources the change set does not name, while settings and the assets
        // (what validation looks at besides the page) are the same, unless the page links to a
        // page that came or went.
        let contextKey = (settings: settings.digest, pageIDs: context.pageIDs, assets: context.assets)
        let sameContext = lastContext.map { $0.settings == contextKey.settings && $0.assets == contextKey.assets } ?? false
        let relinked = sameContext ? relinkedSources(pageIDs: context.pageIDs) : []
        lastContext = contextKey
        let isUnchanged: @Sendable (String) -> Bool = { path in changed.map { !$0.contains(path) } ?? false }
        let canReuse: @Sendable (String) -> Bool = { path in sameContext && isUnchanged(path) && !relinked.contains(path) }
        let now = options.now()
        // The drill catalog is data, not a page.
        if let catalogPage = settings.drillCatalogPageID { inventory.pages[catalogPage] = nil }

        // Newest version: what can be carried.
        let published: [String: PublishedFile]
        do {
            published = try publishedFiles()
        } catch {
            result.operationalError = "\(error)"
            return result
        }

        let pageIDs = inventory.pages.keys.sorted()
        let keepsSources = options.keepsSources
        var pass = PagePass(context: context, reader: reader, settingsDigest: settings.digest, published: published, now: now,
                            inventory: inventory, cachedSources: sourceCache, cachedTranslations: translationCache,
                            reuseSource: canReuse, reuseTranslation: isUnchanged)
        // An output is carried by its key, which holds which of the pages it links to exist.
        pass.previousOutputs = lastBuildPublished && sameContext ? outputCache : [:]
        // Publishing: rendered files go to disk as they are produced, not into memory (issue 8).
        pass.blobs = options.publish ? try? openStore().openStagingBlobs() : nil
        defer { pass.blobs?.close() }
        // One pass per page, both cores, letting go of each page once rendered (unless a watcher
        // keeps it for the next build), so a large site never holds every page's model,
        // catalogs and output at once.
        let pages = renderPages(pageIDs, in: pass, clock: clock, progress: options.progress) { rendered in
            PageBuild(rendered, keepingCaches: keepsSources, now: now)
        }
        var newSources: [String: CachedSource] = [:]
        var newTranslations: [String: CachedTranslation] = [:]
        var newOutputs: [String: (key: String, output: PageOutput)] = [:]
        for page in pages {
            if let cached = page.cached, let source = inventory.pages[page.pageID]?.first { newSources[source.path] = cached }
            newTranslations.merge(page.translationsCache) { $1 }
            // Only what carrying needs: the bytes are in the version once it is published.
            if keepsSources, page.hasModel, let output = page.output { newOutputs[page.pageID] = (page.outputKey, output.carried) }
        }
        sourceCache = newSources
        outputCache = newOutputs
        lastBuildPublished = false
        // Translation files whose page does not exist: read for their own diagnostics only.
        let orphans = inventory.translations.filter { inventory.pages[$0.pageID] == nil }
        let (orphanTranslations, orphansCache) = clock.measure(.translations) {
            loadTranslations(orphans, refused: [], reader: reader, context: context, cache: pass.cachedTranslations, reuse: isUnchanged)
        }
        translationCache = newTranslations.merging(orphansCache) { $1 }
        result.diagnostics += orphanTranslations.diagnostics + Self.unusedTranslationWarnings(orphanTranslations)

        var files: [OutputFile] = []
        files.reserveCapacity(pages.reduce(0) { $0 + ($1.output?.files.count ?? 0) } + 8)
        var coverage = Dictionary(uniqueKeysWithValues: context.config.locales.map { ($0, LocaleCoverage(locale: $0)) })
        var pageRecords = JSONObject()
        for page in pages {
            result.pageSources[page.file] = page.pageID
            result.diagnostics += page.diagnostics
            guard let output = page.output else { continue }
            result.diagnostics += output.diagnostics
            files += output.files
            result.filesRendered += output.rendered
            if output.rendered > 0 { result.pagesRebuilt.append(page.pageID) }
            for (locale, counts) in output.coverage {
                coverage[locale]?.translated += counts.translated
                coverage[locale]?.stale += counts.stale
                coverage[locale]?.missing += counts.missing
            }
            pageRecords[page.pageID] = ["ms": .number((output.milliseconds * 100).rounded() / 100),
                                        "rendered": .integer(output.rendered), "ok": .bool(page.hasModel)]
            if !page.hasModel { files += carry(page.pageID, locales: context.config.locales, published: published) }
        }
        files += clock.measure(.read) { assetFiles(inventory, published: published, canReuse: canReuse, into: &result) }
        if options.previews {
            files.append(OutputFile(path: PagePreview.stylesheetPath, content: .bytes(PagePreview.stylesheet), inputDigest: Self.previewFormat))
            files.append(OutputFile(path: PagePreview.scriptPath, content: .bytes(PagePreview.script), inputDigest: Self.previewFormat))
        }
        let (cacheHeaders, headerFiles, pageLists) = Self.cacheHeadersAndPageLists(site: site, files: files, published: published,
                                                                                   listingPages: options.publish)
        files += headerFiles
        result.scheduled = pages.flatMap(\.scheduled).sorted { ($0.at, $0.pageID) < ($1.at, $1.pageID) }
        if context.drillIDs == nil, pages.contains(where: \.usesDrillCarousel) { result.diagnostics.append(uncheckedDrillsWarning) }
        result.pagesTotal = pages.reduce(0) { $0 + ($1.counted ? 1 : 0) }  // not `filter`: it copied every page
        result.coverage = context.config.locales.compactMap { coverage[$0] }
        result.diagnostics.sort { ($0.file, $0.position) < ($1.file, $1.position) }

        guard options.publish, let (publishedPages, changes) = pageLists else { return result }
        var manifest = context.config.manifestFields
        manifest["pages"] = .integer(publishedPages.count)
        manifest["coverage"] = .array(result.coverage.map(\.json))
        manifest["vocabulary"] = Self.vocabularyManifest(context.vocabulary)
        (result.pagesAdded, result.pagesRemoved) = (changes.added, changes.removed)
        let record = buildRecord(parent: (try? openStore().newestVersion()).flatMap { $0 }, locales: context.config.locales,
                                 changes: Self.changesJSON(added: changes.added, changed: changes.changed, removed: changes.removed),
                                 started: started, clock: clock, pages: pageRecords, result: result)
        do {
            let store = try openStore()
            let outcome = try clock.measure(.publish) {
                try store.withPublishLock(timeout: options.lockTimeout, waiting: options.log) { lock in
                    try store.publish(PublishRequest(files: files, manifest: manifest, buildRecord: record), holding: lock)
                }
            }
            result.outcome = outcome
            lastBuildPublished = true
            let version = switch outcome { case .published(let version, _), .unchanged(let version): version }
            deltaBase = !keepsSources ? nil : makeDeltaBase(version: version, settings: settings, context: context, pages: pages,
                                      files: files, cacheHeaders: cacheHeaders, result: result, manifest: manifest)
            if case .published(let version, _) = outcome { afterPublish(version, config: context.config, store: store, into: &result) }
        } catch {
            result.operationalError = "\(error)"
        }
        let statusPages = deltaBase?.publishedPages ?? result.outcome.map { _ in publishedPages }
        clock.measure(.status) { writeStatus(result, context: context, pages: statusPages) }
        return result
    }

    /// Said once for the site while a page has a drill carousel and the site no drill catalog.
    var uncheckedDrillsWarning: Diagnostic {
        .warning("\(displayRoot)/site.yaml", "drill ids are not checked: this site has no drill catalog (name one with 'drill_catalog: drills.yaml' in site.yaml)")
    }

    /// The cached sources of pages that link to a page that came or went since the last build:
    /// they are validated again.
    private func relinkedSources(pageIDs: Set<String>) -> Set<String> {
        guard let last = lastContext?.pageIDs, last != pageIDs else { return [] }
        let comeOrGone = last.symmetricDifference(pageIDs)
        return Set(sourceCache.compactMap { path, cached in cached.page.linkedPageIDs.isDisjoint(with: comeOrGone) ? nil : path })
    }

    /// What decides whether a page's output can be carried: its source, its translations, the
    /// settings, previews on or off, where it stands in its schedule, and which of the pages it
    /// links to exist.
    func outputKey(_ page: ProcessedPage, settingsDigest: String, catalogs: [(locale: String, catalog: TranslationCatalog, digest: String)],
                   now: Date, linkState: String) -> String {
        ([settingsDigest, page.sourceDigest, String(options.previews), page.model?.scheduleState(at: now) ?? "", linkState]
            + catalogs.map { $0.locale + $0.digest }.sorted()).joined(separator: "|")
    }

    /// `build.json` of a version: what the build did and how long each stage took.
    func buildRecord(parent: VersionID?, locales: [String], changes: JSONValue, started: UInt64, clock: StageClock,
                     pages: JSONObject, result: SiteBuildResult) -> JSONObject {
        JSONObject([
            ("parent", parent.map { .string($0.description) } ?? .null),
            ("locales", .array(locales.map { .string($0) })),
            ("changes", changes),
            ("seconds_before_publish", .number((Double(DispatchTime.now().uptimeNanoseconds - started) / 1e6).rounded() / 1e3)),
            ("stages_ms", .object(JSONObject(clock.milliseconds.map { ($0.stage.rawValue, .number(($0.ms * 100).rounded() / 100)) }))),
            ("pages", .object(pages)),
            ("diagnostics", .array(result.diagnostics.map(\.json))),
            ("files_rendered", .integer(result.filesRendered)),
        ])
    }

    /// Page ids added, changed and removed, as `build.json` lists them.
    static func changesJSON(added: some Sequence<String>, changed: some Sequence<String>, removed: some Sequence<String>) -> JSONValue {
        func list(_ ids: some Sequence<String>) -> JSONValue { .array(ids.sorted().map { .string($0) }) }
        return ["added": list(added), "changed": list(changed), "removed": list(removed)]
    }

    /// Retention (`keep`) and the publish hook: neither can undo the publish.
    func afterPublish(_ version: VersionID, config: SiteConfig, store: SiteStore, into result: inout SiteBuildResult) {
        let siteFile = "\(displayRoot)/site.yaml"
        // Only when there is something to remove: gc walks every kept version's trees.
        if let keep = config.keep, (try? store.versionCount()).map({ $0 > keep }) ?? true {
            do { try store.gc(keep: keep, reason: "keep: \(keep) in site.yaml") } catch {
                result.diagnostics.append(.warning(siteFile, "retention (keep: \(keep)) failed: \(error)"))
            }
        }
        if let hook = config.publishHook, let failure = PublishHook.run(hook, site: site, version: version, dist: distRoot) {
            result.diagnostics.append(.warning(siteFile, "\(failure); \(version) stays published"))
        }
    }

    typealias PageLists = (pages: Set<String>, changes: (added: [String], changed: [String], removed: [String]))

    /// The cache header files of `files` (and what makes them, kept for deltas), and when
    /// `listingPages`, the pages the files publish (once for the manifest, the change record and
    /// the status) and how they changed: two passes over the same files (60,000 on a large
    /// site), side by side. `files` is lent, not kept: the caller appends to it afterwards.
    static func cacheHeadersAndPageLists(site: String, files: [OutputFile], published: [String: PublishedFile], listingPages: Bool)
        -> (CacheHeaderFiles, [OutputFile], PageLists?) {
        let ((headers, headerFiles), lists) = sideBySide({
            var headers = CacheHeaderFiles(site: site, files: files)
            return (headers, headers.files(published: published))
        }, { () -> PageLists? in
            guard listingPages else { return nil }
            let pages = publishedPages(files)
            return (pages, pageChanges(files, pages: pages, published: published))
        })
        return (headers, headerFiles, lists)
    }

    /// Pages added, changed (a file written anew) and removed against the newest version.
    /// `after`: the pages the new files publish (`publishedPages(files)`).
    static func pageChanges(_ files: [OutputFile], pages after: Set<String>,
                            published: [String: PublishedFile]) -> (added: [String], changed: [String], removed: [String]) {
        func pageID(_ metadata: JSONValue?) -> String? { metadata?["page_id"]?.stringValue }
        let before = Set(published.values.compactMap { pageID($0.metadata) })
        var changed = Set<String>()
        for file in files {
            if case .carried = file.content { continue }
            guard let id = pageID(file.metadata), before.contains(id) else { continue }
            if published[file.path]?.inputDigest != file.inputDigest { changed.insert(id) }
        }
        return (after.subtracting(before).sorted(), changed.sorted(), before.subtracting(after).sorted())
    }

    /// The files of the newest version (what can be carried); none when only checking.
    private func publishedFiles() throws -> [String: PublishedFile] {
        guard options.publish else { return [:] }
        let store = try openStore()
        guard let newest = try store.newestVersion() else { return [:] }
        return try store.files(of: newest)
    }

    private func openStore() throws -> SiteStore {
        if let store { return store }
        let opened = try SiteStore(dist: distRoot, site: site)
        store = opened
        return opened
    }

    // MARK: Assets

    private func assetFiles(_ inventory: SiteInventory, published: [String: PublishedFile], canReuse: (String) -> Bool,
                            into result: inout SiteBuildResult) -> [OutputFile] {
        let reader = SourceFileReader(maxBytes: 64 * 1024 * 1024)
        var files: [OutputFile] = []
        var digests: [String: String] = [:]
        defer { assetDigests = digests }
        for (relative, file) in inventory.assets.sorted(by: { $0.key < $1.key }) {
            let display = "\(displayRoot)/\(file.relativePath)"
            let path = "assets/\(relative)"
            if canReuse(file.path), let digest = assetDigests[file.path], published[path]?.sha256 == digest {
                digests[file.path] = digest
                files.append(OutputFile(path: path, content: .carried, inputDigest: digest))
                continue
            }
            do throws(SourceReadError) {
                let bytes = try reader.read(file.path)
                let digest = SHA256.hash(bytes)
                digests[file.path] = digest
                let content: OutputFile.Content = published[path]?.sha256 == digest ? .carried : .bytes(bytes)
                files.append(OutputFile(path: path, content: content, inputDigest: digest))
            } catch {
                result.diagnostics.append(.error(display, "this file \(error.message)"))
            }
        }
        return files
    }

    // MARK: Status

    /// `pages`: the pages the newest version serves, when the builder knows them (else the store lists them).
    func writeStatus(_ result: SiteBuildResult, context: ValidationContext?, pages: Set<String>? = nil) {
        guard options.publish, let store = try? openStore() else { return }
        let locales = context?.config.locales ?? []
        let write: @Sendable () -> Void = { [statusPages] in
            try? store.writeStatus(StatusReport.files(result: result, store: store, locales: locales, pages: pages, cache: statusPages))
        }
        if options.statusInBackground { statusQueue.submit(write) } else { write() }
    }

    /// Waits for status files still being written in the background.
    public func flushStatus() { statusQueue.flush() }
}
