/// The preview shells of one build (`PagePreview.shell`), made before its pages render: one per
/// folder depth among its page ids and per source. Pages read them without a lock, and each
/// worker thread holds its own copy of the bytes (`unshared`), so pages on different cores do
/// not retain and release one buffer's count.
struct PreviewShells: Sendable {
    private struct Key: Hashable {
        var depth: Int
        var source: PagePreview.Source
    }

    private var shells: [Key: [UInt8]] = [:]
    let site: String
    /// `PagePreview.shellDigest` of each source, made once: every preview file holds one.
    let published: Digest
    let preview: Digest

    init(site: String, pageIDs: some Sequence<String>) {
        self.site = site
        published = PagePreview.shellDigest(site: site, source: .published)
        preview = PagePreview.shellDigest(site: site, source: .preview)
        for depth in Set(pageIDs.lazy.map { UTF8Scan.slashes(in: $0) }) {
            for source in [PagePreview.Source.published, .preview] {
                shells[Key(depth: depth, source: source)] = PagePreview.shell(site: site, depth: depth, source: source)
            }
        }
    }

    /// The same shells in buffers of their own (`Array(array)` would share the buffer).
    var unshared: PreviewShells {
        var copy = self
        copy.shells = shells.mapValues { bytes in bytes.withUnsafeBufferPointer { Array($0) } }
        return copy
    }

    func digest(_ source: PagePreview.Source) -> Digest { source == .preview ? preview : published }

    /// The shell of `pageID`; made here for a depth the build did not expect (none, in practice).
    func shell(pageID: String, source: PagePreview.Source) -> [UInt8] {
        let depth = UTF8Scan.slashes(in: pageID)
        return shells[Key(depth: depth, source: source)] ?? PagePreview.shell(site: site, depth: depth, source: source)
    }
}
