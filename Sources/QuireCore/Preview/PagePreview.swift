public import QuireModel

/// One published page drawn as the app's design system would draw it, inside a phone frame:
/// an HTML5 document with the version's own style sheet and script (`preview/preview.css` and
/// `preview/preview.js`, shared by every preview of the version: the same 7.5 KB and 4.8 KB
/// inline in each of 30,000 previews were a fifth and then a sixth of a cold build's bytes).
/// The script runs only with its SHA-256 (`integrity`, and the policy's `script-src`), as it
/// did inline. No request leaves the server.
///
/// Content never reaches the document unescaped: text is escaped, URLs become `href`s only
/// when `https:`, `http:` or relative, images load only from the version's assets, and the
/// Content-Security-Policy allows no script but our own.
public enum PagePreview {
    public static func html(page: JSONValue, context: PreviewContext) -> [UInt8] {
        let title = page["title"]?.displayText ?? context.pageID
        var html = HTMLWriter()
        html.raw("<!DOCTYPE html>\n<html")
        html.attribute("lang", context.locale)
        // The page says which way its locale runs; the whole preview is laid out that way.
        html.attribute("dir", page["direction"]?.stringValue == TextDirection.rtl.rawValue ? "rtl" : "ltr")
        html.attribute("data-version", context.version ?? "")
        html.attribute("data-page-id", context.pageID)
        html.attribute("data-status-url", context.statusURL)
        html.raw(">\n<head>\n<meta charset=\"utf-8\">\n")
        html.raw("<meta http-equiv=\"Content-Security-Policy\" content=\"")
        html.raw(PreviewScripts.livePreviewPolicy)
        html.raw("\">\n<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n")
        html.raw("<meta name=\"referrer\" content=\"no-referrer\">\n<title>")
        html.text(title)
        html.raw(" · ")
        html.text(context.locale)
        html.raw(" · preview</title>\n<link rel=\"stylesheet\"")
        html.attribute("href", context.stylesheetURL)
        html.raw(bytes: headEnd)

        html.raw("<header class=\"toolbar\">")
        html.raw("<span class=\"brand\">Quire preview</span>")
        toolbarField(&html, "site", context.site)
        toolbarField(&html, "page", context.pageID)
        toolbarField(&html, "locale", context.locale)
        // Previews are shared between versions, so usually none is baked in: the script
        // fills in the version from the address or from status.json.
        toolbarField(&html, "version", context.version ?? "—", id: "quire-version")
        html.raw("<a id=\"quire-status-link\" class=\"status-link\"")
        let statusFile = "status.json"
        html.attribute(
            "href",
            context.statusURL.hasSuffix(statusFile)
                ? String(context.statusURL.dropLast(statusFile.count)) + "index.html" : context.statusURL)
        html.raw(">site status</a></header>\n")
        html.raw("<div id=\"quire-diagnostics\" class=\"banner banner-error\" role=\"alert\" hidden></div>\n")
        html.raw("<div id=\"quire-notice\" class=\"banner banner-notice\" role=\"status\" hidden></div>\n")

        html.raw("<main class=\"stage\"><div class=\"phone\"><div class=\"screen\">\n")
        html.raw("<div class=\"statusbar\"><span>9:41</span><span class=\"notch\"></span><span>●●● ▮</span></div>\n")
        html.raw("<div class=\"navbar\">")
        html.element("h1", title)
        html.raw("</div>\n<div class=\"content\">\n")
        let renderer = SectionRenderer(context: context)
        let sections = page["sections"]?.arrayValue ?? []
        if sections.isEmpty {
            html.raw("<p class=\"empty\">This page has no sections.</p>\n")
        }
        for (index, section) in sections.enumerated() {
            renderer.render(section, index: index, into: &html)
        }
        html.raw("</div>\n</div></div></main>\n<script")
        html.attribute("src", context.scriptURL)
        html.raw(bytes: documentEnd)
        return html.bytes
    }

    /// The style sheet every preview links to, published with the previews.
    public static let stylesheetPath = "preview/preview.css"
    public static let stylesheet = Array(PreviewStyle.page.utf8)
    /// The live-reload script every preview loads, published with the previews.
    public static let scriptPath = "preview/preview.js"
    public static let script = Array(PreviewScripts.livePreview.utf8)

    // The same for every page: encoded once, not once per preview.
    private static let headEnd = Array(">\n</head>\n<body>\n".utf8)
    private static let documentEnd = Array(
        " integrity=\"\(PreviewScripts.integrity(PreviewScripts.livePreview))\"></script>\n</body>\n</html>\n".utf8)

    private static func toolbarField(_ html: inout HTMLWriter, _ label: String, _ value: String, id: String? = nil) {
        html.raw("<span class=\"field\"><span class=\"label\">")
        html.raw(label)
        html.raw("</span> <code")
        html.attribute("id", id)
        html.raw(">")
        html.text(value)
        html.raw("</code></span>")
    }
}
