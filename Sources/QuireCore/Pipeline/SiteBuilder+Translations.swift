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
}
