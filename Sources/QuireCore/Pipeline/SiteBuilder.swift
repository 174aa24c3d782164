public import QuireModel
import Foundation

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
    static let previewFormat = "quire-preview-1"

    private var sourceCache: [String: CachedSource] = [:]
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
        self.siteRoot = "\(pagesRoot)/\(site)"
        self.displayRoot = "\(pagesRoot)/\(site)"
        self.distRoot = distRoot
        self.options = options
    }

    /// Builds the site from what is on disk now and publishes it (unless `options.publish` is off).
    public func build() -> SiteBuildResult {
        let started = DispatchTime.now().uptimeNanoseconds
        let clock = StageClock()
        var result = build(clock: clock)
        result.seconds = Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9
        result.stageMilliseconds = clock.milliseconds.map { ($0.stage.rawValue, $0.ms) }
        return result
    }

    private func build(clock: StageClock) -> SiteBuildResult {
        var result = SiteBuildResult(site: site)
        let inventory = clock.measure(.scan) { SiteInventory.scan(root: siteRoot, site: site, displayRoot: displayRoot) }
        result.diagnostics += inventory.diagnostics

        let settings = SiteSettings.load(inventory, site: site, displayRoot: displayRoot)
        result.diagnostics += settings.diagnostics
        guard let context = settings.context else {
            writeStatus(result, context: nil)
            return result
        }
        let reader = SourceFileReader(maxBytes: context.config.limits.maxFileBytes)

        // Newest version: what can be carried.
        let published: [String: PublishedFile]
        do {
            published = try publishedFiles()
        } catch {
            result.operationalError = "\(error)"
            return result
        }

        let pageIDs = inventory.pages.keys.sorted()
        let pages = processPages(pageIDs, inventory: inventory, context: context, reader: reader, clock: clock)
        let translations = clock.measure(.translations) { loadTranslations(inventory, reader: reader, context: context) }
        result.diagnostics += translations.diagnostics

        // Per page: check translations, then render each locale (and audience variant).
        let slots = ResultSlots<PageOutput>(count: pages.count)
        let chains = Dictionary(uniqueKeysWithValues: context.config.locales.map { ($0, context.config.chain(for: $0)) })
        DispatchQueue.concurrentPerform(iterations: pages.count) { index in
            slots.set(index, self.render(pages[index], context: context, chains: chains, catalogs: translations.byPage[pages[index].pageID] ?? [],
                                         failedLocales: translations.failed[pages[index].pageID] ?? [],
                                         settingsDigest: settings.digest, published: published, clock: clock))
        }
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
        files += clock.measure(.read) { assetFiles(inventory, published: published, into: &result) }
        result.pagesTotal = pages.filter { $0.model != nil || !$0.diagnostics.hasErrors }.count
        result.coverage = context.config.locales.compactMap { coverage[$0] }
        result.diagnostics.sort { ($0.file, $0.position) < ($1.file, $1.position) }

        guard options.publish else { return result }
        var manifest = context.config.manifestFields
        manifest["source_digest"] = .string(sourceDigest(files))
        manifest["pages"] = .integer(Set(files.compactMap { $0.metadata?["page_id"]?.stringValue }).count)
        manifest["coverage"] = .array(result.coverage.map(\.json))
        let record = JSONObject([
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
                              reader: SourceFileReader, clock: StageClock) -> [ProcessedPage] {
        let cache = sourceCache
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
        for (index, slot) in slots.values.enumerated() {
            guard let (page, cached) = slot else { continue }
            pages.append(page)
            if let cached, let source = inventory.pages[pageIDs[index]]?.first { newCache[source.path] = cached }
        }
        sourceCache = newCache
        return pages
    }

    // MARK: Translations

    struct LoadedTranslations {
        var byPage: [String: [(locale: String, catalog: TranslationCatalog, digest: String)]] = [:]
        /// Page id -> locales whose translation file could not be read or parsed.
        var failed: [String: Set<String>] = [:]
        var diagnostics: [Diagnostic] = []
    }

    private func loadTranslations(_ inventory: SiteInventory, reader: SourceFileReader, context: ValidationContext) -> LoadedTranslations {
        var loaded = LoadedTranslations()
        var newCache: [String: CachedTranslation] = [:]
        for refused in inventory.refusedTranslations { loaded.failed[refused.pageID, default: []].insert(refused.locale) }
        for translation in inventory.translations {
            let display = "\(displayRoot)/\(translation.file.relativePath)"
            guard context.config.locales.contains(translation.locale), translation.locale != context.config.defaultLocale else {
                let why = translation.locale == context.config.defaultLocale
                    ? "is for the default locale '\(translation.locale)', whose text is the page source itself"
                    : "is for '\(translation.locale)', which is not in the site's locales (\(context.config.locales.joined(separator: ", ")))"
                loaded.diagnostics.append(.warning(display, "\(why): not used"))
                continue
            }
            let bytes: [UInt8]
            do throws(SourceReadError) { bytes = try reader.read(translation.file.path) } catch {
                loaded.diagnostics.append(.error(display, "this file \(error.message)"))
                loaded.failed[translation.pageID, default: []].insert(translation.locale)
                continue
            }
            let digest = SHA256.hash(bytes)
            let parsed: Result<(TranslationCatalog, [Diagnostic]), Diagnostic>
            if let cached = translationCache[translation.file.path], cached.digest == digest {
                parsed = cached.parsed
            } else {
                let format = TranslationFormat(pathExtension: SiteInventory.splitExtension(translation.file.relativePath).pathExtension) ?? .yaml
                parsed = Result { () throws(Diagnostic) in try TranslationFileReader.read(bytes, file: display, format: format) }
            }
            newCache[translation.file.path] = CachedTranslation(digest: digest, parsed: parsed)
            switch parsed {
            case .failure(let diagnostic):
                loaded.diagnostics.append(diagnostic)
                loaded.failed[translation.pageID, default: []].insert(translation.locale)
            case .success(let (catalog, warnings)):
                loaded.diagnostics += warnings
                if let declared = catalog.locale, declared != translation.locale {
                    loaded.diagnostics.append(.error(display, "the file says it is for locale '\(declared)' but lies in l10n/\(translation.locale)/: move it or fix its target language"))
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
    }

    private func render(_ page: ProcessedPage, context: ValidationContext, chains: [String: [String]],
                        catalogs: [(locale: String, catalog: TranslationCatalog, digest: String)], failedLocales: Set<String>,
                        settingsDigest: String, published: [String: PublishedFile], clock: StageClock) -> PageOutput {
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
        // A draft stays out of published pages; its preview still shows it.
        let isDraft = model.extras["draft"]?.boolValue == true
        let audiences = isDraft ? [] : PageRenderer.audiences(of: model)
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
            var coverage = LocaleCoverage(locale: locale)
            for string in strings {
                switch translations.state(of: string, locale: locale, defaultLocale: config.defaultLocale) {
                case .source, .translated: coverage.translated += 1
                case .stale: coverage.stale += 1
                case .missing: coverage.missing += 1
                }
            }
            output.coverage[locale] = coverage
            var inputs = SHA256()
            inputs.update(settingsDigest)
            inputs.update(page.sourceDigest)
            for catalog in catalogs where chain.contains(catalog.locale) { inputs.update(catalog.locale + catalog.digest) }
            let inputDigest = inputs.finalize()
            let renderer = PageRenderer(locale: locale, defaultTTL: config.ttl) { string in
                translations.resolve(string, chain: chain, defaultLocale: config.defaultLocale, stalePolicy: config.stalePolicy).text
            }
            let previewPath = "preview/\(locale)/\(page.pageID).html"
            let previewDigest = inputDigest + "+" + Self.previewFormat
            let previewCarried = published[previewPath]?.inputDigest == previewDigest
            if options.previews && previewCarried {
                output.files.append(OutputFile(path: previewPath, content: .carried, inputDigest: previewDigest))
            }
            for audience in [nil] + audiences.map(Optional.some) {
                let path = "\(locale)/\(page.pageID)\(audience.map { "@\($0)" } ?? "").json"
                let needsPreview = audience == nil && options.previews && !previewCarried
                let metadata: JSONValue = ["page_id": .string(page.pageID), "locale": .string(locale), "ttl": .integer(model.ttl ?? config.ttl),
                                           "audience": audience.map(JSONValue.string) ?? .null]
                let digest = audience.map { inputDigest + "@" + $0 } ?? inputDigest
                if !isDraft && !needsPreview && published[path]?.inputDigest == digest {
                    output.files.append(OutputFile(path: path, content: .carried, inputDigest: digest, metadata: metadata))
                    continue
                }
                let rendered = clock.measure(.markdown) { renderer.render(model, audience: audience) }
                if locale == config.defaultLocale && audience == nil {
                    for (string, what) in rendered.removed {
                        output.diagnostics.append(.warning(page.file, at: string.position, keyPath: string.key, "removed \(what): apps never receive it"))
                    }
                }
                if needsPreview {
                    let preview = PreviewContext(site: site, locale: locale, pageID: page.pageID, version: nil, sitePageIDs: context.pageIDs)
                    let html = clock.measure(.preview) { PagePreview.html(page: rendered.page, context: preview) }
                    output.files.append(OutputFile(path: previewPath, content: .bytes(html), inputDigest: previewDigest))
                }
                if isDraft { continue }
                if published[path]?.inputDigest == digest {
                    output.files.append(OutputFile(path: path, content: .carried, inputDigest: digest, metadata: metadata))
                    continue
                }
                let bytes = clock.measure(.encode) { JSONWriter(pretty: true).bytes(rendered.page) }
                output.files.append(OutputFile(path: path, content: .bytes(bytes), inputDigest: digest, metadata: metadata))
                output.rendered += 1
            }
        }
        return output
    }

    /// A page that failed keeps every file it had in the newest version.
    private func carry(_ pageID: String, locales: [String], published: [String: PublishedFile]) -> [OutputFile] {
        var files: [OutputFile] = []
        for locale in locales {
            if let preview = published["preview/\(locale)/\(pageID).html"] {
                files.append(OutputFile(path: "preview/\(locale)/\(pageID).html", content: .carried, inputDigest: preview.inputDigest))
            }
            let plain = "\(locale)/\(pageID).json"
            let variantPrefix = "\(locale)/\(pageID)@"
            for (path, file) in published where path == plain || (path.hasPrefix(variantPrefix) && !path.dropFirst(variantPrefix.count).contains("/")) {
                files.append(OutputFile(path: path, content: .carried, inputDigest: file.inputDigest, metadata: file.metadata))
            }
        }
        return files
    }

    // MARK: Assets

    private func assetFiles(_ inventory: SiteInventory, published: [String: PublishedFile], into result: inout SiteBuildResult) -> [OutputFile] {
        let reader = SourceFileReader(maxBytes: 64 * 1024 * 1024)
        var files: [OutputFile] = []
        for (relative, file) in inventory.assets.sorted(by: { $0.key < $1.key }) {
            let display = "\(displayRoot)/\(file.relativePath)"
            do throws(SourceReadError) {
                let bytes = try reader.read(file.path)
                let digest = SHA256.hash(bytes)
                let path = "assets/\(relative)"
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
        for file in files.sorted(by: { $0.path < $1.path }) { hasher.update(file.path + "\u{0}" + file.inputDigest + "\n") }
        return hasher.finalize()
    }

    // MARK: Status

    private func writeStatus(_ result: SiteBuildResult, context: ValidationContext?) {
        guard options.publish, let store = try? openStore() else { return }
        let status = StatusReport.make(result: result, store: store, locales: context?.config.locales ?? [])
        try? store.writeStatus(StatusReport.files(status))
    }
}
