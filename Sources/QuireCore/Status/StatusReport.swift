import Foundation
import QuireModel

/// `dist/<site>/status/status.json`: the live state of the site, and `summary.json`, the same
/// without the pages, which editors' previews and the status page poll.
///
///     { "site", "version" (newest), "current", "pinned" (or null), "built_at",
///       "ok", "pages": { page_id: { "locales": [..], "diagnostics": [..], "preview": { locale: url } } },
///       "diagnostics": [..], "coverage": [..], "history": [..],
///       "scheduled": [{ "page_id", "section"?, "at", "action": "publish" | "expire" }],
///       "feeds": [{ "name", "entries", "newest": { "page_id", "date" } | null }] (default locale),
///       "replicas": [{ "destination", "version", "state", ... }] (`ReplicaRecord`) }
public enum StatusReport {
    /// The status without its pages (`"pages"` is an empty object in its place) and its pages.
    struct Parts {
        var summary: JSONObject
        var pages: PageParts
    }

    /// The pages the status lists, the site's locales, and the diagnostics of the pages whose
    /// own source has some: all a page's part of the status depends on (`StatusPagePart`).
    struct PageParts {
        var pageIDs: Set<String>
        var diagnostics: [String: [Diagnostic]]
        var locales: [String]

        /// `result`'s diagnostics of the sources of `pageIDs`, by page: for the preview's banner.
        init(result: SiteBuildResult, pageIDs: Set<String>, locales: [String]) {
            var diagnostics: [String: [Diagnostic]] = [:]
            for (file, found) in Dictionary(grouping: result.diagnostics, by: \.file) {
                guard let pageID = result.pageSources[file], pageIDs.contains(pageID) else { continue }
                diagnostics[pageID] = found
            }
            (self.pageIDs, self.diagnostics, self.locales) = (pageIDs, diagnostics, locales)
        }
    }

    /// The pages in the order both files list them. Page ids are ASCII (`[a-z0-9_/-]`), so
    /// their bytes sort as the strings do.
    static func ordered(_ pageIDs: Set<String>) -> [String] {
        pageIDs.sorted { $0.utf8Precedes($1) }
    }

    /// The whole status as one value.
    static func make(
        result: SiteBuildResult, store: SiteStore, locales: [String], pages publishedPages: Set<String>? = nil,
        now: Date = Date()
    ) -> JSONValue {
        let parts = parts(result: result, store: store, locales: locales, pages: publishedPages, now: now)
        var status = parts.summary
        status["pages"] = .object(
            JSONObject(
                distinctKeys: ordered(parts.pages.pageIDs).map { pageID in
                    (pageID, page(pageID, locales: parts.pages.locales, diagnostics: parts.pages.diagnostics[pageID] ?? []))
                }))
        return .object(status)
    }

    /// `status.json`, `summary.json` and `index.html` of `status` (`make`).
    static func files(_ status: JSONValue) -> [String: [UInt8]] {
        let pages = status.objectValue?["pages"]?.objectValue?.members ?? []
        let pageDiagnostics = pages.compactMap { page -> (key: String, value: JSONValue)? in
            guard let diagnostics = page.value.objectValue?["diagnostics"], diagnostics.arrayValue?.isEmpty == false else { return nil }
            return (page.key, diagnostics)
        }
        return [
            "status.json": JSONWriter(pretty: true).bytes(status),
            "summary.json": summary(status.objectValue ?? JSONObject(), pageDiagnostics: pageDiagnostics),
            "index.html": StatusPage.html(status: status),
        ]
    }

    /// `summary.json`: the status without `"pages"`, and `"page_diagnostics"` (page id to its
    /// source's diagnostics, for the pages that have some). What previews and the status page
    /// poll: `status.json` lists every page (31 MB at 100,000 pages).
    private static func summary(_ status: JSONObject, pageDiagnostics: [(key: String, value: JSONValue)]) -> [UInt8] {
        var summary = JSONObject(distinctKeys: status.members.filter { $0.key != "pages" })
        summary["page_diagnostics"] = .object(JSONObject(distinctKeys: pageDiagnostics))
        return JSONWriter(pretty: true).bytes(.object(summary))
    }

