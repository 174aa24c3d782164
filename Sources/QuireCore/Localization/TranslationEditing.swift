import Foundation
import QuireModel

/// One string of a page as a translator edits it in the dashboard.
public struct TranslationString: Sendable {
    public var key: String
    public var source: String
    /// This locale's own translation (not a fallback's).
    public var translation: String?
    public var state: ExportUnit.State
    /// What the source said when a stale translation was made, when its file says.
    public var oldSource: String?
    public var isMarkdown: Bool
    /// The locale whose text the page shows instead, when this one has no current translation.
    public var fallback: String?
}

/// The formats a page's translation file is written in: the file's own, or YAML for a new one.
public enum TranslationFileStyle: String, Sendable {
    case yaml, json, xliff12, xliff20, po

    /// The style of an existing file, from its extension and (XLIFF) its version.
    public init?(pathExtension: String, bytes: [UInt8]) {
        switch TranslationFormat(pathExtension: pathExtension) {
        case .yaml?: self = .yaml
        case .json?: self = .json
        case .po?: self = .po
        case .xliff?:
            let head = String(decoding: bytes.prefix(4096), as: UTF8.self)
            self = head.contains("urn:oasis:names:tc:xliff:document:2.0") ? .xliff20 : .xliff12
        case nil: return nil
        }
    }

    public var translationFormat: TranslationFormat {
        switch self {
        case .yaml: return .yaml
        case .json: return .json
        case .xliff12, .xliff20: return .xliff
        case .po: return .po
        }
    }
}

/// A page's translation file for one locale after a translator's edits: where it goes, its
/// bytes, and what the import's checks say of it (errors name the string's key).
public struct EditedTranslationFile: Sendable {
    /// Relative to the site folder: `l10n/de/trex-store.xlf`.
    public var relativePath: String
    public var style: TranslationFileStyle
    public var bytes: [UInt8]
    public var catalog: TranslationCatalog?
    public var diagnostics: [Diagnostic]
}

extension SiteTranslations {
    /// The page's strings for `locale`, with states as `quire l10n status` counts them.
    public func strings(pageID: String, locale: String) -> [TranslationString] {
        guard let page = page(pageID) else { return [] }
        let checked = translations[pageID] ?? PageTranslations()
        return zip(page.strings, exportUnits(pageID: pageID, locale: locale)).map { string, unit in
            let entry = checked.entries[locale]?[string.key]
            return TranslationString(
                key: string.key, source: string.text, translation: unit.translation, state: unit.state,
                oldSource: unit.state == .stale ? entry?.sourceText : nil, isMarkdown: string.isMarkdown,
                fallback: fallback(for: string, locale: locale, checked: checked))
        }
    }

    /// How many of the page's strings an app shows in another locale of `locale`'s chain.
    public func fallingBack(pageID: String, locale: String) -> Int {
        guard let page = page(pageID) else { return 0 }
        let checked = translations[pageID] ?? PageTranslations()
        return page.strings.count { fallback(for: $0, locale: locale, checked: checked) != nil }
    }

    /// The locale whose text an app shows for `string` in `locale`, when not `locale`'s own: the
    /// first along its chain that has it (nil: its own, or none has it).
    private func fallback(for string: LocalizableText, locale: String, checked: PageTranslations) -> String? {
        switch checked.state(of: string, locale: locale, defaultLocale: config.defaultLocale) {
        case .source, .translated: return nil
        case .stale where config.stalePolicy == .warn: return nil
        case .stale, .missing:
            return config.chain(for: locale).dropFirst().first { other in
                let state = checked.state(of: string, locale: other, defaultLocale: config.defaultLocale)
                return state == .source || state == .translated
            }
        }
    }

    /// One page's coverage in `locale`: the figures `coverage()` sums.
    public func coverage(pageID: String, locale: String) -> LocaleCoverage {
        guard let page = page(pageID) else { return LocaleCoverage(locale: locale) }
        return (translations[pageID] ?? PageTranslations()).coverage(of: page.strings, locale: locale, defaultLocale: config.defaultLocale)
    }

    /// The translation file the site uses for the page and locale (the first, when there are several).
    public func translationFile(pageID: String, locale: String) -> SiteInventory.TranslationFile? {
        (translationFiles[pageID] ?? []).first { $0.locale == locale }
    }

