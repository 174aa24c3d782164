public import QuireModel

/// A new version described by what changes against the newest one: what `quire watch` publishes
/// after an edit, at a cost that follows the edit rather than the site.
public struct PublishDelta: Sendable {
    /// The version the changes apply to; the publish fails when another one became the newest.
    public var base: VersionID
    /// Files added or replaced; every file not named here or in `removed` stays as it is.
    public var files: [OutputFile]
    public var removed: [String]
    /// Site-level manifest fields, as in `PublishRequest`.
    public var manifest: JSONObject
    public var buildRecord: JSONObject
    /// Who caused the publish, for its history line; nil: this process's user.
    public var user: String?

    public init(base: VersionID, files: [OutputFile], removed: [String], manifest: JSONObject, buildRecord: JSONObject) {
        self.base = base
        self.files = files
        self.removed = removed
        self.manifest = manifest
        self.buildRecord = buildRecord
    }
}

extension VersionPublisher {
    /// Publishes `delta.base` with the changes applied: new trees only for the folders on the way
    /// to a change, under the lock the caller holds. Throws when `delta.base` is no longer the
    /// newest version (build in full then).
    func publish(_ delta: PublishDelta, holding lock: borrowing HeldPublishLock) throws(StoreError) -> PublishOutcome {
        lock.check(for: layout)
        guard let newest = try reader.newestVersion(), newest == delta.base else {
            throw StoreError("the newest version is no longer \(delta.base): another process published meanwhile")
        }
        let manifest = try reader.manifest(of: newest)
        var index: FileIndex
        if let cached = reader.takeCachedIndex(of: newest) {
            index = cached
        } else {
            index = try FileIndex(manifest: manifest, trees: TreeReader(layout: layout))
        }
        let plan = try DeltaPlanner(previous: index, layout: layout).plan(delta, previousFolders: manifest.folders)
        var applied = false
        // Unchanged or failed: the base stays the newest, with its index.
        defer { if !applied { reader.restoreCachedIndex(index, of: newest) } }
        return try commit(
            plan.topLevel, base: newest, baseManifest: manifest, siteFields: delta.manifest, buildRecord: delta.buildRecord,
            user: delta.user, holding: lock
        ) {
            applied = true
            index.apply(plan, layout: layout)
            return index
        }
    }
}
