import Foundation
import QuireModel

// The delta planner: a change set the fast path can take (`deltaScope`; DeltaBase.swift says
// which) builds only the pages it touches and publishes what changed against the base version
// through the one tail (SiteBuilder+Publish), or holds it while its burst goes on (`BurstHold`).
extension SiteBuilder {
    /// From this many pages on, a delta build streams its rendered files into `staging/`.
    static let deltaStreamingPages = 16

    /// Builds and publishes `changed` as a delta; nil when the change set needs the full path.
    /// With `hold`, renders without publishing: the next build adds to it and publishes both.
    func deltaBuild(changed: Set<String>, hold: Bool, inventory: SiteInventory, clock: StageClock, started: UInt64) -> SiteBuildResult? {
        guard options.publish, state.lastBuildPublished, let store,
            var scoped = burst.base.flatMap({ deltaScope(changed, inventory: inventory, base: $0) }),
            // The builder gives its base up while this build changes it (while a delta is held,
            // the base has its pages applied), and what it holds, which this build adds to. Bound
            // from the returned tuple, not copied out of a named one: a second reference to the
            // base would make its first change copy every page's entries.
            case (var base, let held)? = burst.takeForDelta()
        else { return nil }
        if !scoped.addedPages.isEmpty || !scoped.removedPages.isEmpty {
            base.context.pageIDs.formUnion(scoped.addedPages)
            base.context.pageIDs.subtract(scoped.removedPages.keys)
            // A page linking to one that came or went validates and previews differently now.
            let linking = base.pages(linkingTo: scoped.addedPages.union(scoped.removedPages.keys))
            scoped.pages.formUnion(linking.subtracting(scoped.removedPages.keys))
        }
        var scope = held?.scope ?? DeltaScope()
        scope.formUnion(scoped)
        let config = base.context.config
        let pageIDs = scoped.pages.sorted()
        let published: [String: PublishedFile]
        do {
            var paths: [String] = pageIDs.flatMap { base.pagePaths[$0] ?? [] }
            paths += scope.assets.map { "assets/\($0)" } + [CacheHeaderFiles.nginxMapName, CacheHeaderFiles.headersName]
            published = try store.reader.files(paths, of: base.version)
        } catch {
            burst.discard(held, from: &state)
            return nil
        }
        // Only now: had the read failed, the full path must still see the page set change and
        // validate again the cached pages that link to a page that came or went.
        state.setPageIDs(base.context.pageIDs)

        var result = SiteBuildResult(site: site, startedAt: started)
        result.builtAsDelta = true
        result.replicas = config.replicas
        var changes = held?.changes ?? DeltaChanges()
        // The change set's pages on both cores (a translation drop or a checkout touches
        // hundreds), against snapshots of the caches; then applied one by one.
        var pass = PagePass(
            context: base.context, reader: SourceFileReader(maxBytes: config.limits.maxFileBytes),
            settingsDigest: base.settings.digest, published: published, now: options.now(), inventory: inventory,
            pages: scoped.pages, cachedSources: state.sources, cachedTranslations: state.translations,
            reuseSource: { _ in false }, reuseTranslation: { !changed.contains($0) })
        // Many pages (a burst, a checkout) stream their files to disk as a full build does,
        // rather than holding them all until the publish; one page keeps its bytes.
        pass.blobs = held?.blobs
        if pass.blobs == nil && scope.pages.count >= Self.deltaStreamingPages { pass.blobs = try? store.openStagingBlobs() }
        var holding = false
        defer { if !holding { pass.blobs?.close() } }
        for page in pipeline.renderPages(pageIDs, in: pass, clock: clock, keep: { $0 }) {
            apply(page, to: &changes, base: &base, scope: &scope, result: &result, now: pass.now, published: published)
        }
        for (pageID, relativePath) in scoped.removedPages {
            remove(
                pageID, source: relativePath, inventory: inventory, reader: pass.reader, changed: changed, changes: &changes, base: &base,
                scope: &scope)
        }
        result.filesRendered += held?.filesRendered ?? 0
        let rebuilt = Set(result.pagesRebuilt).union(held?.pagesRebuilt ?? [])
        result.pagesRebuilt = rebuilt.sorted()
        if burst.mayHold(scope, requested: hold) {
            holding = true
            burst.hold(
                HeldDelta(changes: changes, scope: scope, blobs: pass.blobs, filesRendered: result.filesRendered, pagesRebuilt: rebuilt),
                on: base)
            result.isHeld = true
            return result
        }

        // The scan's own findings (a refused link, a file that is not a page) on every file whose
        // diagnostics this build replaces.
        changes.otherDiagnostics += inventory.diagnostics.filter { scope.files.contains($0.file) }
        let assets = clock.measure(.read) {
            AssetReader().files(
                inventory.assets.filter { scope.assets.contains($0.key) }, displayRoot: displayRoot, published: published,
                diagnostics: &changes.otherDiagnostics)
        }
        // An asset that cannot be read keeps its last good copy.
        for (path, digest) in assets.digests { state.setAssetDigest(digest, of: path) }
        for file in assets.files {
            if case .carried = file.content { continue }
            changes.add(file)
        }
        clock.measure(.index) {
            changes.addIndexAndFeedFiles(base: &base)
        }
        result.feeds = base.feeds?.summary(locale: config.defaultLocale) ?? []
        if changes.headersChanged {
            for file in base.cacheHeaders.files(published: published) {
                if case .carried = file.content { continue }
                changes.add(file)
            }
        }

        let drills = uncheckedDrillsWarning
        let siteWarnings = base.context.drillIDs == nil && !base.drillCarouselPages.isEmpty ? [drills] : []
        result.diagnostics =
            (base.diagnostics.filter { !scope.files.contains($0.file) && $0 != drills } + changes.diagnostics + siteWarnings)
            .sorted { ($0.file, $0.position) < ($1.file, $1.position) }
        result.pageSources = base.pageSources
        result.pagesTotal = base.countedPages
        result.scheduled = base.allScheduled
        result.coverage = config.locales.map { base.coverage[$0] ?? LocaleCoverage(locale: $0) }
        (result.pagesAdded, result.pagesRemoved) = (changes.added, changes.removedPages)
        base.manifest["pages"] = .integer(base.publishedPages.count)
        base.manifest["coverage"] = .array(result.coverage.map(\.json))
        let record = buildRecord(
            parent: base.version, locales: config.locales,
            changes: Self.changesJSON(added: changes.added, changed: changes.changed, removed: changes.removedPages),
            started: started, clock: clock, pages: changes.records, result: result)
        var plan = PlannedVersion.unchanged(base.version)
        if !changes.isEmpty {
            var delta = PublishDelta(
                base: base.version, files: Array(changes.files.values), removed: changes.removed.sorted(),
                manifest: base.manifest, buildRecord: record)
            delta.user = burst.user
            plan = .delta(delta)
        }
        do {
            try publish(plan, config: config, clock: clock, result: &result) { version, built in
                base.version = version
                base.diagnostics = built.diagnostics
                burst.keep(base)
            }
        } catch {
            result.operationalError = "\(error)"
            return result
        }
        clock.measure(.status) { writeStatus(result, context: base.context, pages: base.publishedPages) }
        return result
    }

