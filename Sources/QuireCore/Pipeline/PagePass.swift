import Foundation
import QuireModel
import Synchronization

// One page of a build, from its source to its rendered files: read, parse and validate it,
// load its translation files, then render it (or carry what the last build rendered). Full and
// delta builds run this for their pages on both cores; what they keep of it differs.

/// What the pages of one build share.
struct PagePass: Sendable {
    var context: ValidationContext
    var reader: SourceFileReader
    var chains: [String: [String]]
    var settingsDigest: String
    var published: [String: PublishedFile]
    var now: Date
    var sources: [String: [SiteInventory.SourceFile]]
    var translationFiles: [String: [SiteInventory.TranslationFile]]
    var refusedTranslations: [String: [SiteInventory.TranslationFile]]
    /// Snapshots of the builder's caches, and when an entry may be used as it is.
    var cachedSources: [String: CachedSource]
    var cachedTranslations: [String: CachedTranslation]
    var reuseSource: @Sendable (String) -> Bool
    var reuseTranslation: @Sendable (String) -> Bool
    /// A restarted watcher's first build: sources (those this says may be) and translation files
    /// whose bytes hash as the restored cache's are not parsed again.
    var reuseSameBytes: (@Sendable (String) -> Bool)?
    /// Outputs of the last build that a page with the same output key carries.
    var previousOutputs: [String: (key: OutputKey, output: PageOutput)] = [:]
    var blobs: StagingBlobs?
    /// False for `quire check`, which publishes nothing: a page is rendered for what rendering
    /// finds, and no file is made of it (kept to the end, a check's files were 4 GB at 100,000
    /// pages).
    var keepsFiles = true

    init(
        context: ValidationContext, reader: SourceFileReader, settingsDigest: String, published: [String: PublishedFile], now: Date,
        inventory: SiteInventory, pages: Set<String>? = nil, cachedSources: [String: CachedSource],
        cachedTranslations: [String: CachedTranslation], reuseSource: @escaping @Sendable (String) -> Bool,
        reuseTranslation: @escaping @Sendable (String) -> Bool
    ) {
        self.context = context
        self.reader = reader
        chains = Dictionary(uniqueKeysWithValues: context.config.locales.map { ($0, context.config.chain(for: $0)) })
        self.settingsDigest = settingsDigest
        self.published = published
        self.now = now
        sources = inventory.pages
        self.reuseSource = reuseSource
        self.reuseTranslation = reuseTranslation
        let wanted = { (file: SiteInventory.TranslationFile) in pages?.contains(file.pageID) ?? true }
        refusedTranslations = Dictionary(grouping: inventory.refusedTranslations.filter(wanted), by: \.pageID)
        guard let pages else {
            translationFiles = inventory.translationsByPage
            self.cachedSources = cachedSources
            self.cachedTranslations = cachedTranslations
            return
        }
        // A delta build: only the pages it names, and only their cache entries. The builder
        // updates its caches while the pass lives, and a pass holding the whole dictionaries
        // would make each update copy them (10,000 pages' entries per edit).
        translationFiles = Dictionary(
            uniqueKeysWithValues: pages.compactMap { page in inventory.translationsByPage[page].map { (page, $0) } })
        let sourcePaths = pages.flatMap { inventory.pages[$0] ?? [] }.map(\.path)
        let translationPaths = (translationFiles.values.flatMap { $0 } + refusedTranslations.values.flatMap { $0 }).map(\.file.path)
        self.cachedSources = cachedSources.subset(sourcePaths)
        self.cachedTranslations = cachedTranslations.subset(translationPaths)
    }
}

/// One page through the pass.
struct RenderedPage: Sendable {
    var page: ProcessedPage
    var source: SiteInventory.SourceFile?
    /// What to cache for its source, and for each of its translation files.
    var cached: CachedSource?
    var translationsCache: [String: CachedTranslation]
    /// Its translation files, refused ones included.
    var translationFiles: [SiteInventory.TranslationFile]
    var translations: LoadedTranslations
    var outputKey: OutputKey
    /// Nil for a page that did not validate: it keeps what it had.
    var output: PageOutput?
}

