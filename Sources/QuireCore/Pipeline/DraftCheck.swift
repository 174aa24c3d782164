public import Foundation
public import QuireModel

/// A site as a draft is checked against it: its scan, `site.yaml` and vocabulary, read once and
/// kept by the caller (the dashboard keeps one per site until the next build of the site), so a
/// draft check costs the page alone, whatever the size of the site.
public struct DraftSite: Sendable {
    public let site: String
    /// How diagnostics name the site folder: `pages/trex`.
    public let displayRoot: String
    let inventory: SiteInventory
    let settings: SiteSettings

    public init(pagesRoot: String, site: String) {
        self.site = site
        displayRoot = "\(pagesRoot)/\(site)"
        let root = URL(fileURLWithPath: pagesRoot).standardizedFileURL.path + "/\(site)"
        inventory = SiteInventory.scan(root: root, site: site, displayRoot: displayRoot)
        settings = SiteSettings.load(inventory, site: site, displayRoot: displayRoot)
    }

    private init(site: String, displayRoot: String, inventory: SiteInventory) {
        self.site = site
        self.displayRoot = displayRoot
        self.inventory = inventory
        settings = SiteSettings.load(inventory, site: site, displayRoot: displayRoot)
    }

    /// The same site after `changed` (absolute paths) changed, as a watcher's build updates its
    /// scan: only those paths are looked at again (a whole scan when a change needs one), and
    /// the settings are read again (two small files).
    public func updated(changed: Set<String>) -> DraftSite {
        var inventory = self.inventory
        guard inventory.update(changed: changed, displayRoot: displayRoot) != nil else {
            return DraftSite(
                site: site, displayRoot: displayRoot,
                inventory: SiteInventory.scan(
                    root: inventory.root, site: site, displayRoot: displayRoot))
        }
        return DraftSite(site: site, displayRoot: displayRoot, inventory: inventory)
    }

    /// Nil when `site.yaml` or the vocabulary has errors (`settingsDiagnostics` says which).
    public var config: SiteConfig? { settings.context?.config }
    public var vocabulary: Vocabulary? { settings.context?.vocabulary }
    public var settingsDiagnostics: [Diagnostic] { inventory.diagnostics.filter(\.isError) + settings.diagnostics }
    /// Page id -> its source's path in the site folder (the first, when two files claim the id).
    public var pageSources: [String: String] {
        inventory.pages.compactMapValues { $0.first?.relativePath }.filter { settings.isPage($0.key) }
    }
    /// The page id the site's drill catalog file would have: data, not a page.
    public var drillCatalogPageID: String? { settings.drillCatalogPageID }
    /// Paths under `assets/`, relative to it.
    public var assets: [String] { inventory.assets.keys.sorted() }
    /// The locales that have a translation file for `pageID`.
    public func translatedLocales(of pageID: String) -> Set<String> {
        Set((inventory.translationsByPage[pageID] ?? []).map(\.locale))
    }

    /// What a draft renders to in one locale: the page as apps would get it, in its published
    /// parts (one unless paginated), and each audience variant's parts.
    public struct RenderedLocale: Sendable {
        public var locale: String
        public var parts: [JSONValue]
        public var audiences: [(name: String, parts: [JSONValue])]
    }

    public struct Draft: Sendable {
        /// What `quire check` would say of the page (and of the site's settings when they fail).
        public var diagnostics: [Diagnostic]
        /// Empty when the page does not validate.
        public var rendered: [RenderedLocale]
        /// Per locale other than the default, how many of the page's translatable strings it
        /// translates (stale and missing ones are counted, not translated); empty when the page
        /// does not validate.
        public var coverage: [LocaleCoverage] = []
    }

    /// `bytes` as the source of page `pageID` at `relativePath` (its extension names the
    /// format): read, validated, its translation files merged and its markdown rendered for
    /// every locale and audience, through the build's own stages. Nothing is written. A draft
    /// page or section is rendered as if live, so that the editor sees it.
    /// `translation`: a translator's unsaved file for one locale, used instead of that locale's files.
    public func check(
        pageID: String, relativePath: String, bytes: [UInt8], now: Date = Date(),
        translation: (locale: String, catalog: TranslationCatalog)? = nil
    ) -> Draft {
        guard var context = settings.context else { return Draft(diagnostics: settingsDiagnostics, rendered: []) }
        let file = "\(displayRoot)/\(relativePath)"
        let format = SourceFormat(pathExtension: SiteInventory.splitExtension(relativePath).pathExtension) ?? .yaml
        context.pageIDs.insert(pageID)  // a new page is a page of the site
        let root: SourceNode
        do throws(Diagnostic) {
            root = try SourceParser.parse(bytes, format: format, file: file, limits: context.config.limits)
        } catch {
            return Draft(diagnostics: [error], rendered: [])
        }
        let validated = PageValidator.validateLinks(root, pageID: pageID, file: file, context: context)
        var diagnostics = validated.diagnostics
        guard let model = validated.model else { return Draft(diagnostics: diagnostics, rendered: []) }

        let pipeline = PagePipeline(site: site, displayRoot: displayRoot, previews: false)
        let (loaded, _) = pipeline.loadTranslations(
            inventory.translationsByPage[pageID] ?? [], refused: inventory.refusedTranslations.filter { $0.pageID == pageID },
            reader: SourceFileReader(maxBytes: context.config.limits.maxFileBytes), context: context, cache: [:], reuse: { _ in false })
        diagnostics += loaded.diagnostics
        let markdown = MarkdownMemo()
        let config = context.config
        let (translations, translationDiagnostics) = PageTranslations.check(
            (loaded.byPage[pageID] ?? []).compactMap { loaded in
                loaded.locale == translation?.locale ? nil : loaded.catalog.map { (loaded.locale, $0) }
            } + (translation.map { [$0] } ?? []),
            strings: model.translatableStrings, links: config.linkPolicy, markdown: markdown)
        diagnostics += translationDiagnostics
        let minimumAppVersions = PagePipeline.minimumAppVersions(context.vocabulary)
        let audiences = PageRenderer.audiences(of: model)
        var rendered: [RenderedLocale] = []
        let coverage = config.locales.filter { $0 != config.defaultLocale }.map { locale in
            translations.coverage(of: model.translatableStrings, locale: locale, defaultLocale: config.defaultLocale)
        }
        for locale in config.locales {
            let renderer = PagePipeline.renderer(
                locale: locale, chain: config.chain(for: locale), config: config, translations: translations, markdown: markdown,
                minimumAppVersions: minimumAppVersions, now: now)
            let page = renderer.render(model, audience: nil)
            if locale == config.defaultLocale { diagnostics += PagePipeline.removedWarnings(page, file: file) }
            rendered.append(
                RenderedLocale(
                    locale: locale, parts: page.parts,
                    audiences: audiences.map { audience in (audience, renderer.render(model, audience: audience).parts) }))
        }
        return Draft(diagnostics: diagnostics, rendered: rendered, coverage: coverage)
    }
}