    /// Takes one rendered page into the builder's caches, the base and the changes.
    private func apply(
        _ rendered: RenderedPage, to changes: inout DeltaChanges, base: inout DeltaBase, scope: inout DeltaScope,
        result: inout SiteBuildResult, now: Date, published: [String: PublishedFile]
    ) {
        let page = rendered.page
        let pageID = page.pageID
        state.keep(rendered)
        for file in rendered.translationFiles { scope.files.insert("\(displayRoot)/\(file.file.relativePath)") }
        scope.files.insert(page.file)
        // Written only when new: the last result shares the dictionary, and a write would copy it.
        if base.pageSources[page.file] != pageID { base.pageSources[page.file] = pageID }
        base.setLinks(pageID, page.linkedPageIDs)
        if page.usesDrillCarousel { base.drillCarouselPages.insert(pageID) } else { base.drillCarouselPages.remove(pageID) }
        changes.setDiagnostics(page.diagnostics + rendered.translations.diagnostics + (rendered.output?.diagnostics ?? []), of: pageID)
        base.setScheduled(pageID, page.scheduledChanges(after: now))
        guard let output = rendered.output else {
            // A broken page keeps every file it had: nothing of it changes.
            base.update(pageID, summary: PageSummary(counted: page.counted, coverage: []), paths: nil)
            changes.records[pageID] = Self.pageRecord(nil, ok: false)
            return
        }
        let after = changes.apply(output, of: pageID, base: &base, published: published, now: PageIndexFiles.timestamp(now))
        base.update(pageID, summary: PageSummary(counted: page.counted, coverage: output.coverage), paths: after)
        result.filesRendered += output.rendered
        if output.rendered > 0 { result.pagesRebuilt.append(pageID) }
        changes.records[pageID] = Self.pageRecord(output, ok: true)
    }