    /// The page's translation file for `locale` with `edits` (key -> text) applied, written by
    /// the export's writer in the style of the file there (YAML when there is none), read back
    /// and checked as `quire l10n import` checks a file. Nothing is written.
    public func edited(pageID: String, locale: String, edits: [String: String], existing: [UInt8]?) -> EditedTranslationFile {
        let file = translationFile(pageID: pageID, locale: locale)
        let relative = file?.file.relativePath ?? "l10n/\(locale)/\(pageID).yaml"
        let pathExtension = SiteInventory.splitExtension(relative).pathExtension
        let style = existing.flatMap { TranslationFileStyle(pathExtension: pathExtension, bytes: $0) } ?? .yaml
        let own = file.flatMap { catalogsByFile[$0.file.relativePath] }
        let ownEntries = Dictionary((own?.entries ?? []).map { ($0.key, $0) }, uniquingKeysWith: { first, _ in first })
        let units = (page(pageID)?.strings ?? []).map { string -> ExportUnit in
            if let text = edits[string.key] {
                return ExportUnit(
                    key: string.key, sourceText: string.text, translation: text, state: .translated, isMarkdown: string.isMarkdown)
            }
            guard let entry = ownEntries[string.key] else {
                return ExportUnit(key: string.key, sourceText: string.text, state: .new, isMarkdown: string.isMarkdown)
            }
            let state: ExportUnit.State = PageTranslations.state(of: string, entry: entry) == .stale ? .stale : .translated
            return ExportUnit(
                key: string.key, sourceText: string.text, translation: entry.text, state: state,
                note: Self.note(for: string, entry: entry, state: state, links: config.linkPolicy), isMarkdown: string.isMarkdown)
        }
        var bytes: [UInt8]
        switch style {
        case .yaml: bytes = Self.yaml(units, pageID: pageID, locale: locale, oldSources: ownEntries)
        case .json: bytes = write(units, pageID, locale, .json)
        case .xliff12: bytes = write(units, pageID, locale, .xliff12)
        case .xliff20: bytes = write(units, pageID, locale, .xliff20)
        case .po: bytes = write(units, pageID, locale, .po)
        }
        // An XLIFF file keeps every byte but the edited targets when they can be edited in place
        // and read back as the very strings asked for.
        if let existing, style == .xliff12 || style == .xliff20, own != nil,
            let inPlace = inPlaceXLIFF(existing, edits: edits, pageID: pageID, own: ownEntries, version: style == .xliff12 ? .v12 : .v20)
        {
            bytes = inPlace
        }
        let display = "\(displayRoot)/\(relative)"
        var result = EditedTranslationFile(relativePath: relative, style: style, bytes: bytes, catalog: nil, diagnostics: [])
        // Rewriting a file the site could not read would drop what it holds.
        if file != nil, own == nil {
            let problems = diagnostics.filter { $0.isError && $0.file == display }.map(\.description)
            result.diagnostics = [
                .error(
                    display, "this file cannot be used as it is (\(problems.first ?? "it has errors")): fix it first; nothing was written")
            ]
            return result
        }
        do throws(Diagnostic) {
            let (catalog, warnings) = try TranslationFileReader.read(
                bytes, file: display, format: style.translationFormat, poParserExecutable: poParserExecutable)
            result.catalog = catalog
            result.diagnostics = warnings + check(catalog, locale: locale, pageID: pageID)
        } catch {
            result.diagnostics = [error]
        }
        return result
    }

    private func inPlaceXLIFF(
        _ bytes: [UInt8], edits: [String: String], pageID: String, own: [String: TranslationEntry], version: XLIFFInlineCodes.Version
    ) -> [UInt8]? {
        let strings = Dictionary((page(pageID)?.strings ?? []).map { ($0.key, $0) }, uniquingKeysWith: { first, _ in first })
        let list = edits.sorted { $0.key < $1.key }.compactMap { key, text in
            strings[key].map { string in
                XLIFFTargetEdit.Edit(
                    key: key, text: text, source: string.text, isMarkdown: string.isMarkdown,
                    replaceSource: own[key]?.sourceText.map { $0 != string.text } ?? false)
            }
        }
        guard let edited = XLIFFTargetEdit.apply(list, to: bytes, version: version),
            let (catalog, _) = try? TranslationFileReader.read(edited, file: "edit", format: .xliff)
        else { return nil }
        let read = Dictionary(catalog.entries.map { ($0.key, $0) }, uniquingKeysWith: { first, _ in first })
        return edits.allSatisfy { key, text in
            guard let entry = read[key], let string = strings[key] else { return false }
            return entry.text == text && PageTranslations.state(of: string, entry: entry) == .translated
        } ? edited : nil
    }

    private func write(_ units: [ExportUnit], _ pageID: String, _ locale: String, _ format: ExportFormat) -> [UInt8] {
        TranslationFileWriter.write(units: units, pageID: pageID, sourceLocale: config.defaultLocale, targetLocale: locale, format: format)
    }

    /// Quire's own YAML translation file: each translated key with its text and the source it
    /// was made from (so a later change of the source marks it stale).
    static func yaml(_ units: [ExportUnit], pageID: String, locale: String, oldSources: [String: TranslationEntry]) -> [UInt8] {
        var members: [(String, JSONValue)] = [("@page_id", .string(pageID)), ("@locale", .string(locale))]
        for unit in units {
            guard let text = unit.translation, unit.state != .new else { continue }
            let source = unit.state == .stale ? oldSources[unit.key]?.sourceText ?? unit.sourceText : unit.sourceText
            var fields: [(String, JSONValue)] = [("text", .string(text)), ("source", .string(source))]
            if unit.state == .stale { fields.append(("state", "stale")) }
            members.append((unit.key, .object(JSONObject(fields))))
        }
        return Array((YAMLWriter.text(.object(JSONObject(members))) ?? "").utf8)
    }
}
