// What a long-lived builder (`quire watch`) keeps from one build to the next, so that a save
// costs what it changes: sources are not parsed again while their bytes are equal, outputs whose
// inputs did not change are carried. (The base a delta is published against is `BurstHold`'s.)
// A one-shot `quire build` keeps none of it (`keepsSources` off).
//
// Owned by one `SiteBuilder` and touched only by its builds, one at a time.
struct IncrementalState {
    /// Page sources as last read, by absolute path.
    private(set) var sources: [String: CachedSource] = [:]
    /// Translation files as last read, by absolute path.
    private(set) var translations: [String: CachedTranslation] = [:]
    /// The last scan, reused for whatever a change set leaves alone.
    private var inventory: SiteInventory?
    /// Per page, its output as the last build left it and the key it was built under.
    private(set) var outputs: [String: (key: OutputKey, output: PageOutput)] = [:]
    /// Per asset (absolute path), the digest of its bytes as last read.
    private(set) var assetDigests: [String: Digest] = [:]
    /// What validation looked at besides each page, at the last build.
    private(set) var lastContext: (settings: String, pageIDs: Set<String>, assets: Set<String>)?
    /// Whether the caches came from a restart file (`RestartCache`) and their outputs are not yet
    /// checked against the newest version.
    private(set) var isRestored = false
    private var restoredFilesDigests: [String: Digest] = [:]
    /// True when the newest version holds every output of the last build (so it can be carried).
    private(set) var lastBuildPublished = false

    /// Forgets what may no longer match the disk (a failed build: another process may have
    /// published). Parses stay: they are checked against the bytes.
    mutating func forget() {
        isRestored = false
        restoredFilesDigests = [:]
        inventory = nil
        outputs = [:]
        assetDigests = [:]
        lastContext = nil
        lastBuildPublished = false
    }

    /// A restarted watcher's caches, as the last watcher left them (`RestartCache`): sources and
    /// translation files are used only where their bytes still hash the same, outputs only once
    /// `keepOutputs(matching:)` found each file in the newest version.
    mutating func restore(_ cache: RestartCache) {
        sources = cache.sources
        translations = cache.translations
        outputs = cache.outputs
        restoredFilesDigests = cache.filesDigests
        assetDigests = cache.assetDigests
        lastContext = cache.context
        lastBuildPublished = true
        isRestored = true
    }

    /// Keeps the restored outputs whose every file the newest version holds with the same input
    /// digest (another process may have published since), with the metadata published there.
    /// An output rendered since the restart (a delta's) is kept as it is.
    mutating func keepOutputs(matching published: [String: PublishedFile]) {
        guard isRestored else { return }
        isRestored = false
        var kept: [String: (key: OutputKey, output: PageOutput)] = [:]
        kept.reserveCapacity(outputs.count)
        outputs: for (pageID, entry) in outputs {
            guard let recorded = restoredFilesDigests[pageID] else {
                kept[pageID] = entry
                continue
            }
            var output = entry.output
            for (index, file) in output.files.enumerated() {
                guard let held = published[file.path] else { continue outputs }
                output.files[index] = OutputFile(path: file.path, content: .carried, inputDigest: held.inputDigest, metadata: held.metadata)
            }
            guard RestartCache.filesDigest(output.files) == recorded else { continue }
            kept[pageID] = (entry.key, output)
        }
        outputs = kept
        restoredFilesDigests = [:]
    }

    // MARK: The scan

    /// Taken, not copied: updating an inventory that the builder still held copied its 10,000
    /// pages' and 20,000 translation files' entries on every save.
    mutating func takeInventory() -> SiteInventory? { inventory.take() }

    mutating func keep(_ inventory: SiteInventory) { self.inventory = inventory }

    // MARK: The full path

    /// Records the validation context of a full build. Returns whether it is the last build's
    /// (settings and assets equal) and, if so, the cached sources of pages that link to a page
    /// that came or went since: they are validated again.
    mutating func enterContext(settings: String, pageIDs: Set<String>, assets: Set<String>) -> (same: Bool, relinked: Set<String>) {
        let same = lastContext.map { $0.settings == settings && $0.assets == assets } ?? false
        var relinked = Set<String>()
        if same, let last = lastContext?.pageIDs, last != pageIDs {
            let comeOrGone = last.symmetricDifference(pageIDs)
            relinked = Set(sources.compactMap { path, cached in cached.page.linkedPageIDs.isDisjoint(with: comeOrGone) ? nil : path })
        }
        lastContext = (settings, pageIDs, assets)
        return (same, relinked)
    }

    /// The outputs a full build may carry (by their key): only while the newest version holds
    /// them and the context is the last build's.
    func carriableOutputs(sameContext: Bool) -> [String: (key: OutputKey, output: PageOutput)] {
        lastBuildPublished && sameContext ? outputs : [:]
    }

    /// What a full build's pass read and rendered replaces what was kept; not published yet.
    mutating func keepFullPass(
        sources: [String: CachedSource], translations: [String: CachedTranslation],
        outputs: [String: (key: OutputKey, output: PageOutput)]
    ) {
        self.sources = sources
        self.translations = translations
        self.outputs = outputs
        lastBuildPublished = false
    }

    /// Each output as carrying needs it (`PageOutput.carried`): what the files held to be
    /// published (staged blobs, shared buffers) is let go of.
    mutating func carryOutputs() {
        for index in outputs.values.indices { outputs.values[index].output = outputs.values[index].output.carried }
    }

    /// The build's outputs are in the newest version now.
    mutating func published() { lastBuildPublished = true }

    func assetDigest(_ path: String) -> Digest? { assetDigests[path] }

    mutating func replaceAssetDigests(_ digests: [String: Digest]) { assetDigests = digests }

    // MARK: The delta path

    /// A delta build changed the page set: the full path must see it change.
    mutating func setPageIDs(_ pageIDs: Set<String>) { lastContext?.pageIDs = pageIDs }

    /// One page rendered by a delta build: its source, translation files and output.
    mutating func keep(_ rendered: RenderedPage) {
        if let source = rendered.source { sources[source.path] = rendered.cached }
        for file in rendered.translationFiles { translations[file.file.path] = rendered.translationsCache[file.file.path] }
        outputs[rendered.page.pageID] = rendered.output.map { (rendered.outputKey, $0.carried) }
        restoredFilesDigests[rendered.page.pageID] = nil
    }

    mutating func keepTranslations(_ cache: [String: CachedTranslation]) {
        for (path, entry) in cache { translations[path] = entry }
    }

    /// A page whose source is gone.
    mutating func forgetPage(_ pageID: String, sourcePath: String) {
        sources[sourcePath] = nil
        outputs[pageID] = nil
    }

    /// Outputs the newest version does not hold (a held burst dropped unpublished): not carried.
    mutating func forgetOutputs(of pageIDs: some Sequence<String>) {
        for pageID in pageIDs { outputs[pageID] = nil }
    }

    mutating func setAssetDigest(_ digest: Digest, of path: String) { assetDigests[path] = digest }
}
