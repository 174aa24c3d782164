/// One string a translator needs: its key, its source text and how far its translation is.
public struct ExportUnit: Sendable, Hashable {
    public enum State: String, Sendable, Hashable, CaseIterable {
        /// Never translated.
        case new
        /// Translated from the current source text.
        case translated
        /// Translated, but the source text changed since (gettext's fuzzy).
        case stale
    }

    public var key: String
    public var sourceText: String
    public var translation: String?
    public var state: State
    /// A hint for the translator (which field, length limits); written as a note or comment.
    public var note: String?
    /// Markdown text: its links are exported as inline codes, not only its placeholders.
    public var isMarkdown: Bool

    public init(
        key: String, sourceText: String, translation: String? = nil, state: State, note: String? = nil, isMarkdown: Bool = false
    ) {
        self.key = key
        self.sourceText = sourceText
        self.translation = translation
        self.state = state
        self.note = note
        self.isMarkdown = isMarkdown
    }
}

/// The formats `quire l10n export` writes.
public enum ExportFormat: String, Sendable, CaseIterable {
    case xliff12, xliff20, po, json

    /// The file extension the exported file gets.
    public var pathExtension: String {
        switch self {
        case .xliff12, .xliff20: return "xlf"
        case .po: return "po"
        case .json: return "json"
        }
    }

    /// The format the reader uses for files written in this export format.
    public var translationFormat: TranslationFormat {
        switch self {
        case .xliff12, .xliff20: return .xliff
        case .po: return .po
        case .json: return .json
        }
    }
}
