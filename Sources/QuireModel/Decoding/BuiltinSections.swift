/// Swift types for the built-in vocabulary (DESIGN.md §1), as Quire publishes it: text already
/// in the page's locale, markdown pre-rendered.

/// A markdown field as published: the source text, safe HTML, and a block tree native renderers walk.
public struct MarkdownText: Decodable, Sendable, Hashable {
    public var markdown: String
    public var html: String
    /// Block nodes (`{"type": "paragraph", "inlines": [...]}`, ...), left open: new node types
    /// must not break decoding.
    public var blocks: [JSONValue]
}

public struct HeroBanner: SectionDecodable, Hashable {
    public static let sectionType = "hero_banner"
    public var id: String?
    public var imageURL: String
    public var title: String
    public var subtitle: String?
    public var alt: String?

    enum CodingKeys: String, CodingKey { case id, title, subtitle, alt, imageURL = "image_url" }
}

public struct MarkdownBlock: SectionDecodable, Hashable {
    public static let sectionType = "markdown_block"
    public var id: String?
    public var body: MarkdownText
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

        enum CodingKeys: String, CodingKey { case id, title, alt, price, imageURL = "image_url", externalURL = "external_url" }
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

    enum CodingKeys: String, CodingKey { case id, title, drillIDs = "drill_ids" }
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

    enum CodingKeys: String, CodingKey { case id, url, title, caption, posterURL = "poster_url" }
}

public struct ImageGallery: SectionDecodable, Hashable {
    public static let sectionType = "image_gallery"
    public struct Image: Decodable, Sendable, Hashable {
        public var imageURL: String
        public var alt: String?
        public var caption: String?

        enum CodingKeys: String, CodingKey { case alt, caption, imageURL = "image_url" }
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
}