    /// Writes the same files into the site's `status/`, each page's part taken from `cache` when
    /// it has not changed since the last write (on a large site the pages are nearly all of both
    /// files). `status.json` is written as it is put together; `summary.json`, which previews and
    /// the status page poll, goes last, so the files it announces are there when they look.
    static func write(
        result: SiteBuildResult, store: SiteStore, locales: [String], pages publishedPages: Set<String>?,
        cache: StatusPageCache, now: Date = Date()
    ) throws(StoreError) {
        let parts = parts(result: result, store: store, locales: locales, pages: publishedPages, now: now)
        let folder = StatusFolder(layout: store.layout)
        let writer = JSONWriter(pretty: true)
        var rows: StatusPage.PageRows?
        // As `JSONWriter(pretty: true)` writes the whole status (`files(_:)`), member by member.
        try folder.write("status.json") { output throws(StoreError) in
            try output.append { $0 += "{".utf8 }
            for (index, member) in parts.summary.members.enumerated() {
                try output.append { writer.appendKey(member.key, first: index == 0, depth: 1, to: &$0) }
                if member.key == "pages" {
                    rows = try cache.render(parts.pages, into: output)
                } else {
                    try output.append { writer.append(member.value, depth: 1, to: &$0) }
                }
            }
            try output.append { $0 += "\n}\n".utf8 }
        }
        let pageDiagnostics = ordered(Set(parts.pages.diagnostics.keys)).map { pageID in
            (key: pageID, value: JSONValue.array(parts.pages.diagnostics[pageID, default: []].map(\.json)))
        }
        try folder.write("index.html", StatusPage.html(status: .object(parts.summary), pageRows: rows))
        try folder.write("summary.json", summary(parts.summary, pageDiagnostics: pageDiagnostics))
    }

    /// One page's entry: its locales, its source's diagnostics and a preview link per locale.
    static func page(_ pageID: String, locales: [String], diagnostics: [Diagnostic]) -> JSONValue {
        // Relative to status/, through current/: the link follows the live version.
        let preview = JSONObject(members: locales.map { (key: $0, value: .string("../current/preview/\($0)/\(pageID).html")) })
        return [
            "locales": .array(locales.map { .string($0) }), "diagnostics": .array(diagnostics.map(\.json)), "preview": .object(preview),
        ]
    }

    /// `publishedPages`: the pages the newest version serves, when the caller knows them.
    private static func parts(result: SiteBuildResult, store: SiteStore, locales: [String], pages publishedPages: Set<String>?, now: Date)
        -> Parts
    {
        var pageIDs = publishedPages ?? []
        if publishedPages == nil, let newest = try? store.reader.newestVersion(), let files = try? store.reader.files(of: newest) {
            for file in files.values {
                let page = OutputMetadata(file.metadata)
                guard let pageID = page.pageID, page.audience == nil else { continue }
                pageIDs.insert(pageID)
            }
        }
        let newest = try? store.reader.newestVersion()
        let current = try? store.reader.currentVersion()
        let pinned = try? store.reader.pinnedVersion()
        let summary: JSONObject = [
            "site": .string(result.site),
            "version": newest.map { .string($0.description) } ?? .null,
            "current": current.map { .string($0.description) } ?? .null,
            "pinned": (pinned ?? nil).map { .string($0.description) } ?? .null,
            "built_at": .string(timestamp(now)),
            "ok": .bool(!result.hasErrors && result.operationalError == nil),
            "errors": .integer(result.diagnostics.filter(\.isError).count),
            "warnings": .integer(result.diagnostics.filter { $0.severity == .warning }.count),
            "pages": .object(JSONObject()),
            "diagnostics": .array(result.diagnostics.map(\.json)),
            "coverage": .array(result.coverage.map(\.json)),
            "scheduled": .array(result.scheduled.map(\.json)),
            "feeds": .array(result.feeds),
            "replicas": .array(ReplicaRecord(layout: store.layout).entries()),
            "history": .array(
                ((try? store.operations.history(last: 25)) ?? []).map { entry in
                    [
                        "at": .string(entry.when), "action": .string(entry.action.rawValue),
                        "from": entry.from.map { .string($0.description) } ?? .null,
                        "to": entry.to.map { .string($0.description) } ?? .null,
                        "reason": .string(entry.reason), "user": .string(entry.user),
                    ]
                }),
        ]
        return Parts(summary: summary, pages: PageParts(result: result, pageIDs: pageIDs, locales: locales))
    }

    /// `date` as `ISO8601DateFormatter` writes it (`2025-03-01T12:00:00Z`: UTC, whole seconds),
    /// without the formatter (`Timestamp`): its first use loads ICU's calendar data, a
    /// millisecond or two of the serial end of every `quire build`.
    static func timestamp(_ date: Date) -> String {
        // In whole milliseconds first, as ICU takes a date: 40.9999 s is written as 41.
        Timestamp.string(seconds: time_t(((date.timeIntervalSince1970 * 1000).rounded() / 1000).rounded(.down)))
    }
}
