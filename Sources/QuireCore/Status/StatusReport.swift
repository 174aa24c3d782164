import QuireModel
import Foundation

/// `dist/<site>/status/status.json`: the live state editors' previews and the status page read.
///
///     { "site", "version" (newest), "current", "pinned" (or null), "built_at",
///       "ok", "pages": { page_id: { "locales": [..], "diagnostics": [..], "preview": { locale: url } } },
///       "diagnostics": [..], "coverage": [..], "history": [..],
///       "scheduled": [{ "page_id", "section"?, "at", "action": "publish" | "expire" }] }
public enum StatusReport {
    /// `publishedPages`: the pages the newest version serves, when the caller knows them.
    static func make(result: SiteBuildResult, store: SiteStore, locales: [String], pages publishedPages: Set<String>? = nil) -> JSONValue {
        let byFile = Dictionary(grouping: result.diagnostics, by: \.file)
        var pageIDs = publishedPages ?? []
        if publishedPages == nil, let newest = try? store.newestVersion(), let files = try? store.files(of: newest) {
            for file in files.values {
                guard let pageID = file.metadata?["page_id"]?.stringValue, file.metadata?["audience"]?.stringValue == nil else { continue }
                pageIDs.insert(pageID)
            }
        }
        // Diagnostics of a page's own source go with that page, for the preview's banner.
        var diagnosticsByPage: [String: [Diagnostic]] = [:]
        for (file, diagnostics) in byFile {
            guard let pageID = result.pageSources[file], pageIDs.contains(pageID) else { continue }
            diagnosticsByPage[pageID] = diagnostics
        }
        let localeList = JSONValue.array(locales.map { .string($0) })
        // Built in one go: a large site lists ten thousand pages on every status write.
        let pages = JSONObject(distinctKeys: pageIDs.sorted().map { pageID in
            // Relative to status/, through current/: the link follows the live version.
            let preview = JSONObject(members: locales.map { (key: $0, value: .string("../current/preview/\($0)/\(pageID).html")) })
            let diagnostics = JSONValue.array((diagnosticsByPage[pageID] ?? []).map(\.json))
            return (pageID, ["locales": localeList, "diagnostics": diagnostics, "preview": .object(preview)])
        })
        let newest = try? store.newestVersion()
        let current = try? store.currentVersion()
        let pinned = try? store.pinnedVersion()
        let formatter = ISO8601DateFormatter()
        return [
            "site": .string(result.site),
            "version": newest.map { .string($0.description) } ?? .null,
            "current": current.map { .string($0.description) } ?? .null,
            "pinned": (pinned ?? nil).map { .string($0.description) } ?? .null,
            "built_at": .string(formatter.string(from: Date())),
            "ok": .bool(!result.hasErrors && result.operationalError == nil),
            "errors": .integer(result.diagnostics.filter(\.isError).count),
            "warnings": .integer(result.diagnostics.filter { $0.severity == .warning }.count),
            "pages": .object(pages),
            "diagnostics": .array(result.diagnostics.map(\.json)),
            "coverage": .array(result.coverage.map(\.json)),
            "scheduled": .array(result.scheduled.map(\.json)),
            "history": .array(((try? store.history(last: 25)) ?? []).map { entry in
                ["at": .string(entry.when), "action": .string(entry.action.rawValue),
                 "from": entry.from.map { .string($0.description) } ?? .null, "to": entry.to.map { .string($0.description) } ?? .null,
                 "reason": .string(entry.reason), "user": .string(entry.user)]
            }),
        ]
    }

    static func files(_ status: JSONValue) -> [String: [UInt8]] {
        ["status.json": JSONWriter(pretty: true).bytes(status), "index.html": StatusPage.html(status: status)]
    }
}
