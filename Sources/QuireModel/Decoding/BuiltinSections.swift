/// Swift types for the built-in vocabulary (README.md, "Pages"), as Quire publishes it: text already
/// in the page's locale, markdown pre-rendered.

/// A markdown field as published: the markdown string, with the safe HTML and the block tree native
/// renderers walk beside it (`body`, `body_html`, `body_blocks`: `MarkdownFieldNames`).
public struct MarkdownText: Sendable, Hashable {
    public var markdown: String
    /// Nil when the page carries only the markdown (as the app team's spec writes it).
    public var html: String?
    /// Block nodes (`{"type": "paragraph", "inlines": [...]}`, ...), left open: new node types
    /// must not break decoding. Nil when the page carries only the markdown.
    public var blocks: [JSONValue]?

    public init(markdown: String, html: String? = nil, blocks: [JSONValue]? = nil) {
        self.markdown = markdown
        self.html = html
        self.blocks = blocks
    }

    /// The markdown field `field` of the section (or item) `decoder` holds, with its rendered forms
    /// when present. Also reads a version published before manifest format 2, where the field was
    /// an object `{markdown, html, blocks}` (what a rollback may serve).
    public init(from decoder: any Decoder, field: String) throws {
        let container = try decoder.container(keyedBy: AnyCodingKey.self)
        let key = AnyCodingKey(field)
        if let text = try? container.decode(String.self, forKey: key) {
            self.init(
                markdown: text,
                html: try container.decodeIfPresent(String.self, forKey: AnyCodingKey(MarkdownFieldNames.html(field))),
                blocks: try container.decodeIfPresent([JSONValue].self, forKey: AnyCodingKey(MarkdownFieldNames.blocks(field))))
            return
        }
        let object = try container.nestedContainer(keyedBy: AnyCodingKey.self, forKey: key)
        self.init(
            markdown: try object.decode(String.self, forKey: AnyCodingKey("markdown")),
            html: try object.decodeIfPresent(String.self, forKey: AnyCodingKey("html")),
            blocks: try object.decodeIfPresent([JSONValue].self, forKey: AnyCodingKey("blocks")))
    }
}

public struct HeroBanner: SectionDecodable, Hashable {
    public static let sectionType = "hero_banner"
    public var id: String?
    public var imageURL: String
    public var title: String
    public var subtitle: String?
    public var alt: String?

    enum CodingKeys: String, CodingKey {
        case id, title, subtitle, alt
        case imageURL = "image_url"
    }
}

public struct MarkdownBlock: SectionDecodable, Hashable {
    public static let sectionType = "markdown_block"
    public var id: String?
    public var body: MarkdownText

    public init(from decoder: any Decoder) throws {
        id = try decoder.container(keyedBy: AnyCodingKey.self).decodeIfPresent(String.self, forKey: AnyCodingKey("id"))
        body = try MarkdownText(from: decoder, field: "body")
    }
}

public struct ProductGrid: SectionDecodable, Hashable {
    public static let sectionType = "product_grid"
    public struct Item: Decodable, Sendable, Hashable {
        public var id: String?
        public var title: String
        public var imageURL: String?
        public var alt: String?
        public var price: String?
        public var externalURL: String?

        enum CodingKeys: String, CodingKey {
            case id, title, alt, price
            case imageURL = "image_url"
            case externalURL = "external_url"
        }
    }
    public var id: String?
    public var title: String?
    public var items: [Item]
}

public struct DrillCarousel: SectionDecodable, Hashable {
    public static let sectionType = "drill_carousel"
    public var id: String?
    public var title: String?
    public var drillIDs: [String]

    enum CodingKeys: String, CodingKey {
        case id, title
        case drillIDs = "drill_ids"
    }
}

public struct CTAButton: SectionDecodable, Hashable {
    public static let sectionType = "cta_button"
    public enum Action: String, Decodable, Sendable, Hashable {
        case navigate
        case external
    }
    public var id: String?
    public var label: String
    public var action: Action
    public var destination: String
}

public struct VideoEmbed: SectionDecodable, Hashable {
    public static let sectionType = "video_embed"
    public var id: String?
    public var url: String
    public var title: String?
    public var caption: String?
    public var posterURL: String?

    enum CodingKeys: String, CodingKey {
        case id, url, title, caption
        case posterURL = "poster_url"
    }
}

public struct ImageGallery: SectionDecodable, Hashable {
    public static let sectionType = "image_gallery"
    public struct Image: Decodable, Sendable, Hashable {
        public var imageURL: String
        public var alt: String?
        public var caption: String?

        enum CodingKeys: String, CodingKey {
            case alt, caption
            case imageURL = "image_url"
        }
    }
    public var id: String?
    public var title: String?
    public var images: [Image]
}

public struct Divider: SectionDecodable, Hashable {
    public static let sectionType = "divider"
    public var id: String?
    /// `line` or `space`; kept as text so a new style does not fail decoding.
    public var style: String?
}

public struct Announcement: SectionDecodable, Hashable {
    public static let sectionType = "announcement"
    public var id: String?
    public var title: String?
    public var body: MarkdownText
    /// `info`, `tip`, `warning` or `promo`; kept as text so a new tone does not fail decoding.
    public var tone: String?

    enum CodingKeys: String, CodingKey { case id, title, tone }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decodeIfPresent(String.self, forKey: .id)
        title = try container.decodeIfPresent(String.self, forKey: .title)
        tone = try container.decodeIfPresent(String.self, forKey: .tone)
        body = try MarkdownText(from: decoder, field: "body")
    }
}

/// A card that opens another page: the entries of a feed (`<locale>/feeds/<name>.json`).
public struct PageLink: SectionDecodable, Hashable {
    public static let sectionType = "page_link"
    public var id: String?
    /// The page it opens: `<locale>/<pageID>.json` beside the page index (`PageIndex.pageURL`).
    public var pageID: String
    public var title: String
    public var summary: String?
    /// `/assets/...` (`PageIndex.assetURL`) or an https: URL.
    public var imageURL: String?
    /// When the page was published (ISO 8601).
    public var date: String?

    enum CodingKeys: String, CodingKey {
        case id, title, summary, date
        case pageID = "page_id"
        case imageURL = "image_url"
    }
}
