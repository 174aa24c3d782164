import QuireModel

/// What an output path says about the page it belongs to.
enum OutputPath {
    /// The page an output file belongs to: its metadata's `page_id`, or a preview's path.
    static func pageID(ofOutput path: String, metadata: JSONValue?) -> String? {
        if let id = metadata?["page_id"]?.stringValue { return id }
        // `preview/<locale>/<page_id>.html`
        guard path.hasPrefix("preview/"), path.hasSuffix(".html") else { return nil }
        let rest = path.dropFirst("preview/".count).dropLast(".html".count)
        guard let slash = rest.firstIndex(of: "/") else { return nil }
        return String(rest[rest.index(after: slash)...])
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
