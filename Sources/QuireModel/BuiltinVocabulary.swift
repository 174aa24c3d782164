extension Vocabulary {
    /// The built-in section types (README.md, "Pages"). Apps know how to render each of these.
    public static let builtIn = Vocabulary(types: [
        SectionTypeSpec(
            "hero_banner", summary: "Full-width image with a title and subtitle over it.", minimumAppVersion: "1.0",
            fields: [
                FieldSpec("image_url", .image, required: true, summary: "The banner image."),
                FieldSpec("title", .text, required: true, translatable: true),
                FieldSpec("subtitle", .text, translatable: true),
                FieldSpec("alt", .text, translatable: true, summary: "Text alternative for the image."),
            ]),
        SectionTypeSpec(
            "markdown_block", summary: "Rich text.", minimumAppVersion: "1.0",
            fields: [
                FieldSpec("body", .markdown, required: true, translatable: true)
            ]),
        SectionTypeSpec(
            "product_grid", summary: "Grid of product cards with image, title, price and link.", minimumAppVersion: "1.0",
            fields: [
                FieldSpec("title", .text, translatable: true),
                FieldSpec(
                    "items",
                    .items([
                        FieldSpec("title", .text, required: true, translatable: true),
                        FieldSpec("image_url", .image),
                        FieldSpec("alt", .text, translatable: true),
                        FieldSpec("price", .text, translatable: true, summary: "Display price, locale-specific text."),
                        FieldSpec("external_url", .url),
                    ]), required: true),
            ]),
        SectionTypeSpec(
            "drill_carousel", summary: "Horizontal strip of drill cards.", minimumAppVersion: "1.0",
            fields: [
                FieldSpec("title", .text, translatable: true),
                FieldSpec("drill_ids", .idList, required: true),
            ]),
        SectionTypeSpec(
            "cta_button", summary: "Prominent button: in-app navigation or an external link.", minimumAppVersion: "1.0",
            fields: [
                FieldSpec("label", .text, required: true, translatable: true),
                FieldSpec("action", .enumeration(["navigate", "external"]), required: true),
                FieldSpec("destination", .url, required: true),
            ]),
        SectionTypeSpec(
            "video_embed", summary: "Embedded video player (YouTube, Vimeo or a file).", minimumAppVersion: "1.1",
            fields: [
                FieldSpec("url", .url, required: true),
                FieldSpec("title", .text, translatable: true),
                FieldSpec("caption", .text, translatable: true),
                FieldSpec("poster_url", .image),
            ]),
        SectionTypeSpec(
            "image_gallery", summary: "Swipeable image carousel.", minimumAppVersion: "1.1",
            fields: [
                FieldSpec("title", .text, translatable: true),
                FieldSpec(
                    "images",
                    .items([
                        FieldSpec("image_url", .image, required: true),
                        FieldSpec("alt", .text, translatable: true),
                        FieldSpec("caption", .text, translatable: true),
                    ]), required: true),
            ]),
        SectionTypeSpec(
            "divider", summary: "Visual separator.", minimumAppVersion: "1.0",
            fields: [
                FieldSpec("style", .enumeration(["line", "space"]))
            ]),
        SectionTypeSpec(
            "announcement", summary: "Highlighted block for tips, alerts or promotions.", minimumAppVersion: "1.0",
            fields: [
                FieldSpec("title", .text, translatable: true),
                FieldSpec("body", .markdown, required: true, translatable: true),
                FieldSpec("tone", .enumeration(["info", "tip", "warning", "promo"])),
            ]),
        SectionTypeSpec(
            "page_link", summary: "A card that opens another page: a feed's entry.", minimumAppVersion: "1.2",
            fields: [
                FieldSpec("page_id", .text, required: true, summary: "The page it opens."),
                FieldSpec("title", .text, required: true, translatable: true),
                FieldSpec("summary", .text, translatable: true),
                FieldSpec("image_url", .image),
                FieldSpec("date", .text, summary: "When the page was published (ISO 8601)."),
            ]),
    ])
}
