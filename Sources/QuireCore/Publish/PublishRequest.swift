public import QuireModel

public struct PublishRequest: Sendable {
    /// Every file of the new version, carried ones included; a file not listed is not in it.
    public var files: [OutputFile]
    /// Site-level manifest fields (locales, default_locale, fallbacks, ttl, source_digest, ...).
    public var manifest: JSONObject
    /// The build record (timings, warnings, ...), stored as `build.json` in the version.
    public var buildRecord: JSONObject
    /// Who caused the publish, for its history line; nil: this process's user.
    public var user: String?
    /// The version the files were made for (the page index names it): the publish fails when
    /// the store would number it otherwise (another process published meanwhile).
    public var expectedVersion: VersionID?

    public init(files: [OutputFile], manifest: JSONObject, buildRecord: JSONObject, user: String? = nil) {
        self.user = user
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

    public var isPublished: Bool {
        if case .published = self { return true }
        return false
    }
}
