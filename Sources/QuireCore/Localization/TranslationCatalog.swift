// STUB (lead's copy of the contract): replaced by the l10n branch.
public struct TranslationEntry: Sendable, Hashable {
    public var key: String
    public var text: String
    public var sourceText: String?
    public var isFuzzy: Bool
    public var position: SourcePosition
}

public struct TranslationCatalog: Sendable {
    public var file: String
    public var locale: String?
    public var pageID: String?
    public var entries: [TranslationEntry]
}

public enum TranslationFormat: String, Sendable {
    case yaml, json, xliff, po
    public init?(pathExtension: String) {
        switch pathExtension {
        case "yaml", "yml": self = .yaml
        case "json": self = .json
        case "xlf", "xliff": self = .xliff
        case "po": self = .po
        default: return nil
        }
    }
}

public enum TranslationFileReader {
    public static func read(_ bytes: [UInt8], file: String, format: TranslationFormat) throws(Diagnostic) -> (TranslationCatalog, [Diagnostic]) {
        fatalError("stub")
    }
}
