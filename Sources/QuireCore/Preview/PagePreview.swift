/// The preview of a published page, drawn as the app's design system would draw it inside a phone
/// frame. The file at `preview/<locale>/<page_id>.html` holds no content: it is the same small
/// document for every page of a site at one folder depth, and its script (`preview/preview.js`,
/// `PreviewPageScript`) fetches the page's JSON and draws it. So a save that changes a page does
/// not change its preview file, and a version's `preview/` folders are written only when a page
/// comes, goes, or turns draft.
///
/// The script runs only with its SHA-256 (`integrity`, and the policy's `script-src`); the
/// policy lets the document fetch from its own server only, and no request leaves it.
public enum PagePreview {
    /// Where the script finds the page's JSON.
    public enum Source: Sendable {
        /// `<locale>/<page_id>.json`: what apps get.
        case published
        /// `preview/<locale>/<page_id>.json`: a draft, or a page outside its schedule, which
        /// apps do not get; its JSON is published beside its preview only.
        case preview
    }

    /// The preview document of `pageID` (its folder depth decides the relative URLs) in `site`.
    public static func shell(site: String, pageID: String, source: Source) -> [UInt8] {
        shell(site: site, depth: UTF8Scan.slashes(in: pageID), source: source)
    }

    /// The preview document of every page `depth` folders deep in `site`.
    static func shell(site: String, depth: Int, source: Source) -> [UInt8] {
        let versionFolder = versionFolder(depth: depth)
        var html = HTMLWriter()
        html.raw("<!DOCTYPE html>\n<html dir=\"ltr\"")
        html.attribute("data-site", site)
        if case .preview = source { html.raw(" data-source=\"preview\"") }
        html.raw(">\n<head>\n<meta charset=\"utf-8\">\n<meta http-equiv=\"Content-Security-Policy\" content=\"")
        html.raw(PreviewScripts.livePreviewPolicy)
        html.raw("\">\n<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n")
        html.raw("<meta name=\"referrer\" content=\"no-referrer\">\n<title>preview</title>\n<link rel=\"stylesheet\"")
        html.attribute("href", versionFolder + stylesheetPath)
        html.raw(">\n</head>\n<body>\n<header class=\"toolbar\"><span class=\"brand\">Quire preview</span>")
        toolbarField(&html, "site", site, id: "quire-site")
        toolbarField(&html, "page", "—", id: "quire-page")
        toolbarField(&html, "locale", "—", id: "quire-locale")
        toolbarField(&html, "version", "—", id: "quire-version")
        html.raw("<a id=\"quire-status-link\" class=\"status-link\"")
        html.attribute("href", versionFolder + "../../status/index.html")
        html.raw(">site status</a></header>\n")
        html.raw("<div id=\"quire-diagnostics\" class=\"banner banner-error\" role=\"alert\" hidden></div>\n")
        html.raw("<div id=\"quire-notice\" class=\"banner banner-notice\" role=\"status\" hidden></div>\n")
        html.raw("<main class=\"stage\"><div class=\"phone\"><div class=\"screen\">\n")
        html.raw("<div class=\"statusbar\"><span>9:41</span><span class=\"notch\"></span><span>●●● ▮</span></div>\n")
        html.raw("<div class=\"navbar\"><h1 id=\"quire-title\"></h1></div>\n")
        html.raw("<div class=\"content\" id=\"quire-content\"><p class=\"empty\">Loading…</p></div>\n")
        html.raw("</div></div></main>\n<script")
        html.attribute("src", versionFolder + scriptPath)
        html.attribute("integrity", scriptIntegrity)
        html.raw("></script>\n</body>\n</html>\n")
        return html.bytes
    }

    /// What the shell of a page depends on besides its path: a preview file carries while this
    /// stays the same.
    static func shellDigest(site: String, source: Source) -> Digest {
        Digest("\(PagePipeline.previewFormat)|\(site)|\(source == .preview ? "preview" : "published")")
    }

    /// `../../` for `trex-store` (preview/<locale>/ up to the version folder), one more `../`
    /// per folder in the page id.
    static func versionFolder(depth: Int) -> String { String(repeating: "../", count: depth + 2) }

    /// The style sheet every preview links to, published with the previews.
    public static let stylesheetPath = "preview/preview.css"
    public static let stylesheet = Array(PreviewStyle.page.utf8)
    /// The script every preview loads, published with the previews.
    public static let scriptPath = "preview/preview.js"
    public static let script = Array(PreviewPageScript.source.utf8)
    static let scriptIntegrity = PreviewScripts.integrity(PreviewPageScript.source)

    private static func toolbarField(_ html: inout HTMLWriter, _ label: StaticString, _ value: String, id: StaticString) {
        html.raw("<span class=\"field\"><span class=\"label\">\(label)</span> <code")
        html.attribute("id", "\(id)")
        html.raw(">")
        html.text(value)
        html.raw("</code></span>")
    }
}
