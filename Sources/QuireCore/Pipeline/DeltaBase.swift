import Foundation
import QuireModel

// The watcher's fast path (ARCHITECTURE.md, "One save, end to end"). A change set that touches
// only page sources, translation files and the bytes of existing assets changes what other
// pages validate or render to only where they link to a page that came or went (settings and
// the asset set are as the last build left them), so only those pages are built, and what
// changed is published as a delta against the version the last build published. Its cost
// follows the edit, not the site. Anything else takes the full path.

/// What the last published build left for the next delta.
struct DeltaBase {
    var version: VersionID
    /// Every scheduled change up to this time is in `version`: when the last full build ran (a
    /// scheduled change starts one) or the restart that made the base. A restart builds again
    /// the pages whose schedule changed since.
    var builtAt: Date
    var settings: SiteSettings
    var context: ValidationContext
    /// Page id -> its files in `version` (locales, variants, parts, previews).
    private(set) var pagePaths: [String: Set<String>] = [:]
    private(set) var pages: [String: PageSummary] = [:]
    /// Site-wide figures, kept up to date page by page (summing 10,000 pages per edit would
    /// make an edit cost the site's size again).
    private(set) var countedPages = 0
    private(set) var coverage: [String: LocaleCoverage] = [:]
    private(set) var scheduled: [String: [ScheduledChange]] = [:]
    /// Pages with a published page file (not only a preview): the manifest counts them, the
    /// status report lists them.
    private(set) var publishedPages: Set<String> = []
    /// Every diagnostic of the last build (before retention and hook warnings).
    var diagnostics: [Diagnostic] = []
    var cacheHeaders: CacheHeaderFiles
    /// Nil when the build that made the base did not publish.
    var pageIndex: PageIndexFiles?
    var feeds: FeedFiles?
    var pageSources: [String: String] = [:]
    var manifest = JSONObject()
    /// Page id -> the page ids it looked up (`ProcessedPage.linkedPageIDs`), and the reverse:
    /// the pages to build again when a page comes or goes.
    private(set) var links: [String: Set<String>] = [:]
    private(set) var linkedFrom: [String: Set<String>] = [:]
    /// Pages with a drill carousel: while there is one and no drill catalog, the site is warned.
    var drillCarouselPages: Set<String> = []

    init(version: VersionID, builtAt: Date, settings: SiteSettings, context: ValidationContext, cacheHeaders: CacheHeaderFiles) {
        self.version = version
        self.builtAt = builtAt
        self.settings = settings
        self.context = context
        self.cacheHeaders = cacheHeaders
    }

    /// Replaces what is known of one page (`paths`: nil keeps its files).
    mutating func update(_ pageID: String, summary: PageSummary, paths: Set<String>?) {
        if let old = pages[pageID] { count(old, sign: -1) }
        pages[pageID] = summary
        count(summary, sign: 1)
        guard let paths else { return }
        pagePaths[pageID] = paths
        if paths.contains(where: OutputPath.servesPage) { publishedPages.insert(pageID) } else { publishedPages.remove(pageID) }
    }

    /// Forgets a page whose source is gone.
    mutating func remove(_ pageID: String) {
        if let old = pages.removeValue(forKey: pageID) { count(old, sign: -1) }
        pagePaths[pageID] = nil
        publishedPages.remove(pageID)
        scheduled[pageID] = nil
        drillCarouselPages.remove(pageID)
        setLinks(pageID, [])
    }

    mutating func setLinks(_ pageID: String, _ ids: Set<String>) {
        let old = links[pageID] ?? []
        guard old != ids else { return }
        for id in old.subtracting(ids) {
            linkedFrom[id]?.remove(pageID)
            if linkedFrom[id]?.isEmpty == true { linkedFrom[id] = nil }
        }
        for id in ids.subtracting(old) { linkedFrom[id, default: []].insert(pageID) }
        links[pageID] = ids.isEmpty ? nil : ids
    }

    /// The pages that look up any of `ids`.
    func pages(linkingTo ids: some Sequence<String>) -> Set<String> {
        ids.reduce(into: Set<String>()) { pages, id in pages.formUnion(linkedFrom[id] ?? []) }
    }

    private mutating func count(_ page: PageSummary, sign: Int) {
        if page.counted { countedPages += sign }
        for counts in page.coverage {
            var total = coverage[counts.locale] ?? LocaleCoverage(locale: counts.locale)
            total.add(counts, sign: sign)
            coverage[counts.locale] = total
        }
    }

