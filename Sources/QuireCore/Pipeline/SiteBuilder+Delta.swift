import QuireModel
import Foundation

// The watcher's fast path. A change set that touches only page sources, translation files and
// the bytes of existing assets changes what other pages validate or render to only where they
// link to a page that came or went (settings and the asset set are as the last build left them),
// so only those pages are built, and what changed is published as a delta against the version
// the last build published. Its cost follows the edit, not the site. Anything else takes the
// full path.
extension SiteBuilder {

    /// What the last published build left for the next delta.
    struct DeltaBase {
        var version: VersionID
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
        var pageSources: [String: String] = [:]
        var manifest = JSONObject()
        /// Page id -> the page ids it looked up (`ProcessedPage.linkedPageIDs`), and the reverse:
        /// the pages to build again when a page comes or goes.
        private(set) var links: [String: Set<String>] = [:]
        private(set) var linkedFrom: [String: Set<String>] = [:]
        /// Pages with a drill carousel: while there is one and no drill catalog, the site is warned.
        var drillCarouselPages: Set<String> = []

        init(version: VersionID, settings: SiteSettings, context: ValidationContext, cacheHeaders: CacheHeaderFiles) {
            self.version = version
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
            if paths.contains(where: SiteBuilder.servesPage) { publishedPages.insert(pageID) } else { publishedPages.remove(pageID) }
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
            for (locale, counts) in page.coverage {
                var total = coverage[locale] ?? LocaleCoverage(locale: locale)
                total.translated += sign * counts.translated
                total.stale += sign * counts.stale
                total.missing += sign * counts.missing
                coverage[locale] = total
            }
        }

        /// Pages and sections still to be published or expired, soonest first.
        mutating func setScheduled(_ pageID: String, _ changes: [ScheduledChange]) {
            scheduled[pageID] = changes.isEmpty ? nil : changes
        }

        var allScheduled: [ScheduledChange] {
            scheduled.values.flatMap { $0 }.sorted { ($0.at, $0.pageID) < ($1.at, $1.pageID) }
        }
    }

    /// Per page, what site-wide figures are summed from.
    struct PageSummary {
        /// Counted in `pagesTotal` (built, or broken only by warnings).
        var counted: Bool
        var coverage: [String: LocaleCoverage]
    }

    /// What the pages of a delta build change, gathered one page at a time. A page may be
    /// applied more than once (rendered while its burst went on, then again): its last output
    /// counts, against what the base version had of it.
    struct DeltaChanges {
        /// By path: a later output of the same file replaces an earlier one.
        private(set) var files: [String: OutputFile] = [:]
        private(set) var removed: Set<String> = []
        /// Per page, so that a page rendered again replaces its own.
        private var pageDiagnostics: [String: [Diagnostic]] = [:]
        var otherDiagnostics: [Diagnostic] = []
        var records = JSONObject()
        /// Each page's files in the base version, as the first apply of the page found them.
        private var basePaths: [String: Set<String>] = [:]
        private var pageChanges: [String: PageChange] = [:]
        /// A page file came, went or changed its cache lifetime: the cache header files change.
        var headersChanged = false

        private enum PageChange { case added, changed, removed }

        var diagnostics: [Diagnostic] { pageDiagnostics.values.flatMap { $0 } + otherDiagnostics }
        var added: [String] { pages(.added) }
        var changed: [String] { pages(.changed) }
        var removedPages: [String] { pages(.removed) }
        var isEmpty: Bool { files.isEmpty && removed.isEmpty }

        private func pages(_ change: PageChange) -> [String] {
            pageChanges.compactMap { $0.value == change ? $0.key : nil }.sorted()
        }

        mutating func add(_ file: OutputFile) { files[file.path] = file }

        mutating func setDiagnostics(_ diagnostics: [Diagnostic], of pageID: String) { pageDiagnostics[pageID] = diagnostics }

