import Foundation
import QuireModel

// Reading translation files, through the same reader and cache rules as pages.
struct LoadedTranslations {
    var byPage: [String: [LoadedCatalog]] = [:]
    /// Page id -> locales whose translation file could not be read or parsed.
    var failed: [String: Set<String>] = [:]
    var diagnostics: [Diagnostic] = []
}

/// One translation file of a page as a build loaded it. The catalog is nil when the builder's
/// cache vouched for the file unread: its digest is all a carried output needs, and a page that
/// renders reads its files again (`PagePipeline.renderPage`).
struct LoadedCatalog: Sendable {
    var locale: String
    /// As diagnostics name it: `pages/trex/l10n/fr/store.yaml`.
    var file: String
    var digest: Digest
    var catalog: TranslationCatalog?
}

extension PagePipeline {
    /// Reads translation files (those of one page, in a build), reusing `cache` entries while
    /// `reuse` says a file is unchanged, or with `reuseSameBytes` once its bytes hash the same:
    /// its catalog is not loaded (`LoadedCatalog.catalog` nil). Returns what was loaded and what to cache for each file.
    func loadTranslations(
        _ files: [SiteInventory.TranslationFile], refused: [SiteInventory.TranslationFile], reader: SourceFileReader,
        context: ValidationContext, cache: [String: CachedTranslation],
        reuse: (String) -> Bool, reuseSameBytes: Bool = false
    ) -> (LoadedTranslations, [String: CachedTranslation]) {
        var loaded = LoadedTranslations()
        var cached: [String: CachedTranslation] = [:]
        for file in refused { loaded.failed[file.pageID, default: []].insert(file.locale) }
        for file in files {
            cached[file.file.path] = load(
                file, into: &loaded, reader: reader, context: context, cached: cache[file.file.path], reuse: reuse(file.file.path),
                reuseSameBytes: reuseSameBytes)
        }
        return (loaded, cached)
    }

    /// Warnings for translation files read for a page that does not exist.
    static func unusedTranslationWarnings(_ loaded: LoadedTranslations) -> [Diagnostic] {
        loaded.byPage.sorted { $0.key < $1.key }.flatMap { pageID, catalogs in
            catalogs.map { Diagnostic.warning($0.file, "translates page '\(pageID)', which does not exist: it is not used") }
        }
    }

    /// Reads (or reuses) one translation file into `loaded`; returns what to cache for it.
    private func load(
        _ translation: SiteInventory.TranslationFile, into loaded: inout LoadedTranslations, reader: SourceFileReader,
        context: ValidationContext, cached: CachedTranslation?, reuse: Bool, reuseSameBytes: Bool
    ) -> CachedTranslation? {
        let display = "\(displayRoot)/\(translation.file.relativePath)"
        if let unused = TranslationFileRules.unusedWarning(translation, file: display, config: context.config) {
            loaded.diagnostics.append(unused)
            return nil
        }
        let digest: Digest
        let parsed: Result<(TranslationCatalog?, TranslationSummary), Diagnostic>
        var stamp = cached?.stamp
        if reuse, let cached {
            (digest, parsed) = (cached.digest, cached.parsed.map { (nil, $0) })
        } else {
            let bytes: [UInt8]
            do throws(SourceReadError) { (bytes, stamp) = try reader.readStamped(translation.file.path) } catch {
                loaded.diagnostics.append(error.diagnostic(display))
                loaded.failed[translation.pageID, default: []].insert(translation.locale)
                return nil
            }
            digest = SHA256.digest(bytes)
            if reuseSameBytes, let cached, cached.digest == digest {
                let restamped = cached.stamp == stamp ? cached : CachedTranslation(digest: digest, parsed: cached.parsed, stamp: stamp)
                return load(
                    translation, into: &loaded, reader: reader, context: context, cached: restamped, reuse: true, reuseSameBytes: false)
            }
            let format = TranslationFileRules.format(of: translation)
            parsed = Result { () throws(Diagnostic) in try TranslationFileReader.read(bytes, file: display, format: format) }
                .map { catalog, warnings in (catalog, TranslationSummary(locale: catalog.locale, warnings: warnings)) }
        }
        switch parsed {
        case .failure(let diagnostic):
            loaded.diagnostics.append(diagnostic)
            loaded.failed[translation.pageID, default: []].insert(translation.locale)
        case .success(let (catalog, summary)):
            loaded.diagnostics += summary.warnings
            if let declared = summary.locale, declared != translation.locale {
                loaded.diagnostics.append(.error(display, TranslationFileRules.misplaced(declared: declared, folder: translation.locale)))
            } else {
                loaded.byPage[translation.pageID, default: []].append(
                    LoadedCatalog(locale: translation.locale, file: display, digest: digest, catalog: catalog))
            }
        }
        return CachedTranslation(digest: digest, parsed: parsed.map(\.1), stamp: stamp)
    }
}
