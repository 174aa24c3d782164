import Foundation
import QuireModel

/// The pages of the status files, kept between writes. A page's member of `status.json` and its
/// row in `index.html` depend only on its id, the site's locales and its source's diagnostics,
/// so a write renders the pages whose diagnostics changed (or that are new) and copies the rest.
/// At 10,000 pages that is nearly all of both files (about 7 MB) after every save. While the set of pages stays the same (every save but one that
/// adds or removes a page), their order is kept too, and only pages with diagnostics now or at
/// the last write are looked at.
final class StatusPageCache: @unchecked Sendable {
    private typealias Page = StatusPagePart

    // NSLock rather than Mutex: ThreadSanitizer sees its ordering (see StageClock).
    private let lock = NSLock()
    private var locales: [String] = []
    private var template = StatusPagePart.Template(locales: [])
    /// The last write's pages, in order, with the diagnostics they were rendered with (only
    /// the pages that had some).
    /// `order` as a set, kept so the next write's set is compared without hashing every id
    /// again (the builder hands over the same set while no page comes or goes).
    private var pageIDs: Set<String> = []
    private var order: [String] = []
    /// Each page's part, in `order`; nil for a page without diagnostics that the template puts
    /// together as it is written (most pages: their bytes kept were most of a watcher's status).
    private var pages: [Page?] = []
    private var diagnostics: [String: [Diagnostic]] = [:]
    /// How many pages the last `render` rendered rather than copied (since the write before,
    /// `prepare` included).
    private(set) var renderedByLastWrite = 0
    private var renderedSinceWrite = 0

    /// Renders the pages of `pages` that are not kept yet, ahead of the write: a full build does
    /// it beside other work before it publishes. Changes nothing the write shows: a page's part
    /// depends on nothing else. The files' bytes are put together by the write, after the
    /// publish: held through it, they were 60 MB of a 100,000-page build's peak.
    func prepare(_ pages: StatusReport.PageParts) {
        lock.withLock { update(pages) }
    }

    /// Writes the pages object of `status.json` (the value of `"pages"`, one level deep) into
    /// `output` as it puts it together, for `pages`' pages in order, and returns the rows of the
    /// status page's table. Pages not listed are forgotten.
    func render(_ pages: StatusReport.PageParts, into output: FileOutput) throws(StoreError) -> StatusPage.PageRows {
        lock.lock()
        defer { lock.unlock() }
        update(pages)
        (renderedByLastWrite, renderedSinceWrite) = (renderedSinceWrite, 0)
        return try assemble(into: output)
    }

    private func assemble(into output: FileOutput) throws(StoreError) -> StatusPage.PageRows {
        guard !pages.isEmpty else {
            try output.append { $0 += "{}".utf8 }
            return StatusPage.PageRows(columns: [], count: 0, total: 0, bytes: [])
        }
        let writer = JSONWriter(pretty: true)
        var rows: [UInt8] = []
        var count = 0
        try output.append { $0 += "{".utf8 }
        for (index, (pageID, page)) in zip(order, pages).enumerated() {
            try output.append { json in
                writer.appendKey(pageID, first: index == 0, depth: 2, to: &json)
                if let page { json += page.value } else { template.appendValue(pageID, to: &json) }
            }
            guard StatusPage.listsRow(at: index, hasDiagnostics: diagnostics[pageID]?.isEmpty == false) else { continue }
            count += 1
            if let page { rows += page.row } else { template.appendRow(pageID, to: &rows) }
        }
        try output.append { $0 += "\n  }".utf8 }
        // Every page lists every locale and previews it: the table's columns are the locales.
        return StatusPage.PageRows(columns: locales, count: count, total: pages.count, bytes: rows)
    }

    private func update(_ parts: StatusReport.PageParts) {
        if parts.locales != locales {
            (locales, pageIDs, order, pages, diagnostics) = (parts.locales, [], [], [], [:])
            template = StatusPagePart.Template(locales: locales)
        }
        if parts.pageIDs == pageIDs {
            refreshDiagnostics(parts.diagnostics)
        } else {
            reorder(parts.pageIDs, diagnostics: parts.diagnostics)
        }
    }

    /// The same pages as the last write: only those with diagnostics then or now can differ.
    private func refreshDiagnostics(_ now: [String: [Diagnostic]]) {
        for pageID in Set(diagnostics.keys).union(now.keys) where diagnostics[pageID] != now[pageID] {
            guard let index = position(of: pageID) else { continue }
            pages[index] = page(pageID, diagnostics: now[pageID] ?? [])
        }
        diagnostics = now
    }

    /// Another set of pages: sorted again, each kept page copied unless its diagnostics changed.
    private func reorder(_ pageIDs: Set<String>, diagnostics now: [String: [Diagnostic]]) {
        var kept: [String: Page?] = [:]
        for (pageID, page) in zip(order, pages) where pageIDs.contains(pageID) && diagnostics[pageID] == now[pageID] {
            kept[pageID] = page
        }
        self.pageIDs = pageIDs
        order = StatusReport.ordered(pageIDs)
        pages = order.map { pageID in kept[pageID] ?? page(pageID, diagnostics: now[pageID] ?? []) }
        diagnostics = now
    }

    /// The part of a page, nil when the template puts it together.
    private func page(_ pageID: String, diagnostics: [Diagnostic]) -> Page? {
        renderedSinceWrite += 1
        if diagnostics.isEmpty, template.fits(pageID) { return nil }
        return Page(pageID, locales: locales, diagnostics: diagnostics)
    }

    /// Where `pageID` stands in `order` (sorted by bytes), found by bisection.
    private func position(of pageID: String) -> Int? {
        var (low, high) = (0, order.count)
        while low < high {
            let middle = (low + high) / 2
            if order[middle].utf8Precedes(pageID) { low = middle + 1 } else { high = middle }
        }
        return low < order.count && order[low] == pageID ? low : nil
    }
}