        /// Takes a page's new output against what the base has of it; returns its new paths.
        mutating func apply(_ output: PageOutput, of pageID: String, base: inout DeltaBase) -> Set<String> {
            let before = base.pagePaths[pageID] ?? []
            let inBase = basePaths[pageID] ?? before
            basePaths[pageID] = inBase
            let after = Set(output.files.map(\.path))
            // An earlier output of this page in this delta is replaced whole, carried files included.
            for path in before.union(after) { files[path] = nil }
            let written = output.files.filter { if case .carried = $0.content { false } else { true } }
            for file in written { files[file.path] = file }
            removed.formUnion(inBase.subtracting(after))
            removed.subtract(after)
            for path in before.subtracting(after) where base.cacheHeaders.set(path, nil) { headersChanged = true }
            for file in output.files {
                guard let entry = CacheHeaderFiles.entry(file.metadata) else { continue }
                if base.cacheHeaders.set(file.path, entry) { headersChanged = true }
            }
            let served = { (paths: Set<String>) in paths.contains(where: SiteBuilder.servesPage) }
            switch (served(inBase), served(after)) {
            case (false, true): pageChanges[pageID] = .added
            case (true, false): pageChanges[pageID] = .removed
            case (true, true) where written.contains(where: { SiteBuilder.servesPage($0.path) }): pageChanges[pageID] = .changed
            default: pageChanges[pageID] = nil
            }
            return after
        }
    }

    /// A delta rendered while its burst was still being written (`build(changed:hold:)`), not
    /// published yet: the next build adds to it and publishes it all as one version. Its pages
    /// are applied to `deltaBase` meanwhile.
    struct HeldDelta {
        var changes: DeltaChanges
        var scope: DeltaScope
        var blobs: StagingBlobs?
        var filesRendered = 0
        var pagesRebuilt: Set<String> = []
    }

    /// What a change set touches, when the fast path can take it.
    struct DeltaScope {
        /// Pages to build: changed, added, or linking to a page added or removed.
        var pages: Set<String> = []
        /// Pages whose source appeared, and pages whose source is gone (-> its path relative to
        /// the site folder): the page set changes.
        var addedPages: Set<String> = []
        var removedPages: [String: String] = [:]
        /// Relative to `assets/`.
        var assets: Set<String> = []
        /// Files (as diagnostics name them) whose diagnostics this build replaces.
        var files: Set<String> = []

        mutating func formUnion(_ other: DeltaScope) {
            pages.formUnion(other.pages)
            addedPages.formUnion(other.addedPages)
            removedPages.merge(other.removedPages) { $1 }
            assets.formUnion(other.assets)
            files.formUnion(other.files)
        }
    }

    static func pageID(ofOutput path: String, metadata: JSONValue?) -> String? {
        if let id = metadata?["page_id"]?.stringValue { return id }
        // `preview/<locale>/<page_id>.html`
        guard path.hasPrefix("preview/"), path.hasSuffix(".html") else { return nil }
        let rest = path.dropFirst("preview/".count).dropLast(".html".count)
        guard let slash = rest.firstIndex(of: "/") else { return nil }
        return String(rest[rest.index(after: slash)...])
    }

    /// Whether an output path is a file apps are served (a page file, an asset), not a preview.
    static func servesPage(_ path: String) -> Bool { !path.hasPrefix("preview/") }

    /// Pages with a published page file, not only a preview (what `DeltaBase.publishedPages`
    /// keeps up to date): the manifest counts them, the change record and the status report
    /// list them.
    static func publishedPages(_ files: [OutputFile]) -> Set<String> {
        var pages = Set<String>()
        for file in files where servesPage(file.path) {
            if let pageID = pageID(ofOutput: file.path, metadata: file.metadata) { pages.insert(pageID) }
        }
        return pages
    }

    /// The base a full build leaves behind once published.
    func makeDeltaBase(version: VersionID, settings: SiteSettings, context: ValidationContext, pages: [PageBuild],
                       files: [OutputFile], cacheHeaders: CacheHeaderFiles,
                       result: SiteBuildResult, manifest: JSONObject) -> DeltaBase {
        var pagePaths: [String: Set<String>] = [:]
        for file in files {
            if let id = Self.pageID(ofOutput: file.path, metadata: file.metadata) { pagePaths[id, default: []].insert(file.path) }
        }
        var base = DeltaBase(version: version, settings: settings, context: context, cacheHeaders: cacheHeaders)
        for page in pages {
            base.update(page.pageID, summary: PageSummary(counted: page.counted, coverage: page.output?.coverage ?? [:]), paths: pagePaths[page.pageID] ?? [])
            base.setScheduled(page.pageID, page.scheduled)
            base.setLinks(page.pageID, page.linkedPageIDs)
            if page.usesDrillCarousel { base.drillCarouselPages.insert(page.pageID) }
        }
        base.diagnostics = result.diagnostics
        base.pageSources = result.pageSources
        base.manifest = manifest
        return base
    }

    /// From this many pages on, a delta build streams its rendered files into `staging/`.
    static let deltaStreamingPages = 16

