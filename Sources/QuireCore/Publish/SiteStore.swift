// STUB: replaced by the publishing work. Signatures are the contract the pipeline and CLI use.
public import QuireModel
import Foundation

/// A version id: `v000001`, `v000002`, ... numbered per site in publish order.
public struct VersionID: Sendable, Hashable, Comparable, CustomStringConvertible {
    public var number: Int
    public init(_ number: Int) { self.number = number }
    public init?(_ text: String) {
        guard text.count == 7, text.hasPrefix("v"), let number = Int(text.dropFirst()), number > 0 else { return nil }
        self.number = number
    }
    public var description: String { "v" + String(repeating: "0", count: max(0, 6 - String(number).count)) + String(number) }
    public static func < (lhs: VersionID, rhs: VersionID) -> Bool { lhs.number < rhs.number }
}

/// One file of a version to publish, by its path inside the version (`en/trex-store.json`).
public struct OutputFile: Sendable {
    public enum Content: Sendable {
        case bytes([UInt8])
        /// The same file as in the newest version (unchanged, or a broken page keeping its last
        /// good output): shared or linked, never rewritten.
        case carried
    }

    public var path: String
    public var content: Content
    /// Digest of everything this file was built from; the next build rebuilds when it differs.
    public var inputDigest: String
    /// Listed with the file in the manifest (ttl, variants, ...).
    public var metadata: JSONValue?

    public init(path: String, content: Content, inputDigest: String, metadata: JSONValue? = nil) {
        self.path = path
        self.content = content
        self.inputDigest = inputDigest
        self.metadata = metadata
    }
}

/// A file as a published version lists it.
public struct PublishedFile: Sendable, Hashable {
    public var sha256: String
    public var size: Int
    public var inputDigest: String
    public var metadata: JSONValue?
}

public struct PublishRequest: Sendable {
    /// Every file of the new version, carried ones included; a file not listed is not in it.
    public var files: [OutputFile]
    /// Site-level manifest fields (locales, default_locale, fallbacks, ttl, source_digest, ...).
    public var manifest: JSONObject
    /// The build record (timings, warnings, ...), stored as `build.json` in the version.
    public var buildRecord: JSONObject

    public init(files: [OutputFile], manifest: JSONObject, buildRecord: JSONObject) {
        self.files = files
        self.manifest = manifest
        self.buildRecord = buildRecord
    }
}

public enum PublishOutcome: Sendable, Equatable {
    /// A new version; `isCurrent` is false when the site is pinned to an older one.
    case published(VersionID, isCurrent: Bool)
    /// The output equals the newest version: nothing was written.
    case unchanged(VersionID)
}

/// An operational failure (I/O, lock held, disk full): exit code 3.
public struct StoreError: Error, Sendable, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}

/// Everything Quire writes under `dist/<site>/`, and the only code that does.
public final class SiteStore: @unchecked Sendable {
    public let site: String
    public let root: String

    public init(dist: String, site: String) throws(StoreError) { fatalError("stub") }

    /// Runs `body` holding the site's publish lock; `waiting` is told once when another process
    /// holds it; throws after `timeout` seconds.
    public func withPublishLock<T>(timeout: Double, waiting: (String) -> Void, _ body: () throws -> T) throws -> T { fatalError("stub") }

    public func newestVersion() throws(StoreError) -> VersionID? { fatalError("stub") }
    public func currentVersion() throws(StoreError) -> VersionID? { fatalError("stub") }
    public func pinnedVersion() throws(StoreError) -> VersionID? { fatalError("stub") }

    /// Every file of a version, by path (cached in memory for the newest version).
    public func files(of version: VersionID) throws(StoreError) -> [String: PublishedFile] { fatalError("stub") }

    /// Stages, syncs once, moves into `versions/` and swaps `current` (unless pinned). Call with the lock held.
    public func publish(_ request: PublishRequest) throws(StoreError) -> PublishOutcome { fatalError("stub") }

    /// Replaces `status/status.json` (and any other status files) atomically.
    public func writeStatus(_ files: [String: [UInt8]]) throws(StoreError) { fatalError("stub") }
}