extension PagePipeline {
    /// `clock` and `shells`: the calling thread's own (see `renderPages`).
    func renderPage(_ pageID: String, in pass: PagePass, clock: StageClock, shells: PreviewShells) -> RenderedPage {
        let sources = pass.sources[pageID] ?? []
        let source = sources.first
        let cachedSource = source.flatMap { pass.cachedSources[$0.path] }
        var (page, cached) = processPage(
            pageID, sources: sources, context: pass.context, reader: pass.reader, clock: clock,
            cached: cachedSource, reuse: source.map { pass.reuseSource($0.path) } ?? false,
            reuseSameBytes: source.map { pass.reuseSameBytes?($0.path) ?? false } ?? false)
        let files = pass.translationFiles[pageID] ?? []
        let refused = pass.refusedTranslations[pageID] ?? []
        let loadTranslations = { (cache: [String: CachedTranslation], reuse: @Sendable (String) -> Bool) in
            let started = DispatchTime.now().uptimeNanoseconds
            defer { clock.add(.translations, DispatchTime.now().uptimeNanoseconds - started) }
            return self.loadTranslations(
                files, refused: refused, reader: pass.reader, context: pass.context, cache: cache, reuse: reuse,
                reuseSameBytes: pass.reuseSameBytes != nil && !cache.isEmpty)
        }
        var (translations, translationsCache) = loadTranslations(pass.cachedTranslations, pass.reuseTranslation)
        var linkState = page.linkState(in: pass.context.pageIDs)
        var key = outputKey(
            page, settingsDigest: pass.settingsDigest, catalogs: translations.byPage[pageID] ?? [], now: pass.now, linkState: linkState)
        var output: PageOutput?
        if let previous = pass.previousOutputs[pageID], previous.key == key, page.hasModel {
            output = previous.output.carried
        } else if page.hasModel {
            // The cache keeps neither a page's model nor its catalogs: rendering reads them again
            // (and the key is made again from what was read; otherwise it stands).
            var reread = false
            if page.model == nil {
                (page, cached) = processPage(
                    pageID, sources: sources, context: pass.context, reader: pass.reader, clock: clock, cached: cachedSource, reuse: false)
                reread = true
            }
            if translations.byPage[pageID]?.contains(where: { $0.catalog == nil }) == true {
                (translations, translationsCache) = loadTranslations([:], { _ in false })
                reread = true
            }
            let catalogs = translations.byPage[pageID] ?? []
            if reread {
                linkState = page.linkState(in: pass.context.pageIDs)
                key = outputKey(page, settingsDigest: pass.settingsDigest, catalogs: catalogs, now: pass.now, linkState: linkState)
            }
            if page.model != nil {
                output = render(
                    page, context: pass.context, chains: pass.chains, catalogs: catalogs,
                    failedLocales: translations.failed[pageID] ?? [],
                    settingsDigest: pass.settingsDigest, published: pass.published, now: pass.now, clock: clock, shells: shells,
                    blobs: pass.blobs, keepsFiles: pass.keepsFiles)
            }
        }
        return RenderedPage(
            page: page, source: source, cached: cached, translationsCache: translationsCache,
            translationFiles: files + refused, translations: translations, outputKey: key, output: output)
    }

    /// Every page of `pageIDs` through the pass, on every core, in order; `keep` takes what the
    /// build needs of each page at once, so the rest (its model, its catalogs) can go.
    func renderPages<Kept: Sendable>(
        _ pageIDs: [String], in pass: PagePass, clock: StageClock,
        progress: (@Sendable (Int, Int) -> Void)? = nil,
        keep: @Sendable (RenderedPage) -> Kept
    ) -> [Kept] {
        let done = Atomic<Int>(0)
        let slots = ResultSlots<Kept>(count: pageIDs.count)
        // Nothing shared is written per page: each thread has its own clock and its own copy of
        // the preview shells (made here, for the depths the pages have), added up once joined.
        let shells = PreviewShells(site: site, pageIDs: previews ? pageIDs : [])
        let workers = (0..<WideConcurrentPerform.threads(iterations: pageIDs.count)).map { _ in
            (clock: StageClock(), shells: shells.unshared)
        }
        // Reading sources blocks when the page cache has let them go: more threads than cores.
        WideConcurrentPerform.run(iterations: pageIDs.count) { worker, index in
            let own = workers[worker]
            slots.set(index, keep(renderPage(pageIDs[index], in: pass, clock: own.clock, shells: own.shells)))
            let count = done.add(1, ordering: .relaxed).newValue
            if count % 100 == 0 || count == pageIDs.count { progress?(count, pageIDs.count) }
        }
        for worker in workers { clock.add(worker.clock) }
        return slots.values.compactMap { $0 }
    }
}

extension Dictionary {
    /// The entries of `keys` that are present.
    fileprivate func subset(_ keys: some Sequence<Key>) -> [Key: Value] {
        var kept: [Key: Value] = [:]
        for key in keys { if let value = self[key] { kept[key] = value } }
        return kept
    }
}
