import QuireModel
import Foundation

// Reading translation files, through the same reader and cache rules as pages.
extension SiteBuilder {

    struct LoadedTranslations {
        var byPage: [String: [(locale: String, catalog: TranslationCatalog, digest: String)]] = [:]
        /// Page id -> locales whose translation file could not be read or parsed.
        var failed: [String: Set<String>] = [:]
        var diagnostics: [Diagnostic] = []
    }

    func loadTranslations(_ inventory: SiteInventory, reader: SourceFileReader, context: ValidationContext,
                          isUnchanged: (String) -> Bool) -> LoadedTranslations {
        var loaded = LoadedTranslations()
        var newCache: [String: CachedTranslation] = [:]
        for refused in inventory.refusedTranslations { loaded.failed[refused.pageID, default: []].insert(refused.locale) }
        for translation in inventory.translations {
            if let cached = load(translation, into: &loaded, reader: reader, context: context, reuse: isUnchanged(translation.file.path)) {
                newCache[translation.file.path] = cached
            }
        }
        translationCache = newCache
        return loaded
    }

    /// The translation files of one page (a delta build); the cache keeps every other file's entry.
    func loadTranslations(of pageID: String, _ inventory: SiteInventory, reader: SourceFileReader, context: ValidationContext,
                          changed: Set<String>) -> LoadedTranslations {
        var loaded = LoadedTranslations()
        for refused in inventory.refusedTranslations where refused.pageID == pageID {
            loaded.failed[refused.pageID, default: []].insert(refused.locale)
            translationCache[refused.file.path] = nil
        }
        for translation in inventory.translations where translation.pageID == pageID {
            translationCache[translation.file.path] = load(translation, into: &loaded, reader: reader, context: context,
                                                           reuse: !changed.contains(translation.file.path))
        }
        return loaded
    }

    /// Reads (or reuses) one translation file into `loaded`; returns what to cache for it.
    private func load(_ translation: SiteInventory.TranslationFile, into loaded: inout LoadedTranslations, reader: SourceFileReader,
                      context: ValidationContext, reuse: Bool) -> CachedTranslation? {
        let display = "\(displayRoot)/\(translation.file.relativePath)"
        if let why = TranslationFileRules.unusedReason(locale: translation.locale, config: context.config) {
            loaded.diagnostics.append(.warning(display, "\(why): not used"))
            return nil
        }
        let digest: String
        let parsed: Result<(TranslationCatalog, [Diagnostic]), Diagnostic>
        if reuse, let cached = translationCache[translation.file.path] {
            (digest, parsed) = (cached.digest, cached.parsed)
        } else {
            let bytes: [UInt8]
            do throws(SourceReadError) { bytes = try reader.read(translation.file.path) } catch {
                loaded.diagnostics.append(.error(display, "this file \(error.message)"))
                loaded.failed[translation.pageID, default: []].insert(translation.locale)
                return nil
            }
            digest = SHA256.hash(bytes)
            if let cached = translationCache[translation.file.path], cached.digest == digest {
                parsed = cached.parsed
            } else {
                let format = TranslationFormat(pathExtension: SiteInventory.splitExtension(translation.file.relativePath).pathExtension) ?? .yaml
                parsed = Result { () throws(Diagnostic) in try TranslationFileReader.read(bytes, file: display, format: format) }
            }
        }
        switch parsed {
        case .failure(let diagnostic):
            loaded.diagnostics.append(diagnostic)
            loaded.failed[translation.pageID, default: []].insert(translation.locale)
        case .success(let (catalog, warnings)):
            loaded.diagnostics += warnings
            if let declared = catalog.locale, declared != translation.locale {
                loaded.diagnostics.append(.error(display, TranslationFileRules.misplaced(declared: declared, folder: translation.locale)))
            } else {
                loaded.byPage[translation.pageID, default: []].append((translation.locale, catalog, digest))
            }
        }
        return CachedTranslation(digest: digest, parsed: parsed)
    }
}
