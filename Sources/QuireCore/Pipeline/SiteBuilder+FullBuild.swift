import Foundation
import QuireModel

// The full planner: every page through the pipeline (carrying what the caches vouch for), the
// whole version planned, then published through the one tail (SiteBuilder+Publish). `quire
// build` always takes it; the watcher takes it for its first build and for any change set the
// delta planner cannot take.
extension SiteBuilder {
    /// Reads, validates and renders every page the caches cannot vouch for, and publishes the
    /// whole version (carrying what did not change).
    func fullBuild(inventory: SiteInventory, changed: Set<String>?, clock: StageClock, started: UInt64) -> SiteBuildResult {
        var result = SiteBuildResult(site: site, startedAt: started)
        var inventory = inventory
        // The full path renders every page that a held delta rendered, and publishes them.
        burst.discard(from: &state)
        result.diagnostics += inventory.diagnostics

        let settings = SiteSettings.load(inventory, site: site, displayRoot: displayRoot)
        result.diagnostics += settings.diagnostics
        guard let context = settings.context else {
            writeStatus(result, context: nil)
            return result
        }
        result.replicas = context.config.replicas
        let reader = SourceFileReader(maxBytes: context.config.limits.maxFileBytes)
        let restored = restoreCaches()
        // What may be reused: sources the change set does not name, while settings and the assets
        // (what validation looks at besides the page) are the same, unless the page links to a
        // page that came or went.
        let (sameContext, relinked) = state.enterContext(settings: settings.digest, pageIDs: context.pageIDs, assets: context.assets)
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
        var pass = PagePass(
            context: context, reader: reader, settingsDigest: settings.digest, published: published, now: now,
            inventory: inventory, cachedSources: state.sources, cachedTranslations: state.translations,
            reuseSource: canReuse, reuseTranslation: isUnchanged)
        // An output is carried by its key, which holds which of the pages it links to exist.
        // Restored outputs (at a restart, or kept since by deltas on its base) are checked first.
        state.keepOutputs(matching: published)
        if restored { pass.reuseSameBytes = { path in sameContext && !relinked.contains(path) } }
        pass.previousOutputs = state.carriableOutputs(sameContext: sameContext)
        // Publishing: rendered files go to disk as they are produced, not into memory (issue 8).
        pass.blobs = options.publish ? try? openStore().openStagingBlobs() : nil
        pass.keepsFiles = options.publish
        defer { pass.blobs?.close() }
        // One pass per page, both cores, letting go of each page once rendered (unless a watcher
        // keeps it for the next build), so a large site never holds every page's model,
        // catalogs and output at once.
        let pages = pipeline.renderPages(pageIDs, in: pass, clock: clock, progress: options.progress) { rendered in
            PageBuild(rendered, keepingCaches: keepsSources, now: now)
        }
        // One loop over the pages for what the next build keeps and what this one reports
        // (10,000 pages: each hashing and copying saved here is saved 10,000 times).
        var newSources: [String: CachedSource] = [:]
        var newTranslations: [String: CachedTranslation] = [:]
        var newOutputs: [String: (key: OutputKey, output: PageOutput)] = [:]
        if keepsSources {  // sized once: no rehash, and no second table beside the first while it grows
            newSources.reserveCapacity(pages.count)
            newTranslations.reserveCapacity(pages.reduce(0) { $0 + $1.translationsCache.count })
            newOutputs.reserveCapacity(pages.count)
        }
        let locales = context.config.locales
        var files: [OutputFile] = []
        files.reserveCapacity(pages.reduce(0) { $0 + ($1.output?.files.count ?? 0) } + 8)
        var coverage = locales.map { LocaleCoverage(locale: $0) }
        var pageRecords: [(key: String, value: JSONValue)] = []
        pageRecords.reserveCapacity(pages.count)
        var pageDiagnostics: [Diagnostic] = []
        result.pageSources.reserveCapacity(pages.count)
        for page in pages {
            if keepsSources {
                if let cached = page.cached, let source = inventory.pages[page.pageID]?.first { newSources[source.path] = cached }
                newTranslations.merge(page.translationsCache) { $1 }
                if page.hasModel, let output = page.output { newOutputs[page.pageID] = (page.outputKey, output) }
            }
            result.pageSources[page.file] = page.pageID
            pageDiagnostics += page.diagnostics
            guard let output = page.output else { continue }
            pageDiagnostics += output.diagnostics
            files += output.files
            result.filesRendered += output.rendered
            if output.rendered > 0 { result.pagesRebuilt.append(page.pageID) }
            for counts in output.coverage {
                guard let index = locales.firstIndex(of: counts.locale) else { continue }
                coverage[index].add(counts)
            }
            pageRecords.append((page.pageID, Self.pageRecord(output, ok: page.hasModel)))
            if !page.hasModel { files += pipeline.carry(page.pageID, locales: locales, published: published) }
        }
        // Translation files whose page does not exist: read for their own diagnostics only.
        // Looked for by page, not file by file (20,000 files, each copied to be looked at).
        let orphans = inventory.translationsByPage.lazy.filter { inventory.pages[$0.key] == nil }.sorted { $0.key < $1.key }
            .flatMap(\.value)
        let (orphanTranslations, orphansCache) = clock.measure(.translations) {
            pipeline.loadTranslations(
                orphans, refused: [], reader: reader, context: context, cache: pass.cachedTranslations, reuse: isUnchanged)
        }
        state.keepFullPass(sources: newSources, translations: newTranslations.merging(orphansCache) { $1 }, outputs: newOutputs)
        // Only what carrying needs is kept, made once the build is done with the outputs it
        // publishes: made here, the copies stood beside them through the publish.
        defer { state.carryOutputs() }
        result.diagnostics += orphanTranslations.diagnostics + PagePipeline.unusedTranslationWarnings(orphanTranslations)
        result.diagnostics += pageDiagnostics
        let assets = clock.measure(.read) {
            AssetReader().files(
                inventory.assets, displayRoot: displayRoot, published: published,
                knownDigest: { file, path in
                    guard canReuse(file.path), let digest = state.assetDigest(file.path) else { return nil }
                    return published[path]?.sha256 == digest ? digest : nil
                }, diagnostics: &result.diagnostics)
        }
        state.replaceAssetDigests(assets.digests)
        files += assets.files
        if options.previews {
            let previewFormat = Digest(PagePipeline.previewFormat)
            files.append(
                OutputFile(
                    path: PagePreview.stylesheetPath, content: .bytes(PagePreview.stylesheet),
                    inputDigest: previewFormat))
            files.append(
                OutputFile(
                    path: PagePreview.scriptPath, content: .bytes(PagePreview.script), inputDigest: previewFormat))
        }
        result.scheduled = pages.flatMap(\.scheduled).sorted { ($0.at, $0.pageID) < ($1.at, $1.pageID) }
        if context.drillIDs == nil, pages.contains(where: \.usesDrillCarousel) { result.diagnostics.append(uncheckedDrillsWarning) }
        result.diagnostics.sort { ($0.file, $0.position) < ($1.file, $1.position) }
        // A build that writes its status in line renders the status's pages beside the cache
        // headers, not on its own after the publish: they depend on nothing the publish does.
        var prepareStatus: (@Sendable (Set<String>) -> Void)?
        if options.publish, !options.statusInBackground {
            let (writer, built) = (statusWriter, result)
            prepareStatus = { pages in writer.prepare(StatusReport.PageParts(result: built, pageIDs: pages, locales: locales)) }
        }
        // The page index names the version it is made for; feeds are made from it.
        var pageIndex: PageIndexFiles?
        var feeds: FeedFiles?
        var version: (parent: VersionID?, next: VersionID)?
        if options.publish {
            let parent = (try? openStore().reader.newestVersion()).flatMap { $0 }
            let next = VersionID((parent?.number ?? 0) + 1)
            let (index, feedFiles, indexFiles) = clock.measure(.index) {
                indexAndFeeds(config: context.config, files: files, published: published, parent: parent, next: next, now: now)
            }
            files += pass.blobs?.stage(indexFiles) ?? indexFiles
            if options.previews { files += feedFiles.previewShells(site: site, published: published) }
            // A build that keeps nothing for the next lets go of the index before the publish.
            (pageIndex, feeds, version) = keepsSources ? (index, feedFiles, (parent, next)) : (nil, nil, (parent, next))
            result.feeds = feedFiles.summary(locale: context.config.defaultLocale)
        }
        let (cacheHeaders, headerFiles, pageLists) = Self.cacheHeadersAndPageLists(
            site: site, files: files, published: published, listingPages: options.publish, alongside: prepareStatus)
        files += pass.blobs?.stage(headerFiles) ?? headerFiles
        result.pagesTotal = pages.reduce(0) { $0 + ($1.counted ? 1 : 0) }  // not `filter`: it copied every page
        result.coverage = coverage

        guard options.publish, let (publishedPages, changes) = pageLists else { return result }
        let manifest = Self.manifestFields(context: context, pages: publishedPages.count, coverage: result.coverage)
        (result.pagesAdded, result.pagesRemoved) = (changes.added, changes.removed)
        let record = buildRecord(
            parent: version?.parent, locales: context.config.locales,
            changes: Self.changesJSON(added: changes.added, changed: changes.changed, removed: changes.removed),
            started: started, clock: clock, pages: JSONObject(distinctKeys: pageRecords), result: result)
        do {
            var request = PublishRequest(files: files, manifest: manifest, buildRecord: record, user: burst.user)
            // The page index names it.
            request.expectedVersion = version?.next
            try publish(.whole(request), config: context.config, clock: clock, result: &result) { version, built in
                state.published()
                burst.keep(
                    !keepsSources
                        ? nil
                        : DeltaBase.afterFullBuild(
                            version: version, now: now, settings: settings, context: context, pages: pages, files: files,
                            cacheHeaders: cacheHeaders,
                            pageIndex: pageIndex, feeds: feeds, result: built, manifest: manifest))
            }
        } catch {
            result.operationalError = "\(error)"
        }
        let statusPages = burst.base?.publishedPages ?? result.outcome.map { _ in publishedPages }
        // Nothing below needs them: freed on the other core while this one writes the status.
        releaseInBackground(consume files, group: backgroundWork)
        releaseInBackground(consume pages, group: backgroundWork)
        clock.measure(.status) { writeStatus(result, context: context, pages: statusPages) }
        return result
    }

