import QuireModel

/// `status/replicas.json`: each destination's last push, which the status page shows. A
/// destination left out keeps the version it had when last reached.
///
///     { "replicas": [{ "destination", "version" (or null), "state": "current" | "unreachable" | "failed",
///                      "message"?, "checked_at" }] }
struct ReplicaRecord {
    let layout: SiteLayout
    var path: String { layout.status + "/replicas.json" }

    /// The recorded list, for `status.json` (`replicas`); empty when the site was never pushed.
    func entries() -> [JSONValue] {
        guard let bytes = try? FileSystem.readFile(path), let value = StoredJSONReader.parse(bytes) else { return [] }
        return value["replicas"]?.arrayValue ?? []
    }

    func update(with report: ReplicaPush.Report, store: SiteStore) {
        var byDestination: [String: JSONValue] = [:]
        var order: [String] = []
        for entry in entries() {
            guard let name = entry["destination"]?.stringValue else { continue }
            byDestination[name] = entry
            order.append(name)
        }
        let now = Timestamp.now()
        for (destination, state) in report.destinations {
            let name = destination.description
            let previous = byDestination[name]?["version"] ?? .null
            var entry = JSONObject()
            entry["destination"] = .string(name)
            switch state {
            case .current:
                entry["version"] = .string(report.version.description)
                entry["state"] = .string("current")
            case .unreachable(let message), .failed(let message):
                entry["version"] = previous
                entry["state"] = .string(state == .unreachable(message) ? "unreachable" : "failed")
                entry["message"] = .string(message)
            }
            entry["checked_at"] = .string(now)
            if byDestination[name] == nil { order.append(name) }
            byDestination[name] = .object(entry)
        }
        let replicas = JSONValue.array(order.compactMap { byDestination[$0] })
        var files: [String: [UInt8]] = ["replicas.json": JSONWriter(pretty: true).bytes(["replicas": replicas])]
        // The status page shows the replicas: rewritten now, not at the next build.
        if let bytes = try? FileSystem.readFile(layout.status + "/status.json"), case .object(var status)? = StoredJSONReader.parse(bytes) {
            status["replicas"] = replicas
            files.merge(StatusReport.files(.object(status))) { $1 }
        }
        try? store.writeStatus(files)
    }
}
