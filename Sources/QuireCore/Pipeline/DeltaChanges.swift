import QuireModel

/// What the pages of a delta build change, gathered one page at a time. A page may be
/// applied more than once (rendered while its burst went on, then again): its last output
/// counts, against what the base version had of it.
struct DeltaChanges {
    /// By path: a later output of the same file replaces an earlier one.
    private(set) var files: [String: OutputFile] = [:]
    private(set) var removed: Set<String> = []
    /// Per page, so that a page rendered again replaces its own.
    private var pageDiagnostics: [String: [Diagnostic]] = [:]
    var otherDiagnostics: [Diagnostic] = []
    var records = JSONObject()
    /// Each page's files in the base version, as the first apply of the page found them.
    private var basePaths: [String: Set<String>] = [:]
    private var pageChanges: [String: PageChange] = [:]
    /// A page file came, went or changed its cache lifetime: the cache header files change.
    var headersChanged = false

    var diagnostics: [Diagnostic] { pageDiagnostics.values.flatMap { $0 } + otherDiagnostics }
    var added: [String] { pages(.added) }
    var changed: [String] { pages(.changed) }
    var removedPages: [String] { pages(.removed) }
    var isEmpty: Bool { files.isEmpty && removed.isEmpty }

    private func pages(_ change: PageChange) -> [String] {
        pageChanges.compactMap { $0.value == change ? $0.key : nil }.sorted()
    }

    mutating func add(_ file: OutputFile) { files[file.path] = file }

    /// A file of the version that is not a page's (a feed's or the page index's part) is gone.
    mutating func remove(_ path: String) {
        files[path] = nil
        removed.insert(path)
    }

    /// The page index and feed files the pages changed, and the feeds' lines in the cache header files.
    mutating func addIndexAndFeedFiles(base: inout DeltaBase) {
        if let (written, gone) = base.pageIndex?.files() {
            for file in written {
                if case .carried = file.content { continue }
                add(file)
            }
            for path in gone { remove(path) }
        }
        guard let (written, gone) = base.feeds?.files() else { return }
        for file in written {
            if case .carried = file.content { continue }
            add(file)
            if base.cacheHeaders.set(file.path, CacheHeaderFiles.entry(file.metadata)) { headersChanged = true }
        }
        for path in gone {
            remove(path)
            if base.cacheHeaders.set(path, nil) { headersChanged = true }
        }
    }

    mutating func setDiagnostics(_ diagnostics: [Diagnostic], of pageID: String) { pageDiagnostics[pageID] = diagnostics }

    /// Takes a page's new output against what the base has of it (`published`: the base
    /// version's files of the page; `now`: the build's time); returns its new paths.
    mutating func apply(
        _ output: PageOutput, of pageID: String, base: inout DeltaBase, published: [String: PublishedFile], now: String
    ) -> Set<String> {
        let before = base.pagePaths[pageID] ?? []
        let inBase = basePaths[pageID] ?? before
        basePaths[pageID] = inBase
        let after = Set(output.files.map(\.path))
        // An earlier output of this page in this delta is replaced whole, carried files included.
        for path in before.union(after) { files[path] = nil }
        let written = output.files.filter { if case .carried = $0.content { false } else { true } }
        for file in written { files[file.path] = file }
        removed.formUnion(inBase.subtracting(after))
        removed.subtract(after)
        for path in before.subtracting(after) where base.cacheHeaders.set(path, nil) { headersChanged = true }
        for file in output.files {
            guard let entry = CacheHeaderFiles.entry(file.metadata) else { continue }
            if base.cacheHeaders.set(file.path, entry) { headersChanged = true }
        }
        if base.pageIndex != nil {
            let version = VersionID(base.version.number + 1)
            // In place (optional chaining): a copy would copy every page's entries.
            base.pageIndex?.set(pageID, files: output.files, published: published, version: version, now: now)
            base.feeds?.set(pageID, entries: base.pageIndex?.entries(of: pageID) ?? [:])
        }
        pageChanges[pageID] = PageChange(
            wasServed: inBase.contains(where: OutputPath.servesPage), isServed: after.contains(where: OutputPath.servesPage),
            rewroteServedFile: written.contains { OutputPath.servesPage($0.path) })
        return after
    }
}

/// What a change set touches, when the fast path can take it.
struct DeltaScope {
    /// Pages to build: changed, added, or linking to a page added or removed.
    var pages: Set<String> = []
    /// Pages whose source appeared, and pages whose source is gone (-> its path relative to
    /// the site folder): the page set changes.
    var addedPages: Set<String> = []
    var removedPages: [String: String] = [:]
    /// Relative to `assets/`.
    var assets: Set<String> = []
    /// Files (as diagnostics name them) whose diagnostics this build replaces.
    var files: Set<String> = []

    mutating func formUnion(_ other: DeltaScope) {
        pages.formUnion(other.pages)
        addedPages.formUnion(other.addedPages)
        removedPages.merge(other.removedPages) { $1 }
        assets.formUnion(other.assets)
        files.formUnion(other.files)
    }
}
