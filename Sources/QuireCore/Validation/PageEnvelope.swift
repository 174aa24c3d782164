/// What a page source may hold besides its section types' own fields, as data: the envelope
/// (`title`, `ttl`, ...) and the keys every section carries (`id`, `visible_to`, ...). The
/// validator's list of known keys is made from it, and the dashboard's forms are drawn from it
/// and the vocabulary, so neither keeps a list of its own.
public enum PageEnvelope {
    /// One key and what it holds, named as the dashboard's schema names kinds.
    public struct Field: Sendable, Hashable {
        public var name: String
        /// `text`, `integer`, `boolean`, `date` (ISO 8601), `page` (a page id of the site),
        /// `sections` (a list of sections), `refresh` (`{interval, on_appear}`), `id`,
        /// `audiences` (the site's audiences), `section` (one section), `id_list` (identifiers).
        public var kind: String
        public var summary: String
        /// Whether localization teams translate it.
        public var translatable: Bool

        init(_ name: String, _ kind: String, _ summary: String, translatable: Bool = false) {
            self.name = name
            self.kind = kind
            self.summary = summary
            self.translatable = translatable
        }
    }

    /// The page's own keys a form edits, in the order a form shows them (`sections` is the form's body).
    public static let fields: [Field] = [
        Field("title", "text", "The page's title.", translatable: true),
        Field("ttl", "integer", "Seconds apps and caches may keep the page."),
        Field("refresh", "refresh", "When apps fetch the page again: interval (seconds) and/or on_appear."),
        Field("page_size", "integer", "Publish the page in parts of this many sections."),
        Field("draft", "boolean", "A draft is previewed, never published to apps."),
        Field("publish_at", "date", "Live from this time (ISO 8601)."),
        Field("expires_at", "date", "Gone from this time (ISO 8601)."),
        Field("redirect_to", "page", "The page id this page moved to (a page with no sections)."),
        Field("nav", "sections", "Navigation sections, shown around the page."),
        Field("header", "sections", "Sections above the page's own."),
        Field("footer", "sections", "Sections below the page's own."),
        Field("summary", "text", "The text of the page's card in a feed.", translatable: true),
        Field("image_url", "text", "The image of the page's card in a feed (else its first hero image): /assets/... or https:."),
        Field("tags", "id_list", "Tags the site's feeds select pages by (feeds: in site.yaml)."),
    ]

    /// Keys a page source may carry that a form does not edit as fields.
    static let otherPageKeys = ["$schema", "page_id", "sections"]

    /// Keys every section may carry whatever its type (`Vocabulary.commonSectionKeys`, with kinds).
    public static let sectionFields: [Field] = [
        Field("id", "id", "Unique in the page; the key translations use."),
        Field("visible_to", "audiences", "Only these audiences see the section."),
        Field("fallback", "section", "What apps too old for this section's type show instead."),
        Field("publish_at", "date", "Live from this time (ISO 8601)."),
        Field("expires_at", "date", "Gone from this time (ISO 8601)."),
    ]

    /// Every key a page source may carry at its top.
    static let pageKeys = Set(otherPageKeys + fields.map(\.name))
}
