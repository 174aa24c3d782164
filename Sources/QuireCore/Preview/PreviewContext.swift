/// Where a preview file sits and what it shows, for `PagePreview.html(page:context:)`.
///
/// Previews are written to `dist/<site>/versions/<v>/preview/<locale>/<page_id>.html` and are
/// also reached as `dist/<site>/current/preview/...`; URLs in them are relative so that both
/// work and any static server (or a `file://` URL) serves them. Opened from a `file://` URL a
/// preview has no live reload: the browser cannot check its script's integrity there, nor
/// fetch `status.json`.
public struct PreviewContext: Sendable {
    public var site: String
    public var locale: String
    public var pageID: String
    /// The version being rendered (`v000007`); nil when unknown, then the preview reloads on
    /// the first change it sees.
    public var version: String?
    /// Relative URL of `status/status.json`, used when the script cannot work it out from
    /// the preview's own address.
    public var statusURL: String
    /// Relative URL prefix of the version folder: `/assets/x.jpg` becomes `<assetBase>assets/x.jpg`.
    public var assetBase: String
    /// Page ids of the site: a `navigate` CTA to one of them links to that page's preview.
    public var sitePageIDs: Set<String>

    /// Relative URL of the version's preview style sheet.
    public var stylesheetURL: String { assetBase + PagePreview.stylesheetPath }
    /// Relative URL of the version's preview script.
    public var scriptURL: String { assetBase + PagePreview.scriptPath }

    public init(
        site: String, locale: String, pageID: String, version: String?, statusURL: String, assetBase: String,
        sitePageIDs: Set<String> = []
    ) {
        self.site = site
        self.locale = locale
        self.pageID = pageID
        self.version = version
        self.statusURL = statusURL
        self.assetBase = assetBase
        self.sitePageIDs = sitePageIDs
    }

    /// The URLs worked out from the page's depth, for a preview at
    /// `versions/<v>/preview/<locale>/<page_id>.html`.
    public init(site: String, locale: String, pageID: String, version: String?, sitePageIDs: Set<String> = []) {
        let assetBase = Self.versionFolder(fromPageID: pageID)
        self.init(
            site: site, locale: locale, pageID: pageID, version: version,
            statusURL: assetBase + "../../status/status.json", assetBase: assetBase, sitePageIDs: sitePageIDs)
    }

    /// `../../` for `trex-store` (preview/<locale>/ up to the version folder), one more `../`
    /// per folder in the page id.
    public static func versionFolder(fromPageID pageID: String) -> String {
        let folders = UTF8Scan.slashes(in: pageID)
        return String(repeating: "../", count: folders + 2)
    }

    /// Relative URL from this preview to the preview of another page of the same locale.
    func previewURL(ofPage otherPageID: String) -> String {
        assetBase + "preview/" + locale + "/" + otherPageID + ".html"
    }
}
