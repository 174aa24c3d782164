import QuireModel

/// Where one file of a page is published, relative to the version folder: the one place that
/// spells a page file's path. `en/trex-store.json`, part 2 `en/trex-store.2.json`, an audience's
/// variant `en/trex-store@pro.json`, both `en/trex-store.2@pro.json`. Page ids never hold '.', so
/// a part cannot collide with a page.
public struct PageFilePath: Hashable, Sendable {
    public var pageID: String
    public var locale: String
    /// Nil: the public variant.
    public var audience: String?
    /// 1-based.
    public var part: Int

    public init(pageID: String, locale: String, audience: String? = nil, part: Int = 1) {
        self.pageID = pageID
        self.locale = locale
        self.audience = audience
        self.part = part
    }

    /// Relative to the version folder.
    public var path: String { String(concatenating: locale, "/", pageID, suffix) }

    /// The file name, for `next`: relative to the part that links to it (same folder).
    var fileName: String { (pageID.split(separator: "/").last.map(String.init) ?? pageID) + suffix }

    /// A draft's part, published beside its preview for the preview alone.
    var draftPath: String { OutputPath.previewFolder + path }

    /// The same page, locale and audience; another part.
    func part(_ number: Int) -> PageFilePath { PageFilePath(pageID: pageID, locale: locale, audience: audience, part: number) }

    private var suffix: String { "\(part > 1 ? ".\(part)" : "")\(audience.map { "@\($0)" } ?? "").json" }
}

/// What an output path says about the page it belongs to, and where previews go.
enum OutputPath {
    /// The folder of previews and of drafts' parts: served to editors, never to apps.
    static let previewFolder = "preview/"

    /// `preview/<locale>/<page_id>.html`: a page's preview.
    static func preview(pageID: String, locale: String) -> String {
        String(concatenating: previewFolder, locale, "/", pageID, ".html")
    }

    /// The page an output file belongs to: its metadata's `page_id`, or what a preview's path
    /// says (`preview/<locale>/<page_id>.html`, a draft's `preview/<locale>/<page_id>[.<n>].json`).
    static func pageID(ofOutput path: String, metadata: JSONValue?) -> String? {
        if let id = OutputMetadata(metadata).pageID { return id }
        guard path.hasPrefix(previewFolder), path.hasSuffix(".html") || path.hasSuffix(".json") else { return nil }
        let rest = path.dropFirst(previewFolder.count)
        guard let slash = rest.firstIndex(of: "/") else { return nil }
        let file = rest[rest.index(after: slash)...]
        // Page ids never hold '.': the page id ends at the first one of the file name.
        let name = file.lastIndex(of: "/").map { file[file.index(after: $0)...] } ?? file
        guard let dot = name.firstIndex(of: ".") else { return nil }
        return String(file[..<dot])
    }

    /// `en` of `preview/en/...`: the locale of a preview's file.
    static func previewLocale(_ path: String) -> String? {
        guard path.hasPrefix(previewFolder) else { return nil }
        let rest = path.dropFirst(previewFolder.count)
        return rest.firstIndex(of: "/").map { String(rest[..<$0]) }
    }

    /// Whether a version's folder holds page files, with the page index and feeds beside them
    /// (`<locale>/...`): the folders a save edits, where previews and assets stay as they were.
    static func holdsPageFiles(folder: String, locales: [String]) -> Bool {
        let top = folder.firstIndex(of: "/").map { folder[..<$0] } ?? folder[...]
        return locales.contains { $0 == top }
    }

    /// Whether an output path is a file apps are served (a page file, an asset), not a preview.
    static func servesPage(_ path: String) -> Bool { !path.hasPrefix(previewFolder) }

    /// Pages with a published page file, not only a preview (what `DeltaBase.publishedPages`
    /// keeps up to date): the manifest counts them, the change record and the status report
    /// list them.
    static func publishedPages(_ files: [OutputFile]) -> Set<String> {
        var pages = Set<String>()
        for file in files where servesPage(file.path) {
            if let pageID = pageID(ofOutput: file.path, metadata: file.metadata) { pages.insert(pageID) }
        }
        return pages
    }
}
