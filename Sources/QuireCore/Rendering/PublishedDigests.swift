import QuireModel

/// The SHA-256 of each file a writer kept between builds (`PageIndexFiles`, `FeedFiles`) put in
/// the version its last round was made for: a file made again with the same bytes is carried, and
/// one it no longer makes is removed by the next delta.
struct PublishedDigests: Sendable {
    private var digests: [String: Digest] = [:]
    /// What decided the last round's paths (each list's part count); nil before a round, and in
    /// a restart file's copy.
    private var lastLayout: [String: Int]?

    init() {}

    /// `bytes` (of `digest`) as the file at `path`, carried when they equal what it was: in `base`
    /// (the newest version's files, on a first round), else in the last round.
    private mutating func file(
        _ path: String, _ bytes: [UInt8], digest: Digest, base: [String: PublishedFile]?, metadata: JSONValue?
    ) -> OutputFile {
        let was = base?[path]?.sha256 ?? digests[path]
        digests[path] = digest
        return OutputFile(path: path, content: was == digest ? .carried : .bytes(bytes), inputDigest: digest, metadata: metadata)
    }

    /// A file to make: its path, its metadata, and what makes its bytes.
    typealias Made = (path: String, metadata: JSONValue?, make: () -> [UInt8])

    /// `file` of each, made and hashed side by side when there are many (a full build makes 1,536
    /// page index parts at 100,000 pages, and a feed of them all 15,000 parts; a save, a few).
    mutating func files(_ made: [Made], base: [String: PublishedFile]?) -> [OutputFile] {
        let slots = ResultSlots<(bytes: [UInt8], digest: Digest)>(count: made.count)
        let width = made.count > 64 ? WideConcurrentPerform.defaultWidth : 1
        WideConcurrentPerform.run(iterations: made.count, width: width) { position in
            let bytes = made[position].make()
            slots.set(position, (bytes, SHA256.digest(bytes)))
        }
        return zip(made, slots.values).map { made, slot in
            let (bytes, digest) = slot!
            return file(made.path, bytes, digest: digest, base: base, metadata: made.metadata)
        }
    }

    /// The paths of the last rounds that are not `current`, forgotten: the files that are gone.
    /// The paths follow from `layout` (each list's part count): while it is the last round's,
    /// none are gone, and `current` is not made (at 100,000 pages, the page index alone has 1,536
    /// parts, and a save writes one a locale). `listingAll`: made anyway (a round of every file).
    mutating func removed(layout: [String: Int], listingAll: Bool, keeping current: () -> Set<String>) -> [String] {
        if !listingAll, layout == lastLayout { return [] }
        lastLayout = layout
        let current = current()
        let removed = digests.keys.filter { !current.contains($0) }.sorted()
        for path in removed { digests[path] = nil }
        return removed
    }

    // MARK: The restart file

    func write(to writer: inout BinaryWriter) {
        writer.array(digests) { writer, entry in
            writer.string(entry.key)
            entry.value.write(to: &writer)
        }
    }

    init(reading reader: inout BinaryReader) throws(BinaryReader.Malformed) {
        let count = try reader.count()
        digests.reserveCapacity(count)
        for _ in 0..<count { digests[try reader.string()] = try Digest(reading: &reader) }
    }
}