    /// `build.json` of a version: what the build did and how long each stage took.
    func buildRecord(
        parent: VersionID?, locales: [String], changes: JSONValue, started: UInt64, clock: StageClock,
        pages: JSONObject, result: SiteBuildResult
    ) -> JSONObject {
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

    typealias PageLists = (pages: Set<String>, changes: (added: [String], changed: [String], removed: [String]))

    /// The cache header files of `files` (and what makes them, kept for deltas), and when
    /// `listingPages`, the pages the files publish (once for the manifest, the change record and
    /// the status) and how they changed, then `alongside` of those pages: two passes over the
    /// same files (60,000 on a large site), side by side. `files` is lent, not kept: the caller
    /// appends to it afterwards.
    static func cacheHeadersAndPageLists(
        site: String, files: [OutputFile], published: [String: PublishedFile], listingPages: Bool,
        alongside: (@Sendable (Set<String>) -> Void)? = nil
    ) -> (CacheHeaderFiles, [OutputFile], PageLists?) {
        let ((headers, headerFiles), lists) = sideBySide(
            {
                var headers = CacheHeaderFiles(site: site, files: files)
                return (headers, headers.files(published: published))
            },
            { () -> PageLists? in
                guard listingPages else { return nil }
                let pages = OutputPath.publishedPages(files)
                let lists = (pages, pageChanges(files, pages: pages, published: published))
                alongside?(pages)
                return lists
            })
        return (headers, headerFiles, lists)
    }

    /// Pages added, changed and removed against the newest version (`PageChange`).
    /// `after`: the pages the new files publish (`publishedPages(files)`).
    static func pageChanges(
        _ files: [OutputFile], pages after: Set<String>,
        published: [String: PublishedFile]
    ) -> (added: [String], changed: [String], removed: [String]) {
        // Only page files carry a page id in their metadata: previews and drafts' parts do not.
        func pageID(_ metadata: JSONValue?) -> String? { OutputMetadata(metadata).pageID }
        let before = Set(published.values.compactMap { pageID($0.metadata) })
        // A first version changes nothing: no need to look at its 60,000 files.
        if before.isEmpty { return (after.sorted(), [], []) }
        var rewrote = Set<String>()
        for file in files {
            if case .carried = file.content { continue }
            guard let id = pageID(file.metadata), published[file.path]?.inputDigest != file.inputDigest else { continue }
            rewrote.insert(id)
        }
        var lists: [PageChange: [String]] = [:]
        for pageID in before.union(after) {
            let change = PageChange(
                wasServed: before.contains(pageID), isServed: after.contains(pageID), rewroteServedFile: rewrote.contains(pageID))
            if let change { lists[change, default: []].append(pageID) }
        }
        return ((lists[.added] ?? []).sorted(), (lists[.changed] ?? []).sorted(), (lists[.removed] ?? []).sorted())
    }

    /// A version's manifest fields besides its files: the site's, how many pages it publishes,
    /// each locale's coverage, the vocabulary.
    static func manifestFields(context: ValidationContext, pages: Int, coverage: [LocaleCoverage]) -> JSONObject {
        var manifest = context.config.manifestFields
        manifest["pages"] = .integer(pages)
        manifest["coverage"] = .array(coverage.map(\.json))
        manifest["vocabulary"] = PagePipeline.vocabularyManifest(context.vocabulary)
        return manifest
    }

    // MARK: The page index

    /// The page index and feeds of a whole version (`files`: every page's files), updated from
    /// the newest version's index (`parent`) for version `next` at `now`, and their files. Nil
    /// `files`: the index as `parent` lists it, and no feed entries.
    func indexAndFeeds(
        config: SiteConfig, files: [OutputFile]?, published: [String: PublishedFile], parent: VersionID?, next: VersionID, now: Date
    ) -> (index: PageIndexFiles, feeds: FeedFiles, files: [OutputFile]) {
        var index = newPageIndex(config: config, parent: parent, published: published)
        var feeds = FeedFiles(feeds: config.feeds, locales: config.locales, ttl: config.ttl)
        if let files {
            index.setEvery(files, published: published, version: next, now: PageIndexFiles.timestamp(now))
            feeds.setEvery(from: index)
        }
        // Made before the tuple copies `index` and `feeds`: making them splits and settles both.
        let made = index.files(base: published).files + feeds.files(base: published).files
        return (index, feeds, made)
    }

    /// The page index as the newest version left it (`parent`), for this build to update: its
    /// parts read on every core (at 100,000 pages, 1,536 parts of about 37 KB).
    func newPageIndex(config: SiteConfig, parent: VersionID?, published: [String: PublishedFile]) -> PageIndexFiles {
        var parts: [(locale: String, path: String)] = []
        for locale in config.locales where parent != nil {
            var part = 1
            while case let path = PageIndexFiles.partPath(locale: locale, part: part), published[path] != nil {
                parts.append((locale, path))
                part += 1
            }
        }
        var previous: [String: [String: PageIndexFiles.BoxedEntry]] = [:]
        if let parent, !parts.isEmpty, let store = try? openStore() {
            let read = ResultSlots<[String: PageIndexFiles.BoxedEntry]>(count: parts.count)
            WideConcurrentPerform.run(iterations: parts.count) { index in
                if let bytes = try? store.reader.bytes(of: parts[index].path, in: parent), let entries = PageIndexFiles.read(bytes) {
                    read.set(index, entries)
                }
            }
            for (part, entries) in zip(parts, read.values) { previous[part.locale, default: [:]].merge(entries ?? [:]) { $1 } }
        }
        return PageIndexFiles(locales: config.locales, appRoutes: config.appRoutes, feeds: config.feeds, previous: previous)
    }
}
