import Foundation
import QuireModel

/// The pages of the status files, kept between writes. A page's member of `status.json` and its
/// row in `index.html` depend only on its id, the site's locales and its source's diagnostics,
/// so a write renders the pages whose diagnostics changed (or that are new) and copies the rest.
/// At 10,000 pages that is nearly all of both files (about 7 MB), which `quire watch` wrote
/// from scratch after every save.
final class StatusPageCache: @unchecked Sendable {
    private struct Page {
        var diagnostics: [Diagnostic]
        /// `"<id>": {...}` as it stands in the pages object, without the separator before it.
        var member: [UInt8]
        var row: [UInt8]
    }

    // NSLock rather than Mutex: ThreadSanitizer sees its ordering (see StageClock).
    private let lock = NSLock()
    private var locales: [String] = []
    private var pages: [String: Page] = [:]
    /// How many pages the last `render` rendered rather than copied.
    private(set) var renderedByLastWrite = 0

    /// The pages object of `status.json` (the value of `"pages"`, one level deep) and the rows
    /// of the status page's table, for `parts`' pages in order. Pages not listed are forgotten.
    func render(_ parts: StatusReport.Parts) -> (json: [UInt8], rows: StatusPage.PageRows) {
        lock.withLock {
            if parts.locales != locales {
                pages = [:]
                locales = parts.locales
            }
            renderedByLastWrite = 0
            guard !parts.pageIDs.isEmpty else {
                pages = [:]
                return (Array("{}".utf8), StatusPage.PageRows(columns: [], count: 0, bytes: []))
            }
            let writer = JSONWriter(pretty: true)
            var json = Array("{".utf8)
            var rows: [UInt8] = []
            var kept: [String: Page] = [:]
            kept.reserveCapacity(parts.pageIDs.count)
            for pageID in parts.pageIDs {
                let diagnostics = parts.diagnostics[pageID] ?? []
                var page: Page
                if let cached = pages[pageID], cached.diagnostics == diagnostics {
                    page = cached
                } else {
                    let value = StatusReport.page(pageID, locales: locales, diagnostics: diagnostics)
                    page = Page(diagnostics: diagnostics, member: [], row: StatusPage.PageRows.row(pageID, value, columns: locales))
                    writer.append(.string(pageID), depth: 2, to: &page.member)
                    page.member += ": ".utf8
                    writer.append(value, depth: 2, to: &page.member)
                    renderedByLastWrite += 1
                }
                json += (kept.isEmpty ? "\n    " : ",\n    ").utf8
                json += page.member
                rows += page.row
                kept[pageID] = page
            }
            json += "\n  }".utf8
            pages = kept
            // Every page lists every locale and previews it: the table's columns are the locales.
            return (json, StatusPage.PageRows(columns: locales, count: parts.pageIDs.count, bytes: rows))
        }
    }
}
