import Foundation
import QuireModel

/// A site's pages and translations as the pipeline sees them, without publishing anything: what
/// `quire l10n export`, `import` and `status` work from.
///
/// Loaded through the pipeline's own parts (`SiteInventory`, `SiteSettings`, `SourceFileReader`,
/// `SourceParser`, `PageValidator`, `TranslationFileReader`, `TranslationFileRules`,
/// `PageTranslations`), so a string counts as translated here exactly when a build would use it.
public struct SiteTranslations: Sendable {
    /// A page that passed validation, with its translatable strings in page order.
    public struct Page: Sendable {
        public var pageID: String
        public var file: String
        public var strings: [LocalizableText]
    }

    public var site: String
    public var siteRoot: String
    /// How diagnostics name the site folder: `pages/trex`.
    public var displayRoot: String
    public var config: SiteConfig
    /// Valid pages, by page id order. Pages with errors are left out (and reported).
    public let pages: [Page]
    /// Each page's place in `pages`, by page id: a site's coverage looks up every page.
    private let pageIndex: [String: Int]
    /// Everything found on the way: page errors, translation problems.
    public var diagnostics: [Diagnostic]
    /// The translation files the site uses, by page id.
    public var translationFiles: [String: [SiteInventory.TranslationFile]]
    /// Checked translations by page id (entries that failed a check are not in them).
    var translations: [String: PageTranslations]
    /// Each used translation file's catalog, by its path relative to the site folder.
    var catalogsByFile: [String: TranslationCatalog]
    let poParserExecutable: String

    /// The site's `site.yaml` or vocabulary has errors: nothing can be loaded.
    public struct LoadFailure: Error, Sendable {
        public var diagnostics: [Diagnostic]
    }

    /// Reads the site `pagesRoot/site`. `poParserExecutable` answers `__parse-po` (see `POFileParser`).
    /// With a `cache`, a file unchanged since the cache's last load of the site is not read again.
    public static func load(
        site: String, pagesRoot: String, poParserExecutable: String = POFileParser.defaultExecutable,
        cache: SiteTranslationsCache? = nil
    ) throws(LoadFailure) -> SiteTranslations {
        let siteRoot = "\(pagesRoot)/\(site)"
        let inventory = SiteInventory.scan(root: siteRoot, site: site, displayRoot: siteRoot)
        let settings = SiteSettings.load(inventory, site: site, displayRoot: siteRoot)
        return try load(
            inventory, settings: settings, site: site, siteRoot: siteRoot, scope: nil, poParserExecutable: poParserExecutable,
            cache: cache)
    }

    /// What `quire l10n status` says of a site.
    public struct Status: Sendable {
        public var config: SiteConfig
        /// Valid pages.
        public var pageCount: Int
        /// Per locale of `config.locales`, in its order.
        public var coverage: [LocaleCoverage]
        public var errorCount: Int
    }

    /// The site's `Status`, loaded as `load` loads it but `batch` pages at a time (each with its
    /// translation files), each batch let go of once counted: a whole load holds every page's
    /// strings and translations at once, 2.5 GB at 100,000 pages.
    public static func status(
        site: String, pagesRoot: String, poParserExecutable: String = POFileParser.defaultExecutable, batch: Int = 2_048
    ) throws(LoadFailure) -> Status {
        let siteRoot = "\(pagesRoot)/\(site)"
        let inventory = SiteInventory.scan(root: siteRoot, site: site, displayRoot: siteRoot)
        let settings = SiteSettings.load(inventory, site: site, displayRoot: siteRoot)
        // Every page id with a source or translation files: each file is read by one batch.
        let ids = Set(inventory.pages.keys).union(inventory.translationsByPage.keys).sorted()
        let batch = max(batch, 1)
        func loadBatch(from start: Int) throws(LoadFailure) -> SiteTranslations {
            try load(
                inventory, settings: settings, site: site, siteRoot: siteRoot, scope: Set(ids[start..<min(start + batch, ids.count)]),
                poParserExecutable: poParserExecutable, cache: nil)
        }
        let first = try loadBatch(from: 0)
        var status = Status(
            config: first.config, pageCount: first.pages.count, coverage: first.coverage(),
            errorCount: first.diagnostics.count(where: \.isError))
        // Each batch says the scan's and the settings' own diagnostics again: counted once.
        let repeated = (inventory.diagnostics + settings.diagnostics).count(where: \.isError)
        for start in stride(from: batch, to: ids.count, by: batch) {
            let part = try loadBatch(from: start)
            status.pageCount += part.pages.count
            for (index, counts) in part.coverage().enumerated() { status.coverage[index].add(counts) }
            status.errorCount += part.diagnostics.count(where: \.isError) - repeated
        }
        return status
    }

