import QuireModel

/// A site's `site.yaml` and vocabulary file, read and checked: what validation needs, and one
/// digest of both (every output depends on them).
public struct SiteSettings: Sendable {
    /// Nil when either file has errors: the site cannot be built (only this site stops).
    public var context: ValidationContext?
    public var digest: String
    public var diagnostics: [Diagnostic]
    /// The page id the drill catalog's file would otherwise get: it is data, not a page.
    public var drillCatalogPageID: String?

    /// Whether the inventory's page `id` is a page (the drill catalog's file is data).
    public func isPage(_ id: String) -> Bool { id != drillCatalogPageID }

    public static func load(siteRoot: String, site: String, displayRoot: String) -> SiteSettings {
        load(SiteInventory.scan(root: siteRoot, site: site, displayRoot: displayRoot), site: site, displayRoot: displayRoot)
    }

    /// `site.yaml` alone, without scanning the site's pages (what a push after each save needs:
    /// a scan of a 30,000-file site costs more CPU than the save). Nil when it cannot be read or
    /// has errors; the defaults when there is none.
    public static func config(siteRoot: String, site: String, displayRoot: String) -> SiteConfig? {
        guard let name = SiteInventory.siteFileNames.first(where: { FileSystem.exists(siteRoot + "/" + $0) }) else {
            return SiteConfig(name: site)
        }
        var diagnostics: [Diagnostic] = []
        let file = SiteInventory.SourceFile(root: siteRoot, relativePath: name)
        guard let root = parse(file, display: "\(displayRoot)/\(name)", into: &diagnostics) else { return nil }
        let (config, errors) = SiteConfig.read(root.node, site: site, file: "\(displayRoot)/\(name)")
        return errors.hasErrors ? nil : config
    }

    static func load(_ inventory: SiteInventory, site: String, displayRoot: String) -> SiteSettings {
        var settings = SiteSettings(context: nil, digest: "", diagnostics: [])
        var digest = SHA256()
        digest.update(PagePipeline.outputFormat)
        var config = SiteConfig(name: site)
        // Its error is already in the inventory's diagnostics.
        guard inventory.refusedSettingsFile == nil else { return settings }
        if let file = inventory.siteFile {
            let display = "\(displayRoot)/\(file.relativePath)"
            guard let root = parse(file, display: display, into: &settings.diagnostics) else { return settings }
            let (read, diagnostics) = SiteConfig.read(root.node, site: site, file: display)
            settings.diagnostics += diagnostics
            guard !diagnostics.hasErrors else { return settings }
            config = read
            digest.update(root.digest)
        } else {
            settings.diagnostics.append(.warning(displayRoot, "no site.yaml: using defaults (locale en, ttl 300)"))
        }
        var vocabulary = Vocabulary.builtIn
        if let file = inventory.vocabularyFile {
            let display = "\(displayRoot)/\(file.relativePath)"
            guard let root = parse(file, display: display, into: &settings.diagnostics) else { return settings }
            let (read, diagnostics) = SiteVocabulary.read(root.node, file: display)
            settings.diagnostics += diagnostics
            guard !diagnostics.hasErrors else { return settings }
            vocabulary = read
            digest.update(root.digest)
        }
        var pageIDs = Set(inventory.pages.keys)
        var drillIDs: Set<String>?
        if let name = config.drillCatalog {
            let siteFile = "\(displayRoot)/\(inventory.siteFile?.relativePath ?? "site.yaml")"
            guard let relative = DrillCatalog.relativePath(name) else {
                settings.diagnostics.append(
                    .error(siteFile, "drill_catalog: '\(name)' must be a path inside the site folder, like drills.yaml"))
                return settings
            }
            let split = SiteInventory.splitExtension(relative)
            let file = SiteInventory.SourceFile(root: inventory.root, relativePath: relative)
            guard let root = parse(file, display: "\(displayRoot)/\(relative)", into: &settings.diagnostics) else { return settings }
            let (ids, diagnostics) = DrillCatalog.read(root.node, file: "\(displayRoot)/\(relative)")
            settings.diagnostics += diagnostics
            guard !diagnostics.hasErrors else { return settings }
            drillIDs = ids
            digest.update(root.digest)
            pageIDs.remove(split.stem)
            settings.drillCatalogPageID = split.stem
        }
        for feed in config.feeds where pageIDs.contains(feed.pageID) {
            let siteFile = "\(displayRoot)/\(inventory.siteFile?.relativePath ?? "site.yaml")"
            settings.diagnostics.append(
                .error(
                    siteFile, at: feed.position, keyPath: "feeds.\(feed.name)",
                    "the feed's files '<locale>/\(feed.pageID).json' would replace the page '\(feed.pageID)': rename the feed or the page"))
        }
        guard !settings.diagnostics.hasErrors else { return settings }
        settings.context = ValidationContext(
            config: config, vocabulary: vocabulary, pageIDs: pageIDs, assets: Set(inventory.assets.keys), drillIDs: drillIDs)
        settings.digest = digest.finalize()
        return settings
    }

    /// Reads and parses one settings file through the one source reader.
    static func parse(_ file: SiteInventory.SourceFile, display: String, into diagnostics: inout [Diagnostic]) -> (
        node: SourceNode, digest: String
    )? {
        let bytes: [UInt8]
        do throws(SourceReadError) {
            bytes = try SourceFileReader().read(file.path)
        } catch {
            diagnostics.append(error.diagnostic(display))
            return nil
        }
        let format = SourceFormat(pathExtension: SiteInventory.splitExtension(file.relativePath).pathExtension) ?? .yaml
        do throws(Diagnostic) {
            return (try SourceParser.parse(bytes, format: format, file: display), SHA256.hash(bytes))
        } catch {
            diagnostics.append(error)
            return nil
        }
    }
}
