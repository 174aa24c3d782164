public import QuireModel

/// One file of a version to publish, by its path inside the version (`en/trex-store.json`).
public struct OutputFile: Sendable {
    public enum Content: Sendable {
        case bytes([UInt8])
        /// The same file as in the newest version (unchanged, or a broken page keeping its last
        /// good output): shared or linked, never rewritten.
        case carried
        /// Written while rendering into the store's staging area (`StagingBlobs`): moved into
        /// its tree by the publish, so the bytes need not stay in memory until then.
        case staged(StagedBlob)
    }

    public var path: String { storage.path }
    public var content: Content { storage.content }
    /// Digest of everything this file was built from; the next build rebuilds when it differs.
    public var inputDigest: Digest { storage.inputDigest }
    /// Listed with the file in the manifest (ttl, variants, ...).
    public var metadata: JSONValue? { storage.metadata }

    /// The fields, boxed: a cold build's 60,000 files are gathered, grouped, sorted and planned
    /// by value, and a copy of the box is one reference counted, where the fields were four (a
    /// third of planning was copying and releasing them).
    private let storage: Storage

    private final class Storage: Sendable {
        let path: String
        let content: Content
        let inputDigest: Digest
        let metadata: JSONValue?

        init(path: String, content: Content, inputDigest: Digest, metadata: JSONValue?) {
            self.path = path
            self.content = content
            self.inputDigest = inputDigest
            self.metadata = metadata
        }
    }

    public init(path: String, content: Content, inputDigest: Digest, metadata: JSONValue? = nil) {
        storage = Storage(path: path, content: content, inputDigest: inputDigest, metadata: metadata)
    }
}

/// A file as a published version lists it.
public struct PublishedFile: Sendable, Hashable {
    public var sha256: Digest
    public var size: Int
    public var inputDigest: Digest
    public var metadata: JSONValue?

    public init(sha256: Digest, size: Int, inputDigest: Digest, metadata: JSONValue? = nil) {
        self.sha256 = sha256
        self.size = size
        self.inputDigest = inputDigest
        self.metadata = metadata
    }
}