    /// Pages and sections still to be published or expired, soonest first.
    mutating func setScheduled(_ pageID: String, _ changes: [ScheduledChange]) {
        scheduled[pageID] = changes.isEmpty ? nil : changes
    }

    var allScheduled: [ScheduledChange] {
        scheduled.values.flatMap { $0 }.sorted { ($0.at, $0.pageID) < ($1.at, $1.pageID) }
    }

    /// Page id -> its files, from a whole version's paths and metadata; `other` sees the files
    /// of no page.
    static func pagePaths(
        _ files: some Sequence<(path: String, metadata: JSONValue?)>, other: (_ path: String, _ metadata: JSONValue?) -> Void = { _, _ in }
    ) -> [String: Set<String>] {
        var pagePaths: [String: Set<String>] = [:]
        for file in files {
            if let id = OutputPath.pageID(ofOutput: file.path, metadata: file.metadata) {
                pagePaths[id, default: []].insert(file.path)
            } else {
                other(file.path, file.metadata)
            }
        }
        return pagePaths
    }

    /// All that is known of one page, at a full build or a restore.
    private mutating func add(
        _ pageID: String, summary: PageSummary, paths: Set<String>, scheduled: [ScheduledChange], links: Set<String>,
        usesDrillCarousel: Bool
    ) {
        update(pageID, summary: summary, paths: paths)
        setScheduled(pageID, scheduled)
        setLinks(pageID, links)
        if usesDrillCarousel { drillCarouselPages.insert(pageID) }
    }

    /// The base a full build leaves behind once published (`now`: the build's time).
    static func afterFullBuild(
        version: VersionID, now: Date, settings: SiteSettings, context: ValidationContext, pages: [PageBuild],
        files: [OutputFile], cacheHeaders: CacheHeaderFiles, pageIndex: PageIndexFiles?, feeds: FeedFiles?,
        result: SiteBuildResult, manifest: JSONObject
    ) -> DeltaBase {
        let pagePaths = Self.pagePaths(files.lazy.map { ($0.path, $0.metadata) })
        var base = DeltaBase(version: version, builtAt: now, settings: settings, context: context, cacheHeaders: cacheHeaders)
        for page in pages {
            base.add(
                page.pageID, summary: PageSummary(counted: page.counted, coverage: page.output?.coverage ?? []),
                paths: pagePaths[page.pageID] ?? [], scheduled: page.scheduled, links: page.linkedPageIDs,
                usesDrillCarousel: page.usesDrillCarousel)
        }
        base.pageIndex = pageIndex
        base.feeds = feeds
        base.diagnostics = result.diagnostics
        base.pageSources = result.pageSources
        base.manifest = manifest
        return base
    }

    /// The base a restarted watcher's first build applies what changed to: each page as the
    /// stopped watcher left it (`RestartCache`), and the version's files as `tables` made them
    /// from the newest version, the one the cache names (`now`: the restart's time).
    static func restored(
        from cache: RestartCache, diagnostics: [Diagnostic], settings: SiteSettings, context: ValidationContext, version: VersionID,
        tables: RestoredTables, manifest: JSONObject, now: Date
    ) -> DeltaBase {
        var base = DeltaBase(version: version, builtAt: now, settings: settings, context: context, cacheHeaders: tables.cacheHeaders)
        base.pageSources.reserveCapacity(cache.sources.count)
        for cached in cache.sources.values {
            let page = cached.page
            base.add(
                page.pageID, summary: PageSummary(counted: page.counted, coverage: cache.outputs[page.pageID]?.output.coverage ?? []),
                paths: tables.pagePaths[page.pageID] ?? [], scheduled: page.scheduledChanges(after: now), links: page.linkedPageIDs,
                usesDrillCarousel: page.usesDrillCarousel)
            base.pageSources[page.file] = page.pageID
        }
        base.pageIndex = tables.pageIndex
        base.feeds = tables.feeds
        base.diagnostics = diagnostics
        base.manifest = manifest
        return base
    }
}

/// Per page, what site-wide figures are summed from.
struct PageSummary {
    /// Counted in `pagesTotal` (built, or broken only by warnings).
    var counted: Bool
    /// One for each locale the page was rendered in (`PageOutput.coverage`).
    var coverage: [LocaleCoverage]
}
