public import QuireModel

/// A page that passed validation: what the later stages (localization, markdown, publish)
/// need, with every translatable string named by its stable key.
public struct PageModel: Sendable, Hashable {
    public var pageID: String
    public var file: String
    public var title: LocalizableText?
    public var ttl: Int?
    public var sections: [SectionModel]
    /// Other page-level fields published as written (`refresh`, ...).
    public var extras: JSONObject

    /// Every translatable string of the page, in page order.
    public var translatableStrings: [LocalizableText] {
        var strings: [LocalizableText] = []
        if let title, title.translatable { strings.append(title) }
        for section in sections { section.collectStrings(into: &strings) }
        return strings
    }
}

/// A text or markdown value; `key` is its translation key (`hero.title`, `grid.items.idpa-50.title`).
public struct LocalizableText: Sendable, Hashable {
    public var key: String
    /// Where it is in the source: `sections[2].body`.
    public var keyPath: String
    public var text: String
    public var position: SourcePosition
    public var translatable: Bool
    public var isMarkdown: Bool
}

public struct SectionModel: Sendable, Hashable {
    public var type: String
    public var id: String?
    /// False for a type the vocabulary does not know: published unchanged from `raw`.
    public var isKnown: Bool
    public var fields: [FieldEntry]
    public var raw: JSONValue
    public var visibleTo: [String]

    func collectStrings(into strings: inout [LocalizableText]) {
        for field in fields { field.value.collectStrings(into: &strings) }
    }
}

public struct FieldEntry: Sendable, Hashable {
    public var name: String
    public var value: FieldValue
}

public indirect enum FieldValue: Sendable, Hashable {
    case plain(JSONValue)
    case text(LocalizableText)
    case markdown(LocalizableText)
    case items([[FieldEntry]])
    /// A nested section (`fallback`).
    case section(SectionModel)

    func collectStrings(into strings: inout [LocalizableText]) {
        switch self {
        case .plain: break
        case .text(let text), .markdown(let text): if text.translatable { strings.append(text) }
        case .items(let items): for item in items { for field in item { field.value.collectStrings(into: &strings) } }
        case .section(let section): section.collectStrings(into: &strings)
        }
    }
}
