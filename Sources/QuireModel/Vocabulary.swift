/// What a field holds. The registry describes every section type with these, as data.
public indirect enum FieldKind: Sendable, Hashable {
    case text
    case markdown
    /// `https:`, `http:` or a `/`-relative path.
    case url
    /// A URL of an image: same rules as `url`, and `/assets/...` must name a published asset.
    case image
    /// A list of ids (`[a-z0-9_-]` or UUIDs), such as `drill_carousel.drill_ids`.
    case idList
    case enumeration([String])
    case integer
    case boolean
    /// A list of items, each a mapping with these fields and an optional `id`.
    case items([FieldSpec])

    public var name: String {
        switch self {
        case .text: return "text"
        case .markdown: return "markdown"
        case .url: return "url"
        case .image: return "image"
        case .idList: return "id_list"
        case .enumeration: return "enum"
        case .integer: return "integer"
        case .boolean: return "boolean"
        case .items: return "items"
        }
    }
}

public struct FieldSpec: Sendable, Hashable {
    public var name: String
    public var kind: FieldKind
    public var required: Bool
    /// Whether localization teams translate this field (only text and markdown can be).
    public var translatable: Bool
    public var summary: String

    public init(_ name: String, _ kind: FieldKind, required: Bool = false, translatable: Bool = false, summary: String = "") {
        self.name = name
        self.kind = kind
        self.required = required
        self.translatable = translatable
        self.summary = summary
    }
}

public struct SectionTypeSpec: Sendable, Hashable {
    public var name: String
    public var summary: String
    public var fields: [FieldSpec]
    /// The first app version that renders this type; older apps render the section's `fallback`.
    public var minimumAppVersion: String?

    public init(_ name: String, summary: String, minimumAppVersion: String? = nil, fields: [FieldSpec]) {
        self.name = name
        self.summary = summary
        self.fields = fields
        self.minimumAppVersion = minimumAppVersion
    }

    public func field(named name: String) -> FieldSpec? { fields.first { $0.name == name } }
}

/// The section vocabulary: the one registry of section types, built-in ones plus a site's own.
public struct Vocabulary: Sendable, Hashable {
    public private(set) var types: [SectionTypeSpec]

    public init(types: [SectionTypeSpec]) { self.types = types }

    public subscript(name: String) -> SectionTypeSpec? { types.first { $0.name == name } }

    /// Adds a type, or replaces one of the same name: the last registration wins.
    public mutating func register(_ type: SectionTypeSpec) {
        if let index = types.firstIndex(where: { $0.name == type.name }) {
            types[index] = type
        } else {
            types.append(type)
        }
    }

    /// Keys every section may carry whatever its type.
    public static let commonSectionKeys: Set<String> = [
        "type", "id", "visible_to", "fallback", "publish_at", "expires_at",
    ]
    /// Keys Quire adds to a published section (`min_app_version`, beside a `fallback`): a field of
    /// that name would be overwritten, so a vocabulary cannot declare one.
    public static let publishedSectionKeys: Set<String> = ["min_app_version"]
}
