import QuireModel

/// Draws one section of a published page. Each section is wrapped in an element carrying
/// `data-section-type` and `data-section-id`; types the preview does not know become a dashed
/// placeholder naming the type, as apps skip them.
struct SectionRenderer {
    var context: PreviewContext

    func render(_ section: JSONValue, index: Int, into html: inout HTMLWriter) {
        let type = section["type"]?.stringValue ?? ""
        html.raw("<section class=\"section\"")
        html.attribute("data-section-type", type)
        html.attribute("data-section-id", section["id"]?.displayText ?? "")
        html.attribute("data-section-index", String(index))
        html.raw(">\n")
        switch type {
        case "hero_banner": heroBanner(section, into: &html)
        case "markdown_block": markdown(section, field: "body", into: &html)
        case "product_grid": productGrid(section, into: &html)
        case "drill_carousel": drillCarousel(section, into: &html)
        case "cta_button": ctaButton(section, into: &html)
        case "video_embed": videoEmbed(section, into: &html)
        case "image_gallery": imageGallery(section, into: &html)
        case "divider": divider(section, into: &html)
        case "announcement": announcement(section, into: &html)
        default: unknown(section, type: type, into: &html)
        }
        html.raw("</section>\n")
    }

    // MARK: Sections

    private func heroBanner(_ section: JSONValue, into html: inout HTMLWriter) {
        html.raw("<div class=\"hero\">")
        image(section["image_url"], alt: section["alt"]?.displayText ?? "", class: "hero-image", into: &html)
        html.raw("<div class=\"hero-text\">")
        html.element("h2", section["title"]?.displayText)
        html.element("p", section["subtitle"]?.displayText)
        html.raw("</div></div>\n")
    }

    private func productGrid(_ section: JSONValue, into html: inout HTMLWriter) {
        html.element("h2", class: "section-title", section["title"]?.displayText)
        html.raw("<div class=\"product-grid\">")
        for item in section["items"]?.arrayValue ?? [] {
            html.raw("<article class=\"card product\"")
            html.attribute("data-item-id", item["id"]?.displayText)
            html.raw(">")
            image(item["image_url"], alt: item["alt"]?.displayText ?? "", class: "product-image", into: &html)
            html.raw("<div class=\"card-body\">")
            html.element("h3", item["title"]?.displayText)
            html.element("p", class: "price", item["price"]?.displayText)
            if let url = item["external_url"]?.stringValue {
                link(url, label: "View product ↗", class: "card-link", into: &html)
            }
            html.raw("</div></article>")
        }
        html.raw("</div>\n")
    }

    private func drillCarousel(_ section: JSONValue, into html: inout HTMLWriter) {
        html.element("h2", class: "section-title", section["title"]?.displayText)
        html.raw("<div class=\"strip\">")
        for drill in section["drill_ids"]?.arrayValue ?? [] {
            let id = drill.displayText ?? ""
            html.raw("<article class=\"card drill\"><div class=\"drill-art\">◎</div><div class=\"card-body\">")
            html.element("h3", Self.humanized(id))
            html.element("p", class: "muted", id)
            html.raw("</div></article>")
        }
        html.raw("</div>\n")
    }

    private func ctaButton(_ section: JSONValue, into html: inout HTMLWriter) {
        let label = section["label"]?.displayText ?? ""
        let destination = section["destination"]?.displayText ?? ""
        let isExternal = section["action"]?.stringValue == "external"
        html.raw("<div class=\"cta\">")
        if isExternal {
            link(destination, label: label, class: "button", into: &html)
            html.element(
                "p", class: "hint",
                PreviewURL.link(destination) == nil
                    ? "not a usable link: " + destination
                    : "opens " + (PreviewURL.host(of: destination) ?? destination) + " in the browser")
        } else {
            let pageID = destination.hasPrefix("/") ? String(destination.dropFirst()) : destination
            if context.sitePageIDs.contains(pageID) {
                html.raw("<a class=\"button\"")
                html.attribute("href", context.previewURL(ofPage: pageID))
                html.raw(">")
                html.text(label)
                html.raw("</a>")
            } else {
                html.raw("<span class=\"button\" role=\"button\">")
                html.text(label)
                html.raw("</span>")
            }
            html.element("p", class: "hint", "navigates in the app to " + destination)
        }
        html.raw("</div>\n")
    }

    private func videoEmbed(_ section: JSONValue, into html: inout HTMLWriter) {
        html.raw("<div class=\"video\">")
        if let poster = section["poster_url"],
            case .local(let path) = PreviewURL.image(poster.displayText ?? "", assetBase: context.assetBase)
        {
            html.raw("<img class=\"video-poster\" alt=\"\"")
            html.attribute("src", path)
            html.raw(">")
        }
        html.raw("<span class=\"play\" aria-hidden=\"true\">▶</span>")
        if let url = section["url"]?.displayText {
            html.element("span", class: "video-source", PreviewURL.link(url) == nil ? "not a usable link" : PreviewURL.host(of: url) ?? url)
        }
        html.raw("</div>")
        html.raw("<div class=\"video-meta\">")
        html.element("h3", section["title"]?.displayText)
        html.element("p", class: "muted", section["caption"]?.displayText)
        if let url = section["url"]?.displayText {
            link(url, label: "Open video ↗", class: "card-link", into: &html)
        }
        html.raw("</div>\n")
    }

