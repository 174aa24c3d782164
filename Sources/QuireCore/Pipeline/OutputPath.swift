import QuireModel

/// What an output path says about the page it belongs to.
enum OutputPath {
    /// The page an output file belongs to: its metadata's `page_id`, or what a preview's path
    /// says (`preview/<locale>/<page_id>.html`, a draft's `preview/<locale>/<page_id>[.<n>].json`).
    static func pageID(ofOutput path: String, metadata: JSONValue?) -> String? {
        if let id = metadata?["page_id"]?.stringValue { return id }
        guard path.hasPrefix("preview/"), path.hasSuffix(".html") || path.hasSuffix(".json") else { return nil }
        let rest = path.dropFirst("preview/".count)
        guard let slash = rest.firstIndex(of: "/") else { return nil }
        let file = rest[rest.index(after: slash)...]
        // Page ids never hold '.': the page id ends at the first one of the file name.
        let name = file.lastIndex(of: "/").map { file[file.index(after: $0)...] } ?? file
        guard let dot = name.firstIndex(of: ".") else { return nil }
        return String(file[..<dot])
    }

    /// `en` of `preview/en/...`: the locale of a preview's file.
    static func previewLocale(_ path: String) -> String? {
        guard path.hasPrefix("preview/") else { return nil }
        let rest = path.dropFirst("preview/".count)
        return rest.firstIndex(of: "/").map { String(rest[..<$0]) }
    }

    /// Whether an output path is a file apps are served (a page file, an asset), not a preview.
    static func servesPage(_ path: String) -> Bool { !path.hasPrefix("preview/") }

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
