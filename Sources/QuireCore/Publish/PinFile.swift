import QuireModel

/// `state/pin`: while present, publishing adds versions but leaves `current` where ops put it.
struct PinFile {
    struct Pin: Sendable, Hashable {
        var version: VersionID
        var reason: String
        var pinnedAt: String
    }

    let path: String

    func read() throws(StoreError) -> Pin? {
        guard FileSystem.exists(path) else { return nil }
        let bytes = try FileSystem.readFile(path)
        guard let value = StoredJSONReader.parse(bytes), let version = value["version"]?.stringValue.flatMap(VersionID.init) else {
            throw StoreError("the pin '\(path)' is damaged: remove it with 'quire unpin' or by hand")
        }
        return Pin(version: version, reason: value["reason"]?.stringValue ?? "", pinnedAt: value["pinned_at"]?.stringValue ?? "")
    }

    func write(_ version: VersionID, reason: String) throws(StoreError) {
        let value: JSONValue = .object(
            JSONObject([
                ("version", .string(version.description)), ("reason", .string(reason)), ("pinned_at", .string(Timestamp.now())),
            ]))
        try FileSystem.replaceFile(path, JSONWriter(pretty: true).bytes(value), durable: true)
    }

    func remove() throws(StoreError) {
        guard FileSystem.exists(path) else { return }
        try FileSystem.remove(path)
        try FileSystem.syncDirectory(String(path[..<(path.lastIndex(of: "/") ?? path.endIndex)]))
    }

    /// The pin file as it is, to put back when a rollback fails half-way (nil: no pin).
    func bytes() throws(StoreError) -> [UInt8]? {
        FileSystem.exists(path) ? try FileSystem.readFile(path) : nil
    }

    func restore(_ bytes: [UInt8]?) throws(StoreError) {
        if let bytes { try FileSystem.replaceFile(path, bytes, durable: true) } else { try remove() }
    }
}