    /// The site as `draft` holds its scan and settings (the dashboard's, brought up to date by
    /// each build and by the dashboard's own writes), without scanning it again: at 10,000 pages
    /// the scan was most of a request about one page. With `pages`, only those pages and their
    /// translation files are read: what a request about one page needs. `siteRoot` is where
    /// diagnostics and imports place the site's files.
    public static func load(
        _ draft: DraftSite, siteRoot: String, pages: Set<String>? = nil, poParserExecutable: String = POFileParser.defaultExecutable,
        cache: SiteTranslationsCache? = nil
    ) throws(LoadFailure) -> SiteTranslations {
        try load(
            draft.inventory, settings: draft.settings, site: draft.site, siteRoot: siteRoot, scope: pages,
            poParserExecutable: poParserExecutable, cache: cache)
    }

    private static func load(
        _ inventory: SiteInventory, settings: SiteSettings, site: String, siteRoot: String, scope: Set<String>?,
        poParserExecutable: String, cache: SiteTranslationsCache?
    ) throws(LoadFailure) -> SiteTranslations {
        let displayRoot = siteRoot
        var diagnostics = inventory.diagnostics + settings.diagnostics
        guard let context = settings.context else { throw LoadFailure(diagnostics: diagnostics) }
        let reader = SourceFileReader(maxBytes: context.config.limits.maxFileBytes)
        let kept = cache?.entries(settingsDigest: settings.digest) ?? SiteTranslationsCache.Entries()

        // Pages and translation files are read on every core: a site of 10,000 pages has
        // 20,000 translation files or more, and each PO file waits for a parser child.
        let pageSources = inventory.pages.filter { settings.isPage($0.key) && (scope?.contains($0.key) ?? true) }
            .sorted { $0.key < $1.key }
        let loadedPages = ResultSlots<(LoadedPage, isKept: Bool)>(count: pageSources.count)
        WideConcurrentPerform.run(iterations: pageSources.count) { index in
            let (pageID, sources) = pageSources[index]
            if sources.count == 1, let page = kept.page(at: sources[0].path) { return loadedPages.set(index, (page, true)) }
            loadedPages.set(
                index, (LoadedPage(pageID, sources: sources, displayRoot: displayRoot, reader: reader, context: context), false))
        }
        let translationFiles =
            scope.map { scope in scope.flatMap { inventory.translationsByPage[$0] ?? [] } } ?? inventory.allTranslations()
        let loadedFiles = ResultSlots<(LoadedFile, isKept: Bool)>(count: translationFiles.count)
        WideConcurrentPerform.run(iterations: translationFiles.count) { index in
            let translation = translationFiles[index]
            if let file = kept.file(at: translation.file.path) { return loadedFiles.set(index, (file, true)) }
            let file = LoadedFile(
                translation, displayRoot: displayRoot, reader: reader, config: context.config, poParserExecutable: poParserExecutable)
            loadedFiles.set(index, (file, false))
        }
        var keeping = SiteTranslationsCache.Entries(settingsDigest: settings.digest)
        // Per page, the files its check reads (its source, then its translation files), and
        // whether all of them were kept: then so is the check.
        var checkInputs: [String: (paths: [String], areKept: Bool)] = [:]

        var pages: [Page] = []
        for ((pageID, sources), loaded) in zip(pageSources, loadedPages.values) {
            guard let (loaded, isKept) = loaded else { continue }
            diagnostics += loaded.diagnostics
            guard let page = loaded.page else { continue }
            pages.append(page)
            if let stamp = loaded.stamp { keeping.pages[sources[0].path] = .init(stamp: stamp, value: loaded) }
            checkInputs[pageID] = ([sources[0].path], isKept)
        }
        var catalogs: [String: [(locale: String, catalog: TranslationCatalog)]] = [:]
        var files: [String: [SiteInventory.TranslationFile]] = [:]
        var catalogsByFile: [String: TranslationCatalog] = [:]
        for (translation, loaded) in zip(translationFiles, loadedFiles.values) {
            guard let (loaded, isKept) = loaded else { continue }
            if let stamp = loaded.stamp { keeping.files[translation.file.path] = .init(stamp: stamp, value: loaded) }
            diagnostics += loaded.diagnostics
            guard loaded.isUsed else { continue }
            files[translation.pageID, default: []].append(translation)
            if let catalog = loaded.catalog {
                catalogs[translation.pageID, default: []].append((translation.locale, catalog))
                catalogsByFile[translation.file.relativePath] = catalog
                if var inputs = checkInputs[translation.pageID] {
                    inputs.paths.append(translation.file.path)
                    inputs.areKept = inputs.areKept && isKept
                    checkInputs[translation.pageID] = inputs
                }
            }
        }

        let checks = ResultSlots<SiteTranslationsCache.KeptCheck>(count: pages.count)
        WideConcurrentPerform.run(iterations: pages.count) { index in
            let page = pages[index]
            let inputs = checkInputs[page.pageID] ?? ([], false)
            if inputs.areKept, let check = kept.checks[page.pageID], check.inputs == inputs.paths { return checks.set(index, check) }
            let (checked, found) = PageTranslations.check(
                catalogs[page.pageID] ?? [], strings: page.strings, links: context.config.linkPolicy)
            checks.set(index, .init(inputs: inputs.paths, translations: checked, diagnostics: found))
        }
        var translations: [String: PageTranslations] = [:]
        for (page, check) in zip(pages, checks.values) {
            guard let check else { continue }
            translations[page.pageID] = check.translations
            diagnostics += check.diagnostics
            keeping.checks[page.pageID] = check
        }
        cache?.keep(keeping, replacing: scope == nil)
        diagnostics.sort { ($0.file, $0.position) < ($1.file, $1.position) }
        return SiteTranslations(
            site: site, siteRoot: siteRoot, displayRoot: displayRoot, config: context.config, pages: pages,
            pageIndex: Dictionary(uniqueKeysWithValues: pages.enumerated().map { ($1.pageID, $0) }), diagnostics: diagnostics,
            translationFiles: files, translations: translations,
            catalogsByFile: catalogsByFile, poParserExecutable: poParserExecutable)
    }

