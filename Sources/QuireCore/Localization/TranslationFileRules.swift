/// Which translation files a site uses, shared by the pipeline (`SiteBuilder`) and
/// `quire l10n` (`SiteTranslations`), so both read the same files the same way.
enum TranslationFileRules {
    /// Why a file in `l10n/<locale>/` is not used, or nil when the site uses it.
    static func unusedReason(locale: String, config: SiteConfig) -> String? {
        if locale == config.defaultLocale {
            return "is for the default locale '\(locale)', whose text is the page source itself"
        }
        if !config.locales.contains(locale) {
            return "is for '\(locale)', which is not in the site's locales (\(config.locales.joined(separator: ", ")))"
        }
        return nil
    }

    /// The warning for a file of `l10n/<locale>/` the site does not use; nil when it does.
    static func unusedWarning(_ translation: SiteInventory.TranslationFile, file: String, config: SiteConfig) -> Diagnostic? {
        unusedReason(locale: translation.locale, config: config).map { .warning(file, "\($0): not used") }
    }

    /// A translation file's format, by its extension.
    static func format(of translation: SiteInventory.TranslationFile) -> TranslationFormat {
        TranslationFormat(pathExtension: SiteInventory.splitExtension(translation.file.relativePath).pathExtension) ?? .yaml
    }

    /// The error for a file whose own target language disagrees with its folder.
    static func misplaced(declared: String, folder: String) -> String {
        "the file says it is for locale '\(declared)' but lies in l10n/\(folder)/: move it or fix its target language"
    }
}

extension PageTranslations {
    /// One locale's coverage of one page's strings: only its own translations count, not fallbacks.
    func coverage(of strings: [LocalizableText], locale: String, defaultLocale: String) -> LocaleCoverage {
        var coverage = LocaleCoverage(locale: locale)
        // `state(of:)` per string, with the locale's entries looked up once, not once a string.
        let own = locale == defaultLocale ? nil : entries[locale] ?? [:]
        for string in strings {
            switch own.map({ Self.state(of: string, entry: $0[string.key]) }) ?? .source {
            case .source, .translated: coverage.translated += 1
            case .stale: coverage.stale += 1
            case .missing: coverage.missing += 1
            }
        }
        return coverage
    }
}