    /// Takes a page whose source is gone out of the builder's caches and the base; its files leave
    /// the version. Its translation files, of no page now, are read for their own diagnostics, as
    /// a full build reads them.
    private func remove(
        _ pageID: String, source relativePath: String, inventory: SiteInventory, reader: SourceFileReader,
        changed: Set<String>, changes: inout DeltaChanges, base: inout DeltaBase, scope: inout DeltaScope
    ) {
        _ = changes.apply(PageOutput(), of: pageID, base: &base, published: [:], now: "")
        base.remove(pageID)
        base.pageSources["\(displayRoot)/\(relativePath)"] = nil
        state.forgetPage(pageID, sourcePath: "\(siteRoot)/\(relativePath)")
        let orphans = inventory.translationsByPage[pageID] ?? []
        let (loaded, cache) = pipeline.loadTranslations(
            orphans, refused: [], reader: reader, context: base.context,
            cache: state.translations, reuse: { !changed.contains($0) })
        state.keepTranslations(cache)
        for file in orphans { scope.files.insert("\(displayRoot)/\(file.file.relativePath)") }
        changes.setDiagnostics(loaded.diagnostics + PagePipeline.unusedTranslationWarnings(loaded), of: pageID)
    }

    /// Which pages and assets a change set touches; nil when it touches anything site-wide (settings,
    /// vocabulary, drill catalog) or changes the asset set.
    func deltaScope(_ changed: Set<String>, inventory: SiteInventory, base: DeltaBase) -> DeltaScope? {
        var scope = DeltaScope()
        var translatesRemoved = Set<String>()
        for path in changed {
            guard let relative = SitePath.relative(path, in: siteRoot) else { return nil }
            if SitePath.isEditorTemporary(relative) { continue }
            let display = "\(displayRoot)/\(relative)"
            switch SitePath(relative) {
            case .siteFile, .vocabularyFile:
                return nil  // settings: full path
            case .translation(let name?) where name.isTranslationFormat:
                // Of a page built now (checked below), or of a page this change set removes.
                if inventory.pages[name.pageID] != nil { scope.pages.insert(name.pageID) } else { translatesRemoved.insert(name.pageID) }
            case .asset(let name):
                guard base.context.assets.contains(name), inventory.assets[name]?.path == path else { return nil }
                scope.assets.insert(name)
            case .page(let id, let pathExtension) where SitePath.isPageSource(extension: pathExtension):
                if let sources = inventory.pages[id] {
                    guard sources.count == 1, sources[0].path == path else { return nil }
                    // The drill catalog is data, not a page: full path.
                    if base.pages[id] == nil {
                        // The drill catalog is data, and a feed's name is checked against the pages: full path.
                        guard id != base.settings.drillCatalogPageID, !base.context.config.feeds.contains(where: { $0.pageID == id })
                        else { return nil }
                        scope.addedPages.insert(id)
                    }
                    scope.pages.insert(id)
                } else {
                    guard base.pages[id] != nil else { return nil }
                    scope.removedPages[id] = relative
                }
            case .translation, .page:
                // Ignored with a warning (`SiteInventory.classify`): only its diagnostics change
                // (a tool's `page.yaml.new` before its rename, a README).
                break
            }
            scope.files.insert(display)
        }
        // A translation file of a page neither built before nor added now (the drill catalog, a
        // page that does not exist): full path, which reports it.
        guard scope.pages.allSatisfy({ base.pages[$0] != nil || scope.addedPages.contains($0) }),
            translatesRemoved.isSubset(of: scope.removedPages.keys)
        else { return nil }
        return scope
    }
}
