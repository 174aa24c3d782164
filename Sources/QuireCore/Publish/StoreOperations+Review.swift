public import QuireModel

/// What ops read about a site's versions, for `quire versions`/`diff` and the dashboard alike.
extension StoreOperations {
    /// The published paths added, changed (other bytes) and removed from `old` to `new`.
    public func diff(from old: VersionID, to new: VersionID) throws(StoreError) -> VersionChanges {
        VersionChanges(from: try reader.files(of: old), to: try reader.files(of: new))
    }

    /// The bytes of one published file of `version`; nil when the version has no such file.
    public func publishedFile(_ path: String, of version: VersionID) throws(StoreError) -> [UInt8]? {
        guard let location = try reader.index(of: version).locations.first(where: { $0.path == path })?.location else { return nil }
        return try FileSystem.readFile(location.storedPath)
    }

    /// Each replica's last push as `status/replicas.json` records it (destination, version, state).
    public func replicaStates() -> [JSONValue] {
        ReplicaRecord(layout: layout).entries()
    }

    /// Who caused each version: the user of the history's publish line that made it.
    public func publishers() throws(StoreError) -> [VersionID: String] {
        var users: [VersionID: String] = [:]
        for entry in try history() where entry.action == .publish {
            if let version = entry.to { users[version] = entry.user }
        }
        return users
    }
}

extension VersionInfo {
    /// As `quire versions --format json` writes it.
    public var json: JSONValue {
        var object: JSONObject = [
            "id": .string(id.description), "built_at": .string(builtAt),
            "parent": parent.map { .string($0.description) } ?? .null,
            "pages": .integer(pages), "locales": .array(locales.map { .string($0) }),
            "bytes": .integer(bytes), "current": .bool(isCurrent), "pinned": .bool(isPinned),
        ]
        if let changes { object["changes"] = changes.json }
        return .object(object)
    }
}

extension VersionChanges {
    public var json: JSONValue {
        [
            "added": .array(added.map { .string($0) }), "changed": .array(changed.map { .string($0) }),
            "removed": .array(removed.map { .string($0) }),
        ]
    }
}