    /// Builds and publishes `changed` as a delta; nil when the change set needs the full path.
    /// With `hold`, renders without publishing: the next build adds to it and publishes both.
    func deltaBuild(changed: Set<String>, hold: Bool, inventory: SiteInventory, clock: StageClock, started: UInt64) -> SiteBuildResult? {
        guard options.publish, lastBuildPublished, let store, var scoped = deltaBase.flatMap({ deltaScope(changed, inventory: inventory, base: $0) }),
              var base = deltaBase else { return nil }
        // The builder gives its base up while this build changes it: one owner, so updating a
        // page's entries does not copy every other page's. (While a delta is held, the base has
        // its pages applied.)
        deltaBase = nil
        if !scoped.addedPages.isEmpty || !scoped.removedPages.isEmpty {
            base.context.pageIDs.formUnion(scoped.addedPages)
            base.context.pageIDs.subtract(scoped.removedPages.keys)
            // A page linking to one that came or went validates and previews differently now.
            let linking = base.pages(linkingTo: scoped.addedPages.union(scoped.removedPages.keys))
            scoped.pages.formUnion(linking.subtracting(scoped.removedPages.keys))
        }
        let held = heldDelta.take()
        var scope = held?.scope ?? DeltaScope()
        scope.formUnion(scoped)
        let config = base.context.config
        let pageIDs = scoped.pages.sorted()
        let published: [String: PublishedFile]
        do {
            var paths: [String] = pageIDs.flatMap { base.pagePaths[$0] ?? [] }
            paths += scope.assets.map { "assets/\($0)" } + [CacheHeaderFiles.nginxMapName, CacheHeaderFiles.headersName]
            published = try store.files(paths, of: base.version)
        } catch {
            discard(held)
            return nil
        }
        // Only now: had the read failed, the full path must still see the page set change and
        // validate again the cached pages that link to a page that came or went.
        lastContext?.pageIDs = base.context.pageIDs

        var result = SiteBuildResult(site: site)
        result.builtAsDelta = true
        var changes = held?.changes ?? DeltaChanges()
        // The change set's pages on both cores (a translation drop or a checkout touches
        // hundreds), against snapshots of the caches; then applied one by one.
        var pass = PagePass(context: base.context, reader: SourceFileReader(maxBytes: config.limits.maxFileBytes),
                            settingsDigest: base.settings.digest, published: published, now: options.now(), inventory: inventory,
                            pages: scoped.pages, cachedSources: sourceCache, cachedTranslations: translationCache,
                            reuseSource: { _ in false }, reuseTranslation: { !changed.contains($0) })
        // Many pages (a burst, a checkout) stream their files to disk as a full build does,
        // rather than holding them all until the publish; one page keeps its bytes.
        pass.blobs = held?.blobs
        if pass.blobs == nil && scope.pages.count >= Self.deltaStreamingPages { pass.blobs = try? store.openStagingBlobs() }
        var holding = false
        defer { if !holding { pass.blobs?.close() } }
        for page in renderPages(pageIDs, in: pass, clock: clock, keep: { $0 }) {
            apply(page, to: &changes, base: &base, scope: &scope, result: &result, now: pass.now)
        }
        for (pageID, relativePath) in scoped.removedPages {
            remove(pageID, source: relativePath, inventory: inventory, reader: pass.reader, changed: changed, changes: &changes, base: &base, scope: &scope)
        }
        result.filesRendered += held?.filesRendered ?? 0
        let rebuilt = Set(result.pagesRebuilt).union(held?.pagesRebuilt ?? [])
        result.pagesRebuilt = rebuilt.sorted()
        // Assets are read at the publish, never held: a held asset digest would let a full build
        // that discards the hold carry the old bytes.
        if hold && scope.assets.isEmpty {
            holding = true
            deltaBase = base
            heldDelta = HeldDelta(changes: changes, scope: scope, blobs: pass.blobs, filesRendered: result.filesRendered, pagesRebuilt: rebuilt)
            result.isHeld = true
            return result
        }

        // The scan's own findings (a refused link, a file that is not a page) on every file whose
        // diagnostics this build replaces.
        changes.otherDiagnostics += inventory.diagnostics.filter { scope.files.contains($0.file) }
        let assetFiles = clock.measure(.read) {
            changedAssets(scope.assets, inventory: inventory, published: published, diagnostics: &changes.otherDiagnostics)
        }
        for file in assetFiles { changes.add(file) }
        if changes.headersChanged {
            for file in base.cacheHeaders.files(published: published) {
                if case .carried = file.content { continue }
                changes.add(file)
            }
        }

        let drills = uncheckedDrillsWarning
        let siteWarnings = base.context.drillIDs == nil && !base.drillCarouselPages.isEmpty ? [drills] : []
        result.diagnostics = (base.diagnostics.filter { !scope.files.contains($0.file) && $0 != drills } + changes.diagnostics + siteWarnings)
            .sorted { ($0.file, $0.position) < ($1.file, $1.position) }
        result.pageSources = base.pageSources
        result.pagesTotal = base.countedPages
        result.scheduled = base.allScheduled
        result.coverage = config.locales.map { base.coverage[$0] ?? LocaleCoverage(locale: $0) }
        (result.pagesAdded, result.pagesRemoved) = (changes.added, changes.removedPages)
        base.manifest["pages"] = .integer(base.publishedPages.count)
        base.manifest["coverage"] = .array(result.coverage.map(\.json))
        let record = buildRecord(parent: base.version, locales: config.locales,
                                 changes: Self.changesJSON(added: changes.added, changed: changes.changed, removed: changes.removedPages),
                                 started: started, clock: clock, pages: changes.records, result: result)
        do {
            var outcome = PublishOutcome.unchanged(base.version)
            if !changes.isEmpty {
                let delta = PublishDelta(base: base.version, files: Array(changes.files.values), removed: changes.removed.sorted(),
                                         manifest: base.manifest, buildRecord: record)
                outcome = try clock.measure(.publish) {
                    try store.withPublishLock(timeout: options.lockTimeout, waiting: options.log) { lock in try store.publish(delta, holding: lock) }
                }
            }
            result.outcome = outcome
            switch outcome {
            case .published(let version, _), .unchanged(let version): base.version = version
            }
            base.diagnostics = result.diagnostics
            deltaBase = base
            if case .published(let version, _) = outcome { afterPublish(version, config: config, store: store, into: &result) }
        } catch {
            result.operationalError = "\(error)"
            return result
        }
        clock.measure(.status) { writeStatus(result, context: base.context, pages: base.publishedPages) }
        return result
    }

