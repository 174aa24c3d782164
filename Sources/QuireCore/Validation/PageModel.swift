public import Foundation
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
    /// The app-facing envelope: `nav`, `header` and `footer` section lists, in that order.
    public var regions: [PageRegion] = []
    /// Sections per published part (pagination); nil publishes one file.
    public var pageSize: Int?
    public var schedule = Schedule()
    /// A stub left at an old page id: apps follow it to this page id.
    public var redirectTo: String?
    public var card = PageCard()

    public var isDraft: Bool { extras["draft"]?.boolValue == true }

    /// Every translatable string of the page, in page order.
    public var translatableStrings: [LocalizableText] {
        var strings: [LocalizableText] = []
        if let title, title.translatable { strings.append(title) }
        if let summary = card.summary { strings.append(summary) }
        for region in regions { for section in region.sections { section.collectStrings(into: &strings) } }
        for section in sections { section.collectStrings(into: &strings) }
        return strings
    }

    /// Every section of the page, envelope first, fallbacks not included.
    public var allSections: [SectionModel] { regions.flatMap(\.sections) + sections }
}

/// What a page's card in a feed shows besides its title, and the tags feeds select it by.
public struct PageCard: Sendable, Hashable {
    public var summary: LocalizableText?
    /// Else the page's first hero image.
    public var imageURL: String?
    public var tags: [String] = []
}

/// One of the envelope's section lists (`nav`, `header`, `footer`).
public struct PageRegion: Sendable, Hashable {
    public static let names = ["nav", "header", "footer"]
    public var name: String
    public var sections: [SectionModel]
}

/// `publish_at` / `expires_at` of a page or a section: live from the first, gone at the second.
public struct Schedule: Sendable, Hashable {
    public var publishAt: Date?
    public var expiresAt: Date?

    public init(publishAt: Date? = nil, expiresAt: Date? = nil) {
        self.publishAt = publishAt
        self.expiresAt = expiresAt
    }

    public var isEmpty: Bool { publishAt == nil && expiresAt == nil }

    public func isLive(at now: Date) -> Bool {
        if let publishAt, now < publishAt { return false }
        if let expiresAt, now >= expiresAt { return false }
        return true
    }

    /// The first of its times after `now`, with what happens then.
    public func nextChange(after now: Date) -> (at: Date, action: ScheduledChange.Action)? {
        if let publishAt, publishAt > now { return (publishAt, .publish) }
        if let expiresAt, expiresAt > now { return (expiresAt, .expire) }
        return nil
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
    /// The section as written, for an unknown type; `.null` for a known one (published from
    /// `fields`, so the copy would only cost time).
    public var raw: JSONValue
    public var visibleTo: [String]
    public var schedule = Schedule()

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
