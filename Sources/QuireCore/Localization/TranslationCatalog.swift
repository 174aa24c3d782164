/// One translated string read from a translation file.
public struct TranslationEntry: Sendable, Hashable {
    /// The stable key of the string in the page: `hero.title`, `grid.items.idpa-50.title`.
    public var key: String
    /// The translation, as markdown (XLIFF inline markup already mapped back).
    public var text: String
    /// The source text it was translated from, when the file says (stale detection compares it).
    public var sourceText: String?
    /// The tool marked it as needing review: PO `#, fuzzy`, XLIFF 1.2 `state="needs-..."`,
    /// XLIFF 2.0 `state="initial"` with a target, JSON/YAML `"state": "stale"`.
    public var isFuzzy: Bool
    /// Where the entry starts in the translation file.
    public var position: SourcePosition

    public init(key: String, text: String, sourceText: String? = nil, isFuzzy: Bool = false, position: SourcePosition) {
        self.key = key
        self.text = text
        self.sourceText = sourceText
        self.isFuzzy = isFuzzy
        self.position = position
    }
}

/// The translated strings of one translation file (for one page and one locale).
/// Untranslated units (empty PO `msgstr`, XLIFF units without a target) are not entries.
public struct TranslationCatalog: Sendable {
    public var file: String
    /// The target locale, when the file says (PO `Language:`, XLIFF `target-language`/`trgLang`).
    public var locale: String?
    /// The page the strings belong to, when the file says (XLIFF `original`, PO `X-Quire-Page:`).
    public var pageID: String?
    public var entries: [TranslationEntry]

    public init(file: String, locale: String? = nil, pageID: String? = nil, entries: [TranslationEntry] = []) {
        self.file = file
        self.locale = locale
        self.pageID = pageID
        self.entries = entries
    }
}

/// The formats translation files come in, known by their extension.
public enum TranslationFormat: String, Sendable, CaseIterable {
    case yaml, json, xliff, po

    public init?(pathExtension: String) {
        switch pathExtension.lowercased() {
        case "yaml", "yml": self = .yaml
        case "json": self = .json
        case "xlf", "xliff": self = .xliff
        case "po": self = .po
        default: return nil
        }
    }
}

/// Reads a translation file of any format into a catalog.
public enum TranslationFileReader {
    /// Returns the catalog and its warnings; throws the first error as a positioned diagnostic.
    ///
    /// PO files are parsed by libgettextpo in a child process (see `POFileParser`), because its
    /// fatal-error handler must not return; `poParserExecutable` names the program that answers
    /// `__parse-po` (the running `quire` by default).
    public static func read(
        _ bytes: [UInt8], file: String, format: TranslationFormat,
        poParserExecutable: String = POFileParser.defaultExecutable
    ) throws(Diagnostic) -> (TranslationCatalog, [Diagnostic]) {
        switch format {
        case .yaml: return try KeyValueTranslationReader.read(bytes, file: file, format: .yaml)
        case .json: return try KeyValueTranslationReader.read(bytes, file: file, format: .json)
        case .xliff: return try XLIFFReader.read(bytes, file: file)
        case .po: return try POFileParser.parseInChildProcess(bytes, file: file, executable: poParserExecutable)
        }
    }
}