    /// Drops a held delta without publishing it: its staged files go, and so do the outputs its
    /// pages left in `outputCache` (the newest version does not hold them, so they cannot be
    /// carried) and the base they were applied to.
    func discard(_ held: HeldDelta?) {
        guard let held else { return }
        held.blobs?.close()
        for pageID in held.scope.pages { outputCache[pageID] = nil }
        deltaBase = nil
    }

    /// Takes one rendered page into the builder's caches, the base and the changes.
    private func apply(_ rendered: RenderedPage, to changes: inout DeltaChanges, base: inout DeltaBase, scope: inout DeltaScope,
                       result: inout SiteBuildResult, now: Date) {
        let page = rendered.page
        let pageID = page.pageID
        if let source = rendered.source { sourceCache[source.path] = rendered.cached }
        for file in rendered.translationFiles {
            translationCache[file.file.path] = rendered.translationsCache[file.file.path]
            scope.files.insert("\(displayRoot)/\(file.file.relativePath)")
        }
        scope.files.insert(page.file)
        // Written only when new: the last result shares the dictionary, and a write would copy it.
        if base.pageSources[page.file] != pageID { base.pageSources[page.file] = pageID }
        base.setLinks(pageID, page.linkedPageIDs)
        if page.usesDrillCarousel { base.drillCarouselPages.insert(pageID) } else { base.drillCarouselPages.remove(pageID) }
        changes.setDiagnostics(page.diagnostics + rendered.translations.diagnostics + (rendered.output?.diagnostics ?? []), of: pageID)
        base.setScheduled(pageID, page.scheduledChanges(after: now))
        guard let output = rendered.output else {
            // A broken page keeps every file it had: nothing of it changes.
            base.update(pageID, summary: PageSummary(counted: page.counted, coverage: [:]), paths: nil)
            outputCache[pageID] = nil
            changes.records[pageID] = ["ms": 0, "rendered": 0, "ok": false]
            return
        }
        let after = changes.apply(output, of: pageID, base: &base)
        base.update(pageID, summary: PageSummary(counted: page.counted, coverage: output.coverage), paths: after)
        outputCache[pageID] = (rendered.outputKey, output.carried)
        result.filesRendered += output.rendered
        if output.rendered > 0 { result.pagesRebuilt.append(pageID) }
        changes.records[pageID] = ["ms": .number((output.milliseconds * 100).rounded() / 100), "rendered": .integer(output.rendered), "ok": true]
    }

