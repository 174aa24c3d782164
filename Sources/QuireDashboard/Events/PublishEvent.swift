import QuireCore
import QuireModel

/// The `publish` event the dashboards get after each build of a site (docs: the contract in
/// ARCHITECTURE.md, "The dashboard").
enum PublishEvent {
    /// At most this many diagnostics go with one event (a site-wide change can have thousands).
    static let maxDiagnostics = 200

    static func held(_ site: String) -> JSONValue {
        .object(
            JSONObject([
                ("site", .string(site)), ("version", .null), ("outcome", "held"), ("pages", []), ("saves", []),
                ("diagnostics", []),
            ]))
    }

    static func make(
        _ result: SiteBuildResult, saves: [(save: SaveLedger.Save, milliseconds: Double)], changed: Set<String>?, pagesRoot: String
    ) -> JSONValue {
        let (outcome, version): (String, VersionID?) =
            switch result.outcome {
            case .published(let version, _): ("published", version)
            case .unchanged(let version): ("unchanged", version)
            case nil: ("failed", nil)
            }
        // The diagnostics of the files this build was asked about (all of them for a whole build).
        let files = changed.map { paths in Set(paths.map { Self.display(result, absolute: $0, pagesRoot: pagesRoot) }) }
        let diagnostics = result.diagnostics.filter { diagnostic in files?.contains { diagnostic.file.hasSuffix($0) } ?? true }
        return .object(
            JSONObject([
                ("site", .string(result.site)), ("version", version.map { .string($0.description) } ?? .null),
                ("outcome", .string(result.operationalError != nil ? "failed" : outcome)),
                ("pages", .array((result.pagesRebuilt + result.pagesAdded + result.pagesRemoved).map { .string($0) })),
                (
                    "saves",
                    .array(
                        saves.map { save, milliseconds in
                            .object(
                                JSONObject([
                                    ("save_id", .string(save.id)), ("ms", .number((milliseconds * 10).rounded() / 10)),
                                    ("path", .string(String(save.path.dropFirst(pagesRoot.count + 1)))),
                                ]))
                        })
                ),
                (
                    "diagnostics",
                    .array(
                        diagnostics.prefix(maxDiagnostics).map { diagnostic in
                            var json = DiagnosticJSON.make(diagnostic)
                            if case .object(var object) = json {
                                object["page"] = result.pageSources[diagnostic.file].map(JSONValue.string) ?? .null
                                json = .object(object)
                            }
                            return json
                        })
                ),
                ("operational_error", result.operationalError.map(JSONValue.string) ?? .null),
            ]))
    }

    /// `<site>/<path in the site>` of an absolute changed path: diagnostics end with it.
    private static func display(_ result: SiteBuildResult, absolute: String, pagesRoot: String) -> String {
        "/" + absolute.dropFirst(pagesRoot.count + 1)
    }
}

/// A diagnostic as the dashboard reads it: `key_path` null for the whole file.
enum DiagnosticJSON {
    static func make(_ diagnostic: Diagnostic) -> JSONValue {
        .object(
            JSONObject([
                ("severity", .string(diagnostic.severity.rawValue)), ("message", .string(diagnostic.message)),
                ("key_path", diagnostic.keyPath.isEmpty ? .null : .string(diagnostic.keyPath)),
                ("line", .integer(diagnostic.position.line)), ("column", .integer(diagnostic.position.column)),
                ("file", .string(diagnostic.file)), ("text", .string(diagnostic.description)),
            ]))
    }
}
