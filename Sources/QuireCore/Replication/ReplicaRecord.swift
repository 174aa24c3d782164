import QuireModel

/// `status/replicas.json`: each destination's last push, which the status page shows. A
/// destination left out keeps the version it had when last reached.
///
///     { "replicas": [{ "destination", "version" (or null), "state": "current" | "unreachable" | "failed",
///                      "message"?, "checked_at", "probe"? }] }
struct ReplicaRecord {
    let layout: SiteLayout
    var path: String { layout.status + "/replicas.json" }

    /// The recorded list, for `status.json` (`replicas`); empty when the site was never pushed.
    func entries() -> [JSONValue] {
        guard let bytes = try? FileSystem.readFile(path), let value = StoredJSONReader.parse(bytes) else { return [] }
        return value["replicas"]?.arrayValue ?? []
    }

    func update(with report: ReplicaPush.Report, store: SiteStore, statusRewrite: (@Sendable () -> Void)? = nil) {
        let now = Timestamp.now()
        update(report.destinations.map(\.destination), store: store, statusRewrite: statusRewrite) { byDestination in
            for (destination, state) in report.destinations {
                let name = destination.description
                var entry = JSONObject()
                entry["destination"] = .string(name)
                switch state {
                case .current:
                    entry["version"] = .string(report.version.description)
                    entry["state"] = .string("current")
                case .unreachable(let message), .failed(let message):
                    entry["version"] = byDestination[name]?["version"] ?? .null
                    entry["state"] = .string(state == .unreachable(message) ? "unreachable" : "failed")
                    entry["message"] = .string(message)
                }
                entry["checked_at"] = .string(now)
                byDestination[name] = .object(entry)
            }
        }
    }

    /// `quire push --check`: each entry's `probe` (`state`: "ready" | "unreachable" | "failed",
    /// `message`?, `checked_at`); a destination never pushed is listed as "unpushed".
    func update(with probes: [(destination: ReplicaDestination, outcome: ReplicaProbe.Outcome)], store: SiteStore) {
        let now = Timestamp.now()
        update(probes.map(\.destination), store: store) { byDestination in
            for (destination, outcome) in probes {
                let name = destination.description
                guard
                    case .object(var entry) = byDestination[name] ?? ["destination": .string(name), "version": .null, "state": "unpushed"]
                else { continue }
                var probe = JSONObject()
                switch outcome {
                case .ready: probe["state"] = "ready"
                case .unreachable(let message): (probe["state"], probe["message"]) = ("unreachable", .string(message))
                case .failed(let message): (probe["state"], probe["message"]) = ("failed", .string(message))
                }
                probe["checked_at"] = .string(now)
                entry["probe"] = .object(probe)
                byDestination[name] = .object(entry)
            }
        }
    }

    /// Rewrites the record (`destinations` new to it after the others, in their order), then the
    /// status files: through `statusRewrite` when given, else from `status.json`.
    private func update(
        _ destinations: [ReplicaDestination], store: SiteStore, statusRewrite: (@Sendable () -> Void)? = nil,
        _ change: (inout [String: JSONValue]) -> Void
    ) {
        var byDestination: [String: JSONValue] = [:]
        var order: [String] = []
        for entry in entries() {
            guard let name = entry["destination"]?.stringValue else { continue }
            byDestination[name] = entry
            order.append(name)
        }
        for name in destinations.map(\.description) where byDestination[name] == nil && !order.contains(name) { order.append(name) }
        change(&byDestination)
        let replicas = JSONValue.array(order.compactMap { byDestination[$0] })
        var files: [String: [UInt8]] = ["replicas.json": JSONWriter(pretty: true).bytes(["replicas": replicas])]
        if let statusRewrite {
            try? StatusFolder(layout: layout).write(files)
            statusRewrite()
            return
        }
        // The status page shows the replicas: rewritten now, not at the next build.
        if let bytes = try? FileSystem.readFile(layout.status + "/status.json"), case .object(var status)? = StoredJSONReader.parse(bytes) {
            status["replicas"] = replicas
            files.merge(StatusReport.files(.object(status))) { $1 }
        }
        try? StatusFolder(layout: layout).write(files)
    }
}