    /// Takes a page whose source is gone out of the builder's caches and the base; its files leave
    /// the version. Its translation files, of no page now, are read for their own diagnostics, as
    /// a full build reads them.
    private func remove(_ pageID: String, source relativePath: String, inventory: SiteInventory, reader: SourceFileReader,
                        changed: Set<String>, changes: inout DeltaChanges, base: inout DeltaBase, scope: inout DeltaScope) {
        _ = changes.apply(PageOutput(), of: pageID, base: &base)
        base.remove(pageID)
        base.pageSources["\(displayRoot)/\(relativePath)"] = nil
        sourceCache["\(siteRoot)/\(relativePath)"] = nil
        outputCache[pageID] = nil
        let orphans = inventory.translationsByPage[pageID] ?? []
        let (loaded, cache) = loadTranslations(orphans, refused: [], reader: reader, context: base.context, cache: translationCache,
                                               reuse: { !changed.contains($0) })
        for (path, entry) in cache { translationCache[path] = entry }
        for file in orphans { scope.files.insert("\(displayRoot)/\(file.file.relativePath)") }
        changes.setDiagnostics(loaded.diagnostics + Self.unusedTranslationWarnings(loaded), of: pageID)
    }

    /// Which pages and assets a change set touches; nil when it touches anything site-wide (settings,
    /// vocabulary, drill catalog) or changes the asset set.
    private func deltaScope(_ changed: Set<String>, inventory: SiteInventory, base: DeltaBase) -> DeltaScope? {
        var scope = DeltaScope()
        var translatesRemoved = Set<String>()
        for path in changed {
            guard path.hasPrefix(siteRoot + "/") else { return nil }
            let relative = String(path.dropFirst(siteRoot.count + 1))
            if relative.split(separator: "/").contains(where: { EditorTempFiles.isIgnored(String($0)) }) { continue }
            let display = "\(displayRoot)/\(relative)"
            let (stem, pathExtension) = SiteInventory.splitExtension(relative)
            if relative.hasPrefix("l10n/") {
                let parts = stem.split(separator: "/", maxSplits: 2).map(String.init)
                if parts.count == 3 && SiteInventory.translationExtensions.contains(pathExtension) {
                    // Of a page built now (checked below), or of a page this change set removes.
                    if inventory.pages[parts[2]] != nil { scope.pages.insert(parts[2]) } else { translatesRemoved.insert(parts[2]) }
                }
            } else if relative.hasPrefix("assets/") {
                let name = String(relative.dropFirst("assets/".count))
                guard base.context.assets.contains(name), inventory.assets[name]?.path == path else { return nil }
                scope.assets.insert(name)
            } else if SiteInventory.pageExtensions.contains(pathExtension) {
                if let sources = inventory.pages[stem] {
                    guard sources.count == 1, sources[0].path == path else { return nil }
                    // The drill catalog is data, not a page: full path.
                    if base.pages[stem] == nil {
                        guard stem != base.settings.drillCatalogPageID else { return nil }
                        scope.addedPages.insert(stem)
                    }
                    scope.pages.insert(stem)
                } else {
                    // Settings and vocabulary are not pages of the base: full path.
                    guard base.pages[stem] != nil else { return nil }
                    scope.removedPages[stem] = relative
                }
            }
            // Anything else is ignored with a warning (`SiteInventory.classify`): only its
            // diagnostics change (a tool's `page.yaml.new` before its rename, a README).
            scope.files.insert(display)
        }
        // A translation file of a page neither built before nor added now (the drill catalog, a
        // page that does not exist): full path, which reports it.
        guard scope.pages.allSatisfy({ base.pages[$0] != nil || scope.addedPages.contains($0) }),
              translatesRemoved.isSubset(of: scope.removedPages.keys) else { return nil }
        return scope
    }

    /// Assets whose bytes changed, read again.
    private func changedAssets(_ names: Set<String>, inventory: SiteInventory, published: [String: PublishedFile],
                               diagnostics: inout [Diagnostic]) -> [OutputFile] {
        let reader = SourceFileReader(maxBytes: 64 * 1024 * 1024)
        var files: [OutputFile] = []
        for name in names.sorted() {
            guard let file = inventory.assets[name] else { continue }
            do throws(SourceReadError) {
                let bytes = try reader.read(file.path)
                let digest = SHA256.hash(bytes)
                assetDigests[file.path] = digest
                if published["assets/\(name)"]?.sha256 != digest { files.append(OutputFile(path: "assets/\(name)", content: .bytes(bytes), inputDigest: digest)) }
            } catch {
                // The asset keeps its last good copy.
                diagnostics.append(.error("\(displayRoot)/\(file.relativePath)", "this file \(error.message)"))
            }
        }
        return files
    }
}