    public func page(_ pageID: String) -> Page? { pageIndex[pageID].map { pages[$0] } }

    // MARK: Export

    /// What a translator needs for one page and locale: every key, its source text, the
    /// locale's own current translation (not a fallback's) and its state.
    public func exportUnits(pageID: String, locale: String) -> [ExportUnit] {
        guard let page = page(pageID) else { return [] }
        let translations = translations[pageID] ?? PageTranslations()
        return page.strings.map { string in
            let entry = translations.entries[locale]?[string.key]
            let state: ExportUnit.State
            switch translations.state(of: string, locale: locale, defaultLocale: config.defaultLocale) {
            case .source, .translated: state = .translated
            case .stale: state = .stale
            case .missing: state = .new
            }
            return ExportUnit(
                key: string.key, sourceText: string.text, translation: state == .new ? nil : entry?.text,
                state: state, note: Self.note(for: string, entry: entry, state: state, links: config.linkPolicy),
                isMarkdown: string.isMarkdown)
        }
    }

    /// What the translator must keep: markdown links, `{placeholders}`; and for a stale
    /// translation, the source text it was made from.
    static func note(
        for string: LocalizableText, entry: TranslationEntry?, state: ExportUnit.State,
        links: SiteConfig.LinkPolicy = .same
    ) -> String? {
        var lines: [String] = []
        if string.isMarkdown {
            lines.append(
                links == .localized
                    ? "markdown: keep the formatting marks and as many links; a link may point at the page in your language"
                    : "markdown: keep the links and the formatting marks")
        }
        let placeholders = Placeholders.find(in: string.text).sorted()
        if !placeholders.isEmpty {
            lines.append("keep the placeholders \(placeholders.map { "{\($0)}" }.joined(separator: ", ")) as they are")
        }
        if state == .stale, let old = entry?.sourceText, old != string.text {
            lines.append("stale: translated from an older source text:\n\(old)")
        }
        return lines.isEmpty ? nil : lines.joined(separator: "\n")
    }

