import QuireModel
import Foundation

// The watcher's fast path. A change set that touches only existing page sources, translation
// files and the bytes of existing assets cannot change what any other page validates or renders
// to (settings, the page set and the asset set are as the last build left them), so only those
// pages are built, and what changed is published as a delta against the version the last build
// published. Its cost follows the edit, not the site. Anything else takes the full path.
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
        var cacheEntries: [String: CacheHeaderFiles.Entry] = [:]
        var pageSources: [String: String] = [:]
        var manifest = JSONObject()

        init(version: VersionID, settings: SiteSettings, context: ValidationContext) {
            self.version = version
            self.settings = settings
            self.context = context
        }

        /// Replaces what is known of one page (`paths`: nil keeps its files).
        mutating func update(_ pageID: String, summary: PageSummary, paths: Set<String>?) {
            if let old = pages[pageID] { count(old, sign: -1) }
            pages[pageID] = summary
            count(summary, sign: 1)
            guard let paths else { return }
            pagePaths[pageID] = paths
            if paths.contains(where: { !$0.hasPrefix("preview/") }) { publishedPages.insert(pageID) } else { publishedPages.remove(pageID) }
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

    /// One page of a delta build, rendered, before it is applied.
    private struct DeltaPage: Sendable {
        var page: ProcessedPage
        var cached: CachedSource?
        var translations: LoadedTranslations
        var translationsCache: [String: CachedTranslation]
        var output: PageOutput?
    }

    /// What a change set touches, when the fast path can take it.
    private struct DeltaScope {
        var pages: Set<String> = []
        /// Relative to `assets/`.
        var assets: Set<String> = []
        /// Files (as diagnostics name them) whose diagnostics this build replaces.
        var files: Set<String> = []
    }

    static func pageID(ofOutput path: String, metadata: JSONValue?) -> String? {
        if let id = metadata?["page_id"]?.stringValue { return id }
        // `preview/<locale>/<page_id>.html`
        guard path.hasPrefix("preview/"), path.hasSuffix(".html") else { return nil }
        let rest = path.dropFirst("preview/".count).dropLast(".html".count)
        guard let slash = rest.firstIndex(of: "/") else { return nil }
        return String(rest[rest.index(after: slash)...])
    }

    /// The base a full build leaves behind once published.
    func makeDeltaBase(version: VersionID, settings: SiteSettings, context: ValidationContext, pages: [PageBuild],
                       files: [OutputFile], cacheEntries: [String: CacheHeaderFiles.Entry],
                       result: SiteBuildResult, manifest: JSONObject) -> DeltaBase {
        var pagePaths: [String: Set<String>] = [:]
        for file in files {
            if let id = Self.pageID(ofOutput: file.path, metadata: file.metadata) { pagePaths[id, default: []].insert(file.path) }
        }
        var base = DeltaBase(version: version, settings: settings, context: context)
        for page in pages {
            base.update(page.pageID, summary: PageSummary(counted: page.counted, coverage: page.output?.coverage ?? [:]), paths: pagePaths[page.pageID] ?? [])
            base.setScheduled(page.pageID, page.scheduled)
        }
        base.diagnostics = result.diagnostics
        base.cacheEntries = cacheEntries
        base.pageSources = result.pageSources
        base.manifest = manifest
        return base
    }

    /// Builds and publishes `changed` as a delta; nil when the change set needs the full path.
    func deltaBuild(changed: Set<String>, inventory: SiteInventory, clock: StageClock, started: UInt64) -> SiteBuildResult? {
        guard options.publish, lastBuildPublished, let store, let scoped = deltaBase.flatMap({ deltaScope(changed, inventory: inventory, base: $0) }),
              var base = deltaBase else { return nil }
        // The builder gives its base up while this build changes it: one owner, so updating a
        // page's entries does not copy every other page's.
        deltaBase = nil
        var scope = scoped
        let context = base.context
        let config = context.config
        let reader = SourceFileReader(maxBytes: config.limits.maxFileBytes)
        let now = options.now()
        let chains = Dictionary(uniqueKeysWithValues: config.locales.map { ($0, config.chain(for: $0)) })
        var result = SiteBuildResult(site: site)
        result.builtAsDelta = true
        let pageIDs = scope.pages.sorted()
        let published: [String: PublishedFile]
        do {
            var paths: [String] = pageIDs.flatMap { base.pagePaths[$0] ?? [] }
            paths += scope.assets.map { "assets/\($0)" } + [CacheHeaderFiles.nginxMapName, CacheHeaderFiles.headersName]
            published = try store.files(paths, of: base.version)
        } catch {
            return nil
        }

        var files: [OutputFile] = []
        var removed: [String] = []
        var diagnostics: [Diagnostic] = []
        var records = JSONObject()
        var changes: (added: [String], changed: [String], removed: [String]) = ([], [], [])
        var headersChanged = false
        // The pages of the change set, on both cores (a translation drop or a checkout touches
        // hundreds); what they change is then applied one by one.
        let inScope = { (file: SiteInventory.TranslationFile) in scope.pages.contains(file.pageID) }
        let translationFiles = Dictionary(grouping: inventory.translations.filter(inScope), by: \.pageID)
        let refusedFiles = Dictionary(grouping: inventory.refusedTranslations.filter(inScope), by: \.pageID)
        let pageSources = inventory.pages
        let (sources, translationsCached, settingsDigest) = (sourceCache, translationCache, base.settings.digest)
        let slots = ResultSlots<DeltaPage>(count: pageIDs.count)
        DispatchQueue.concurrentPerform(iterations: pageIDs.count) { index in
            let pageID = pageIDs[index]
            let source = pageSources[pageID]?.first
            let (page, cached) = self.processPage(pageID, sources: pageSources[pageID] ?? [], context: context, reader: reader, clock: clock,
                                                  cached: source.flatMap { sources[$0.path] }, reuse: false)
            let started = DispatchTime.now().uptimeNanoseconds
            let (translations, translationsCache) = self.loadTranslations(
                translationFiles[pageID] ?? [], refused: refusedFiles[pageID] ?? [], reader: reader, context: context,
                cache: translationsCached, reuse: { !changed.contains($0) })
            clock.add(.translations, DispatchTime.now().uptimeNanoseconds - started)
            let output = page.model == nil ? nil : self.render(
                page, context: context, chains: chains, catalogs: translations.byPage[pageID] ?? [], failedLocales: translations.failed[pageID] ?? [],
                settingsDigest: settingsDigest, published: published, now: now, clock: clock)
            slots.set(index, DeltaPage(page: page, cached: cached, translations: translations, translationsCache: translationsCache, output: output))
        }
        for (pageID, slot) in zip(pageIDs, slots.values) {
            guard let slot else { continue }
            let (page, translations) = (slot.page, slot.translations)
            if let source = pageSources[pageID]?.first { sourceCache[source.path] = slot.cached }
            for file in (translationFiles[pageID] ?? []) + (refusedFiles[pageID] ?? []) {
                translationCache[file.file.path] = slot.translationsCache[file.file.path]
                scope.files.insert("\(displayRoot)/\(file.file.relativePath)")
            }
            scope.files.insert(page.file)
            diagnostics += page.diagnostics + translations.diagnostics
            base.setScheduled(pageID, page.scheduledChanges(after: now))
            guard let output = slot.output else {
                // A broken page keeps every file it had: nothing of it changes.
                base.update(pageID, summary: PageSummary(counted: page.counted, coverage: [:]), paths: nil)
                outputCache[pageID] = nil
                records[pageID] = ["ms": 0, "rendered": 0, "ok": false]
                continue
            }
            diagnostics += output.diagnostics
            let before = base.pagePaths[pageID] ?? []
            let after = Set(output.files.map(\.path))
            let written = output.files.filter { if case .carried = $0.content { false } else { true } }
            files += written
            removed += before.subtracting(after).sorted()
            for path in before.subtracting(after) where base.cacheEntries.removeValue(forKey: path) != nil { headersChanged = true }
            for file in output.files {
                guard let entry = CacheHeaderFiles.entry(file.metadata) else { continue }
                if base.cacheEntries.updateValue(entry, forKey: file.path) != entry { headersChanged = true }
            }
            let served = { (paths: Set<String>) in paths.contains { !$0.hasPrefix("preview/") } }
            switch (served(before), served(after)) {
            case (false, true): changes.added.append(pageID)
            case (true, false): changes.removed.append(pageID)
            case (true, true) where written.contains(where: { !$0.path.hasPrefix("preview/") }): changes.changed.append(pageID)
            default: break
            }
            base.update(pageID, summary: PageSummary(counted: page.counted, coverage: output.coverage), paths: after)
            outputCache[pageID] = (outputKey(page, settingsDigest: base.settings.digest, catalogs: translations.byPage[pageID] ?? [], now: now), output.carried)
            result.filesRendered += output.rendered
            if output.rendered > 0 { result.pagesRebuilt.append(pageID) }
            records[pageID] = ["ms": .number((output.milliseconds * 100).rounded() / 100), "rendered": .integer(output.rendered), "ok": true]
        }
        // The scan's own findings (a refused link, a file that is not a page) on every file whose
        // diagnostics this build replaces.
        diagnostics += inventory.diagnostics.filter { scope.files.contains($0.file) }
        files += clock.measure(.read) { changedAssets(scope.assets, inventory: inventory, published: published, diagnostics: &diagnostics) }
        if headersChanged {
            files += CacheHeaderFiles.make(site: site, entries: base.cacheEntries, published: published).filter {
                if case .carried = $0.content { false } else { true }
            }
        }

        result.diagnostics = (base.diagnostics.filter { !scope.files.contains($0.file) } + diagnostics)
            .sorted { ($0.file, $0.position) < ($1.file, $1.position) }
        result.pageSources = base.pageSources
        result.pagesTotal = base.countedPages
        result.scheduled = base.allScheduled
        result.coverage = config.locales.map { base.coverage[$0] ?? LocaleCoverage(locale: $0) }
        base.manifest["pages"] = .integer(base.publishedPages.count)
        base.manifest["coverage"] = .array(result.coverage.map(\.json))

        let record = buildRecord(parent: base.version, locales: config.locales,
                                 changes: Self.changesJSON(added: changes.added, changed: changes.changed, removed: changes.removed),
                                 started: started, clock: clock, pages: records, result: result)
        do {
            let outcome: PublishOutcome
            if files.isEmpty && removed.isEmpty {
                outcome = .unchanged(base.version)
            } else {
                let delta = PublishDelta(base: base.version, files: files, removed: removed, manifest: base.manifest, buildRecord: record)
                outcome = try clock.measure(.publish) {
                    try store.withPublishLock(timeout: options.lockTimeout, waiting: options.log) { try store.publish(delta) }
                }
            }
            result.outcome = outcome
            switch outcome {
            case .published(let version, _): base.version = version
            case .unchanged(let version): base.version = version
            }
            base.diagnostics = result.diagnostics
            deltaBase = base
            if case .published(let version, _) = outcome { afterPublish(version, config: config, store: store, into: &result) }
        } catch {
            result.operationalError = "\(error)"
            return result
        }
        clock.measure(.status) { writeStatus(result, context: context, pages: base.publishedPages) }
        return result
    }

    /// Which pages and assets a change set touches; nil when it touches anything site-wide (settings,
    /// vocabulary, drill catalog) or changes the page or asset set.
    private func deltaScope(_ changed: Set<String>, inventory: SiteInventory, base: DeltaBase) -> DeltaScope? {
        var scope = DeltaScope()
        for path in changed {
            guard path.hasPrefix(siteRoot + "/") else { return nil }
            let relative = String(path.dropFirst(siteRoot.count + 1))
            if relative.split(separator: "/").contains(where: { EditorTempFiles.isIgnored(String($0)) }) { continue }
            let display = "\(displayRoot)/\(relative)"
            let (stem, pathExtension) = SiteInventory.splitExtension(relative)
            if relative.hasPrefix("l10n/") {
                let parts = stem.split(separator: "/", maxSplits: 2).map(String.init)
                if parts.count == 3 && SiteInventory.translationExtensions.contains(pathExtension) {
                    guard base.pages[parts[2]] != nil else { return nil }
                    scope.pages.insert(parts[2])
                }
            } else if relative.hasPrefix("assets/") {
                let name = String(relative.dropFirst("assets/".count))
                guard base.context.assets.contains(name), inventory.assets[name]?.path == path else { return nil }
                scope.assets.insert(name)
            } else if SiteInventory.pageExtensions.contains(pathExtension) {
                // Settings, vocabulary and the drill catalog are not pages of the base: full path.
                guard base.pages[stem] != nil, let sources = inventory.pages[stem], sources.count == 1, sources[0].path == path else { return nil }
                scope.pages.insert(stem)
            }
            // Anything else is ignored with a warning (`SiteInventory.classify`): only its
            // diagnostics change (a tool's `page.yaml.new` before its rename, a README).
            scope.files.insert(display)
        }
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
