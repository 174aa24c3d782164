/// One version as `quire versions` lists it.
public struct VersionInfo: Sendable, Hashable {
    public var id: VersionID
    public var builtAt: String
    public var parent: VersionID?
    /// Page files (`.json` in locale folders, audience variants included).
    public var pages: Int
    public var locales: [String]
    /// Bytes of every file the version reaches, shared ones included.
    public var bytes: Int
    /// Compared with the parent version; nil when the parent is gone (collected) or there is none.
    public var changes: VersionChanges?
    public var isCurrent: Bool
    public var isPinned: Bool
}

/// Paths added, changed (other bytes) and removed since the parent version, sorted.
public struct VersionChanges: Sendable, Hashable {
    public var added: [String]
    public var changed: [String]
    public var removed: [String]

    init(from old: [String: PublishedFile], to new: [String: PublishedFile]) {
        added = new.keys.filter { old[$0] == nil }.sorted()
        changed = new.keys.filter { path in old[path].map { $0.sha256 != new[path]?.sha256 } ?? false }.sorted()
        removed = old.keys.filter { new[$0] == nil }.sorted()
    }
}

/// Something `verify` found that differs from the manifests.
public struct VerificationProblem: Sendable, Hashable, CustomStringConvertible {
    public enum Kind: String, Sendable {
        /// Listed but not on disk.
        case missing
        /// On disk but not listed.
        case extra
        /// On disk with other bytes, size, kind or link target than listed.
        case changed
    }

    public var kind: Kind
    /// Relative to the version (or exported folder): `en/trex-store.json`.
    public var path: String
    public var detail: String

    public var description: String { "\(path): \(kind.rawValue): \(detail)" }
}

/// What `gc` removed.
public struct CollectionReport: Sendable, Hashable {
    public var removedVersions: [VersionID]
    public var removedTrees: Int
}