    private func imageGallery(_ section: JSONValue, into html: inout HTMLWriter) {
        html.element("h2", class: "section-title", section["title"]?.displayText)
        html.raw("<div class=\"strip gallery\">")
        for picture in section["images"]?.arrayValue ?? [] {
            html.raw("<figure class=\"gallery-item\">")
            image(picture["image_url"], alt: picture["alt"]?.displayText ?? "", class: "gallery-image", into: &html)
            html.element("figcaption", picture["caption"]?.displayText)
            html.raw("</figure>")
        }
        html.raw("</div>\n")
    }

    private func divider(_ section: JSONValue, into html: inout HTMLWriter) {
        html.raw(section["style"]?.stringValue == "space" ? "<div class=\"spacer\"></div>\n" : "<hr class=\"divider\">\n")
    }

    private func announcement(_ section: JSONValue, into html: inout HTMLWriter) {
        let tones = ["info": "ℹ", "tip": "✓", "warning": "⚠", "promo": "★"]
        let tone = section["tone"]?.stringValue.flatMap { tones[$0] == nil ? nil : $0 } ?? "info"
        html.raw("<div class=\"announcement tone-\(tone)\"><span class=\"tone-icon\" aria-hidden=\"true\">\(tones[tone] ?? "")</span><div>")
        html.element("h3", section["title"]?.displayText)
        markdown(section, field: "body", into: &html)
        html.raw("</div></div>\n")
    }

    private func unknown(_ section: JSONValue, type: String, into html: inout HTMLWriter) {
        html.raw("<div class=\"unknown\"><p><strong>")
        html.text(type.isEmpty ? "Section without a type" : "Unknown section type “\(type)”")
        html.raw("</strong></p><p class=\"muted\">Apps that do not know this type skip it.</p>")
        let fields = (section.objectValue?.keys ?? []).filter { $0 != "type" && $0 != "id" }
        if !fields.isEmpty {
            html.element("p", class: "muted", "fields: " + fields.joined(separator: ", "))
        }
        html.raw("</div>\n")
    }

    // MARK: Parts

    /// A markdown field: its pre-rendered `<field>_html` (filtered), or its text when there is none.
    private func markdown(_ section: JSONValue, field: String, into html: inout HTMLWriter) {
        html.raw("<div class=\"markdown\">")
        if let rendered = section[MarkdownFieldNames.html(field)]?.stringValue {
            let filter = MarkdownHTMLFilter(assetBase: context.assetBase)
            html.raw { filter.filter(rendered, into: &$0) }
        } else if let text = section[field]?.displayText {
            html.element("p", class: "plain", text)
        }
        html.raw("</div>")
    }

    /// An image from the version's assets, or a labelled box for anything that would leave
    /// the server or is not a usable URL.
    /// `className` is one of our own constants, written raw (in pieces, not interpolated).
    private func image(_ value: JSONValue?, alt: String, class className: String, into html: inout HTMLWriter) {
        guard let url = value?.displayText else {
            html.raw("<div class=\"")
            html.raw(className)
            html.raw(" image-placeholder\"><span>no image</span></div>")
            return
        }
        switch PreviewURL.image(url, assetBase: context.assetBase) {
        case .local(let path):
            html.raw("<img class=\"")
            html.raw(className)
            html.raw("\" loading=\"lazy\"")
            html.attribute("src", path)
            html.attribute("alt", alt)
            html.raw(">")
        case .remote(let host):
            html.raw("<div class=\"")
            html.raw(className)
            html.raw(" image-placeholder\"")
            html.attribute("title", url)
            html.raw("><span>remote image<br>")
            html.text(host)
            html.raw("</span></div>")
        case .invalid:
            html.raw("<div class=\"")
            html.raw(className)
            html.raw(" image-placeholder\"><span>image not shown</span></div>")
        }
    }

    /// A link when the URL may be one; otherwise the label alone, marked as not linked.
    private func link(_ url: String, label: String, class className: String, into html: inout HTMLWriter) {
        if let href = PreviewURL.link(url) {
            html.raw("<a class=\"")
            html.raw(className)
            html.raw("\" rel=\"noopener noreferrer\" target=\"_blank\"")
            html.attribute("href", href)
            html.raw(">")
        } else {
            html.raw("<span class=\"")
            html.raw(className)
            html.raw(" unlinked\"")
            html.attribute("title", "not a link: " + url)
            html.raw(">")
        }
        html.text(label)
        html.raw(PreviewURL.link(url) == nil ? "</span>" : "</a>")
    }

    /// `dot-drill_2` → `Dot Drill 2`: drill cards show a readable name until the app fills them.
    /// A leading hexadecimal key (`0193a500-bill-drill`, a UUID's first part) is left out of the
    /// name; the card shows the whole id below it.
    static func humanized(_ id: String) -> String {
        var words = id.split(whereSeparator: { $0 == "-" || $0 == "_" })
        if words.count > 1, let first = words.first, first.count >= 6, first.allSatisfy(\.isHexDigit), first.contains(where: \.isNumber) {
            words.removeFirst()
        }
        return words.map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined(separator: " ")
    }
}