    // MARK: Status

    /// Each locale's coverage over every valid page, as a build would record it.
    public func coverage() -> [LocaleCoverage] {
        config.locales.map { locale in
            var total = LocaleCoverage(locale: locale)
            for page in pages {
                total.add(
                    (translations[page.pageID] ?? PageTranslations()).coverage(
                        of: page.strings, locale: locale, defaultLocale: config.defaultLocale))
            }
            return total
        }
    }

    // MARK: Import

    /// Checks a translated file against its page with the pipeline's checks: unknown keys,
    /// empty text, dropped or added links and placeholders.
    public func check(_ catalog: TranslationCatalog, locale: String, pageID: String) -> [Diagnostic] {
        guard let page = page(pageID) else {
            return [.error(catalog.file, "page '\(pageID)' of site '\(site)' has errors or does not exist: fix it first (quire check)")]
        }
        return PageTranslations.check([(locale, catalog)], strings: page.strings, links: config.linkPolicy).1
    }
}

/// One page source as `SiteTranslations.load` reads it: read, parsed and validated as the
/// pipeline does (without its caches), with what was found and the stamp it was read with.
struct LoadedPage: Sendable {
    var page: SiteTranslations.Page?
    var diagnostics: [Diagnostic] = []
    var stamp: FileStamp?

    init(_ pageID: String, sources: [SiteInventory.SourceFile], displayRoot: String, reader: SourceFileReader, context: ValidationContext) {
        let display = sources.map { "\(displayRoot)/\($0.relativePath)" }
        guard sources.count == 1, let source = sources.first else {
            let names = display.joined(separator: ", ")
            diagnostics = display.map { Diagnostic.error($0, "page id '\(pageID)' is claimed by more than one file (\(names)): keep one") }
            return
        }
        let file = display[0]
        let bytes: [UInt8]
        do throws(SourceReadError) { (bytes, stamp) = try reader.readStamped(source.path) } catch {
            diagnostics = [error.diagnostic(file)]
            return
        }
        let format = SourceFormat(pathExtension: SiteInventory.splitExtension(source.relativePath).pathExtension) ?? .yaml
        do throws(Diagnostic) {
            let root = try SourceParser.parse(bytes, format: format, file: file, limits: context.config.limits)
            let (model, found) = PageValidator.validate(root, pageID: pageID, file: file, context: context)
            page = model.map { SiteTranslations.Page(pageID: pageID, file: $0.file, strings: $0.translatableStrings) }
            diagnostics = found
        } catch {
            diagnostics = [error]
        }
    }
}

/// One translation file as `SiteTranslations.load` reads it: whether the site uses it (its
/// locale is one), its catalog when it parsed and sits in its locale's folder, what was found,
/// and the stamp it was read with.
struct LoadedFile: Sendable {
    var isUsed = true
    var catalog: TranslationCatalog?
    var diagnostics: [Diagnostic] = []
    var stamp: FileStamp?

    init(
        _ translation: SiteInventory.TranslationFile, displayRoot: String, reader: SourceFileReader, config: SiteConfig,
        poParserExecutable: String
    ) {
        let display = "\(displayRoot)/\(translation.file.relativePath)"
        if let unused = TranslationFileRules.unusedWarning(translation, file: display, config: config) {
            isUsed = false
            diagnostics.append(unused)
            return
        }
        let bytes: [UInt8]
        do throws(SourceReadError) { (bytes, stamp) = try reader.readStamped(translation.file.path) } catch {
            diagnostics.append(error.diagnostic(display))
            return
        }
        let format = TranslationFileRules.format(of: translation)
        do throws(Diagnostic) {
            let (read, warnings) = try TranslationFileReader.read(
                bytes, file: display, format: format, poParserExecutable: poParserExecutable)
            diagnostics += warnings
            if let declared = read.locale, declared != translation.locale {
                diagnostics.append(.error(display, TranslationFileRules.misplaced(declared: declared, folder: translation.locale)))
                return
            }
            catalog = read
        } catch {
            diagnostics.append(error)
        }
    }
}
