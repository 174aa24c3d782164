public import QuireModel
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
    public var lockTimeout: Double = 30
    /// Told when another process holds the publish lock.
    public var log: @Sendable (String) -> Void = { _ in }
    /// Told (pages done, pages in all) as pages render, for a progress bar on long builds.
    public var progress: (@Sendable (Int, Int) -> Void)?
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
    static let outputFormat = "quire-output-1"
    /// Bump when previews change for equal pages.
    static let previewFormat = "quire-preview-2"

    private var sourceCache: [String: CachedSource] = [:]
    /// Watch mode: the last scan, pages and outputs, reused for whatever a change set leaves alone.
    private var inventory: SiteInventory?
    private var pageCache: [String: ProcessedPage] = [:]
    private var outputCache: [String: (key: String, output: PageOutput)] = [:]
    private var assetDigests: [String: String] = [:]
    private var lastContext: (settings: String, pageIDs: Set<String>, assets: Set<String>)?
    /// True when the newest version holds every output of the last build (so it can be carried).
    private var lastBuildPublished = false
    private var translationCache: [String: CachedTranslation] = [:]
    private var store: SiteStore?

    struct CachedSource {
        var digest: String
        var parsed: Result<SourceNode, Diagnostic>
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

    /// Builds the site from what is on disk now and publishes it (unless `options.publish` is off).
    /// `changed`: absolute paths that changed since the last build of this builder (from the
    /// watcher); nil reads everything. Only changed sources are read again.
    public func build(changed: Set<String>? = nil) -> SiteBuildResult {
        let started = DispatchTime.now().uptimeNanoseconds
        let clock = StageClock()
        var result = build(clock: clock, changed: changed)
        if result.operationalError != nil {
            // Another process may have published meanwhile: start again from what is on disk.
            forgetCaches()
            if changed != nil { result = build(clock: clock, changed: nil) }
        }
        result.seconds = Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9
        result.stageMilliseconds = clock.milliseconds.map { ($0.stage.rawValue, $0.ms) }
        return result
    }

    private func forgetCaches() {
        inventory = nil
        pageCache = [:]
        outputCache = [:]
        assetDigests = [:]
        lastContext = nil
        lastBuildPublished = false
    }

    private func build(clock: StageClock, changed: Set<String>?) -> SiteBuildResult {
        let started = DispatchTime.now().uptimeNanoseconds
        var result = SiteBuildResult(site: site)
        var inventory = clock.measure(.scan) { () -> SiteInventory in
            if let changed, var previous = self.inventory, previous.update(changed: changed, displayRoot: displayRoot) { return previous }
            return SiteInventory.scan(root: siteRoot, site: site, displayRoot: displayRoot)
        }
        self.inventory = inventory
        // What may be reused: sources the change set does not name, while settings, the page set
        // and the assets (what validation looks at besides the page) are the same.
        result.diagnostics += inventory.diagnostics

        let settings = SiteSettings.load(inventory, site: site, displayRoot: displayRoot)
        result.diagnostics += settings.diagnostics
        guard let context = settings.context else {
            writeStatus(result, context: nil)
            return result
        }
        let reader = SourceFileReader(maxBytes: context.config.limits.maxFileBytes)
        let contextKey = (settings: settings.digest, pageIDs: context.pageIDs, assets: context.assets)
        let sameContext = lastContext.map { $0.settings == contextKey.settings && $0.pageIDs == contextKey.pageIDs && $0.assets == contextKey.assets } ?? false
        lastContext = contextKey
        let isUnchanged: @Sendable (String) -> Bool = { path in changed.map { !$0.contains(path) } ?? false }
        let canReuse: @Sendable (String) -> Bool = { path in sameContext && isUnchanged(path) }
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
        let pages = processPages(pageIDs, inventory: inventory, context: context, reader: reader, clock: clock, canReuse: canReuse)
        let translations = clock.measure(.translations) { loadTranslations(inventory, reader: reader, context: context, isUnchanged: isUnchanged) }
        result.diagnostics += translations.diagnostics

        // Per page: check translations, then render each locale (and audience variant).
        let slots = ResultSlots<PageOutput>(count: pages.count)
        let chains = Dictionary(uniqueKeysWithValues: context.config.locales.map { ($0, context.config.chain(for: $0)) })
        let previousOutputs = lastBuildPublished && sameContext ? outputCache : [:]
        let outputKeys = pages.map { page in
            ([settings.digest, page.sourceDigest, String(options.previews), page.model?.scheduleState(at: now) ?? ""]
                + (translations.byPage[page.pageID] ?? []).map { $0.locale + $0.digest }.sorted()).joined(separator: "|")
        }
        let done = Atomic<Int>(0)
        let progress = options.progress
        DispatchQueue.concurrentPerform(iterations: pages.count) { index in
            defer {
                let count = done.add(1, ordering: .relaxed).newValue
                if count % 100 == 0 || count == pages.count { progress?(count, pages.count) }
            }
            let page = pages[index]
            if page.model != nil, let previous = previousOutputs[page.pageID], previous.key == outputKeys[index] {
                slots.set(index, previous.output.carried)
                return
            }
            slots.set(index, self.render(page, context: context, chains: chains, catalogs: translations.byPage[page.pageID] ?? [],
                                         failedLocales: translations.failed[page.pageID] ?? [],
                                         settingsDigest: settings.digest, published: published, now: now, clock: clock))
        }
        var newOutputs: [String: (key: String, output: PageOutput)] = [:]
        for (index, output) in slots.values.enumerated() where pages[index].model != nil {
            if let output { newOutputs[pages[index].pageID] = (outputKeys[index], output) }
        }
        outputCache = newOutputs
        lastBuildPublished = false
        var files: [OutputFile] = []
        var coverage = Dictionary(uniqueKeysWithValues: context.config.locales.map { ($0, LocaleCoverage(locale: $0)) })
        var pageRecords = JSONObject()
        for (page, output) in zip(pages, slots.values) {
            result.diagnostics += page.diagnostics
            guard let output else { continue }
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
                                        "rendered": .integer(output.rendered), "ok": .bool(page.model != nil)]
            if page.model == nil { files += carry(page.pageID, locales: context.config.locales, published: published) }
        }
        // Translation files whose page does not exist.
        for (pageID, catalogs) in translations.byPage where inventory.pages[pageID] == nil {
            for catalog in catalogs {
                result.diagnostics.append(.warning(catalog.catalog.file, "translates page '\(pageID)', which does not exist: it is not used"))
            }
        }
        files += clock.measure(.read) { assetFiles(inventory, published: published, canReuse: canReuse, into: &result) }
        files += CacheHeaderFiles.make(site: site, pageFiles: files, published: published)
        result.scheduled = pages.compactMap(\.model).filter { !$0.isDraft }.flatMap { $0.scheduledChanges(after: now) }.sorted { ($0.at, $0.pageID) < ($1.at, $1.pageID) }
        if context.drillIDs == nil, pages.contains(where: { $0.model?.allSections.contains { $0.type == "drill_carousel" } == true }) {
            result.diagnostics.append(.warning("\(displayRoot)/site.yaml", "drill ids are not checked: this site has no drill catalog (name one with 'drill_catalog: drills.yaml' in site.yaml)"))
        }
        result.pagesTotal = pages.filter { $0.model != nil || !$0.diagnostics.hasErrors }.count
        result.coverage = context.config.locales.compactMap { coverage[$0] }
        result.diagnostics.sort { ($0.file, $0.position) < ($1.file, $1.position) }

        guard options.publish else { return result }
        var manifest = context.config.manifestFields
        manifest["source_digest"] = .string(sourceDigest(files))
        manifest["pages"] = .integer(Set(files.compactMap { $0.metadata?["page_id"]?.stringValue }).count)
        manifest["coverage"] = .array(result.coverage.map(\.json))
        manifest["vocabulary"] = Self.vocabularyManifest(context.vocabulary)
        let record = JSONObject([
            ("parent", (try? openStore().newestVersion()).flatMap { $0 }.map { .string($0.description) } ?? .null),
            ("locales", .array(context.config.locales.map { .string($0) })),
            ("changes", Self.pageChanges(files, published: published)),
            ("seconds_before_publish", .number((Double(DispatchTime.now().uptimeNanoseconds - started) / 1e6).rounded() / 1e3)),
            ("stages_ms", .object(JSONObject(clock.milliseconds.map { ($0.stage.rawValue, .number(($0.ms * 100).rounded() / 100)) }))),
            ("pages", .object(pageRecords)),
            ("diagnostics", .array(result.diagnostics.map(\.json))),
            ("files_rendered", .integer(result.filesRendered)),
        ])
        do {
            let store = try openStore()
            let outcome = try clock.measure(.publish) {
                try store.withPublishLock(timeout: options.lockTimeout, waiting: options.log) {
                    try store.publish(PublishRequest(files: files, manifest: manifest, buildRecord: record))
                }
            }
            result.outcome = outcome
            lastBuildPublished = true
            if case .published(let version, _) = outcome { afterPublish(version, config: context.config, store: store, into: &result) }
        } catch {
            result.operationalError = "\(error)"
        }
        clock.measure(.status) { writeStatus(result, context: context) }
        return result
    }

    /// Retention (`keep`) and the publish hook: neither can undo the publish.
    private func afterPublish(_ version: VersionID, config: SiteConfig, store: SiteStore, into result: inout SiteBuildResult) {
        let siteFile = "\(displayRoot)/site.yaml"
        if let keep = config.keep {
            do { try store.gc(keep: keep, reason: "keep: \(keep) in site.yaml") } catch {
                result.diagnostics.append(.warning(siteFile, "retention (keep: \(keep)) failed: \(error)"))
            }
        }
        if let hook = config.publishHook, let failure = PublishHook.run(hook, site: site, version: version, dist: distRoot) {
            result.diagnostics.append(.warning(siteFile, "\(failure); \(version) stays published"))
        }
    }

    /// The files of the newest version (what can be carried); none when only checking.
    /// Pages added, changed (a file written anew) and removed against the newest version.
    static func pageChanges(_ files: [OutputFile], published: [String: PublishedFile]) -> JSONValue {
        func pageID(_ metadata: JSONValue?) -> String? { metadata?["page_id"]?.stringValue }
        let before = Set(published.values.compactMap { pageID($0.metadata) })
        let after = Set(files.compactMap { pageID($0.metadata) })
        var changed = Set<String>()
        for file in files {
            guard case .bytes = file.content, let id = pageID(file.metadata), before.contains(id) else { continue }
            if published[file.path]?.inputDigest != file.inputDigest { changed.insert(id) }
        }
        func list(_ ids: Set<String>) -> JSONValue { .array(ids.sorted().map { .string($0) }) }
        return ["added": list(after.subtracting(before)), "changed": list(changed), "removed": list(before.subtracting(after))]
    }

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

    // MARK: Pages

    struct ProcessedPage: Sendable {
        var pageID: String
        var file: String
        var sourceDigest: String
        var model: PageModel?
        var diagnostics: [Diagnostic]
    }

    /// Reads, parses and validates every page, in parallel; unchanged bytes reuse the parse.
    private func processPages(_ pageIDs: [String], inventory: SiteInventory, context: ValidationContext,
                              reader: SourceFileReader, clock: StageClock, canReuse: @Sendable (String) -> Bool) -> [ProcessedPage] {
        let cache = sourceCache
        let processed = pageCache
        let slots = ResultSlots<(ProcessedPage, CachedSource?)>(count: pageIDs.count)
        let limits = context.config.limits
        DispatchQueue.concurrentPerform(iterations: pageIDs.count) { index in
            let pageID = pageIDs[index]
            let sources = inventory.pages[pageID] ?? []
            let display = sources.map { "\(self.displayRoot)/\($0.relativePath)" }
            guard sources.count == 1, let source = sources.first else {
                let names = display.joined(separator: ", ")
                let diagnostics = display.map { Diagnostic.error($0, "page id '\(pageID)' is claimed by more than one file (\(names)): keep one") }
                slots.set(index, (ProcessedPage(pageID: pageID, file: display.first ?? pageID, sourceDigest: "", model: nil, diagnostics: diagnostics), nil))
                return
            }
            let file = display[0]
            if canReuse(source.path), let page = processed[source.path], let cached = cache[source.path] {
                slots.set(index, (page, cached))
                return
            }
            let bytes: [UInt8]
            let readStarted = DispatchTime.now().uptimeNanoseconds
            defer { clock.add(.read, DispatchTime.now().uptimeNanoseconds - readStarted) }
            do throws(SourceReadError) {
                bytes = try reader.read(source.path)
            } catch {
                slots.set(index, (ProcessedPage(pageID: pageID, file: file, sourceDigest: "", model: nil, diagnostics: [.error(file, "this file \(error.message)")]), nil))
                return
            }
            let digest = clock.measure(.hash) { SHA256.hash(bytes) }
            let parsed: Result<SourceNode, Diagnostic>
            if let cached = cache[source.path], cached.digest == digest {
                parsed = cached.parsed
            } else {
                let format = SourceFormat(pathExtension: SiteInventory.splitExtension(source.relativePath).pathExtension) ?? .yaml
                parsed = clock.measure(.parse) { Result { () throws(Diagnostic) in try SourceParser.parse(bytes, format: format, file: file, limits: limits) } }
            }
            var page = ProcessedPage(pageID: pageID, file: file, sourceDigest: digest, model: nil, diagnostics: [])
            switch parsed {
            case .failure(let diagnostic): page.diagnostics = [diagnostic]
            case .success(let root):
                let (model, diagnostics) = clock.measure(.validate) { PageValidator.validate(root, pageID: pageID, file: file, context: context) }
                page.model = model
                page.diagnostics = diagnostics
            }
            slots.set(index, (page, CachedSource(digest: digest, parsed: parsed)))
        }
        var pages: [ProcessedPage] = []
        var newCache: [String: CachedSource] = [:]
        var newPages: [String: ProcessedPage] = [:]
        for (index, slot) in slots.values.enumerated() {
            guard let (page, cached) = slot else { continue }
            pages.append(page)
            if let cached, let source = inventory.pages[pageIDs[index]]?.first {
                newCache[source.path] = cached
                newPages[source.path] = page
            }
        }
        sourceCache = newCache
        pageCache = newPages
        return pages
    }

    // MARK: Translations

    struct LoadedTranslations {
        var byPage: [String: [(locale: String, catalog: TranslationCatalog, digest: String)]] = [:]
        /// Page id -> locales whose translation file could not be read or parsed.
        var failed: [String: Set<String>] = [:]
        var diagnostics: [Diagnostic] = []
    }

    private func loadTranslations(_ inventory: SiteInventory, reader: SourceFileReader, context: ValidationContext,
                                  isUnchanged: (String) -> Bool) -> LoadedTranslations {
        var loaded = LoadedTranslations()
        var newCache: [String: CachedTranslation] = [:]
        for refused in inventory.refusedTranslations { loaded.failed[refused.pageID, default: []].insert(refused.locale) }
        for translation in inventory.translations {
            let display = "\(displayRoot)/\(translation.file.relativePath)"
            if let why = TranslationFileRules.unusedReason(locale: translation.locale, config: context.config) {
                loaded.diagnostics.append(.warning(display, "\(why): not used"))
                continue
            }
            let digest: String
            let parsed: Result<(TranslationCatalog, [Diagnostic]), Diagnostic>
            if isUnchanged(translation.file.path), let cached = translationCache[translation.file.path] {
                (digest, parsed) = (cached.digest, cached.parsed)
            } else {
                let bytes: [UInt8]
                do throws(SourceReadError) { bytes = try reader.read(translation.file.path) } catch {
                    loaded.diagnostics.append(.error(display, "this file \(error.message)"))
                    loaded.failed[translation.pageID, default: []].insert(translation.locale)
                    continue
                }
                digest = SHA256.hash(bytes)
                if let cached = translationCache[translation.file.path], cached.digest == digest {
                    parsed = cached.parsed
                } else {
                    let format = TranslationFormat(pathExtension: SiteInventory.splitExtension(translation.file.relativePath).pathExtension) ?? .yaml
                    parsed = Result { () throws(Diagnostic) in try TranslationFileReader.read(bytes, file: display, format: format) }
                }
            }
            newCache[translation.file.path] = CachedTranslation(digest: digest, parsed: parsed)
            switch parsed {
            case .failure(let diagnostic):
                loaded.diagnostics.append(diagnostic)
                loaded.failed[translation.pageID, default: []].insert(translation.locale)
            case .success(let (catalog, warnings)):
                loaded.diagnostics += warnings
                if let declared = catalog.locale, declared != translation.locale {
                    loaded.diagnostics.append(.error(display, TranslationFileRules.misplaced(declared: declared, folder: translation.locale)))
                    continue
                }
                loaded.byPage[translation.pageID, default: []].append((translation.locale, catalog, digest))
            }
        }
        translationCache = newCache
        return loaded
    }

    // MARK: Rendering

    struct PageOutput: Sendable {
        var files: [OutputFile] = []
        var diagnostics: [Diagnostic] = []
        var rendered = 0
        var coverage: [String: LocaleCoverage] = [:]
        var milliseconds: Double = 0

        /// The same output once published: every file carried from the newest version.
        var carried: PageOutput {
            var copy = self
            copy.files = files.map { OutputFile(path: $0.path, content: .carried, inputDigest: $0.inputDigest, metadata: $0.metadata) }
            copy.rendered = 0
            copy.milliseconds = 0
            return copy
        }
    }

    private func render(_ page: ProcessedPage, context: ValidationContext, chains: [String: [String]],
                        catalogs: [(locale: String, catalog: TranslationCatalog, digest: String)], failedLocales: Set<String>,
                        settingsDigest: String, published: [String: PublishedFile], now: Date, clock: StageClock) -> PageOutput {
        let started = DispatchTime.now().uptimeNanoseconds
        var output = PageOutput()
        defer { output.milliseconds = Double(DispatchTime.now().uptimeNanoseconds - started) / 1e6 }
        guard let model = page.model else { return output }
        let strings = model.translatableStrings
        let (translations, translationDiagnostics) = clock.measure(.merge) {
            PageTranslations.check(catalogs.map { ($0.locale, $0.catalog) }, strings: strings)
        }
        output.diagnostics += translationDiagnostics
        let config = context.config
        // A draft, or a page outside its schedule, stays out of published pages; its preview still shows it.
        let isDraft = model.isDraft || !model.schedule.isLive(at: now)
        let audiences = isDraft ? [] : PageRenderer.audiences(of: model)
        let minimumAppVersions = Dictionary(context.vocabulary.types.compactMap { type in type.minimumAppVersion.map { (type.name, $0) } }, uniquingKeysWith: { $1 })
        let scheduleState = model.scheduleState(at: now)
        for locale in config.locales {
            let chain = chains[locale] ?? [locale]
            // A broken translation file never replaces a good translated page with a fallback:
            // the locale keeps its last good output (a page never published renders as usual).
            if !failedLocales.isDisjoint(with: chain) {
                let kept = carry(page.pageID, locales: [locale], published: published)
                if !kept.isEmpty {
                    output.files += kept
                    continue
                }
            }
            output.coverage[locale] = translations.coverage(of: strings, locale: locale, defaultLocale: config.defaultLocale)
            var inputs = SHA256()
            inputs.update(settingsDigest)
            inputs.update(page.sourceDigest)
            inputs.update("schedule:" + scheduleState)
            for catalog in catalogs where chain.contains(catalog.locale) { inputs.update(catalog.locale + catalog.digest) }
            let inputDigest = inputs.finalize()
            let renderer = PageRenderer(locale: locale, defaultTTL: config.ttl, now: now, minimumAppVersions: minimumAppVersions) { string in
                translations.resolve(string, chain: chain, defaultLocale: config.defaultLocale, stalePolicy: config.stalePolicy).text
            }
            let previewPath = "preview/\(locale)/\(page.pageID).html"
            let previewDigest = inputDigest + "+" + Self.previewFormat
            let previewCarried = published[previewPath]?.inputDigest == previewDigest
            if options.previews && previewCarried {
                output.files.append(OutputFile(path: previewPath, content: .carried, inputDigest: previewDigest))
            }
            for audience in [nil] + audiences.map(Optional.some) {
                let path = PageRenderer.path(pageID: page.pageID, locale: locale, audience: audience)
                let needsPreview = audience == nil && options.previews && !previewCarried
                let digest = audience.map { inputDigest + "@" + $0 } ?? inputDigest
                // Part 1 records how many parts there are, so carrying brings the others along.
                if !isDraft && !needsPreview, let carried = published[path], carried.inputDigest == digest {
                    let parts = carried.metadata?["parts"]?.intValue ?? 1
                    for part in 1...max(parts, 1) {
                        let partPath = PageRenderer.path(pageID: page.pageID, locale: locale, audience: audience, part: part)
                        output.files.append(OutputFile(path: partPath, content: .carried, inputDigest: digest, metadata: published[partPath]?.metadata))
                    }
                    continue
                }
                let rendered = clock.measure(.markdown) { renderer.render(model, audience: audience) }
                if locale == config.defaultLocale && audience == nil {
                    for (string, what) in rendered.removed {
                        output.diagnostics.append(.warning(page.file, at: string.position, keyPath: string.keyPath, "removed \(what): apps never receive it"))
                    }
                }
                if needsPreview {
                    let preview = PreviewContext(site: site, locale: locale, pageID: page.pageID, version: nil, sitePageIDs: context.pageIDs)
                    let html = clock.measure(.preview) { PagePreview.html(page: rendered.page, context: preview) }
                    output.files.append(OutputFile(path: previewPath, content: .bytes(html), inputDigest: previewDigest))
                }
                if isDraft { continue }
                for (index, part) in rendered.parts.enumerated() {
                    let partPath = PageRenderer.path(pageID: page.pageID, locale: locale, audience: audience, part: index + 1)
                    var metadata: JSONObject = ["page_id": .string(page.pageID), "locale": .string(locale), "ttl": .integer(model.ttl ?? config.ttl),
                                                "audience": audience.map(JSONValue.string) ?? .null]
                    if rendered.parts.count > 1 { metadata["part"] = .integer(index + 1); metadata["parts"] = .integer(rendered.parts.count) }
                    if published[partPath]?.inputDigest == digest && published[partPath]?.metadata == .object(metadata) {
                        output.files.append(OutputFile(path: partPath, content: .carried, inputDigest: digest, metadata: .object(metadata)))
                        continue
                    }
                    let bytes = clock.measure(.encode) { JSONWriter(pretty: true).bytes(part) }
                    output.files.append(OutputFile(path: partPath, content: .bytes(bytes), inputDigest: digest, metadata: .object(metadata)))
                    output.rendered += 1
                }
            }
        }
        return output
    }

    /// Per section type, the first app version that renders it (manifest `vocabulary`).
    static func vocabularyManifest(_ vocabulary: Vocabulary) -> JSONValue {
        var types = JSONObject()
        for type in vocabulary.types {
            types[type.name] = ["min_app_version": type.minimumAppVersion.map(JSONValue.string) ?? .null]
        }
        return .object(types)
    }

    /// A page that failed keeps every file it had in the newest version.
    private func carry(_ pageID: String, locales: [String], published: [String: PublishedFile]) -> [OutputFile] {
        var files: [OutputFile] = []
        for locale in locales {
            if let preview = published["preview/\(locale)/\(pageID).html"] {
                files.append(OutputFile(path: "preview/\(locale)/\(pageID).html", content: .carried, inputDigest: preview.inputDigest))
            }
            // Every file of the page (variants, parts), by what its metadata says.
            for (path, file) in published where file.metadata?["page_id"]?.stringValue == pageID && file.metadata?["locale"]?.stringValue == locale {
                files.append(OutputFile(path: path, content: .carried, inputDigest: file.inputDigest, metadata: file.metadata))
            }
        }
        return files
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

    /// One digest over every input of the version, recorded in the manifest.
    private func sourceDigest(_ files: [OutputFile]) -> String {
        var hasher = SHA256()
        // Files come in a fixed order (pages by id, locales as configured, then assets): no sort.
        for file in files {
            hasher.update(file.path)
            hasher.update([0])
            hasher.update(file.inputDigest)
            hasher.update([10])
        }
        return hasher.finalize()
    }

    // MARK: Status

    private func writeStatus(_ result: SiteBuildResult, context: ValidationContext?) {
        guard options.publish, let store = try? openStore() else { return }
        let status = StatusReport.make(result: result, store: store, locales: context?.config.locales ?? [])
        try? store.writeStatus(StatusReport.files(status))
    }
}
