public import QuireModel

/// `dist/<site>/status/index.html`: the site at a glance for editors. Built from the same
/// `status.json` it sits next to (shape: `PreviewScripts`), self-contained, and reloading
/// itself when a build changes that file.
public enum StatusPage {
    /// How many history entries to show, newest first.
    static let historyLimit = 25
    /// How many pages the table lists beside those with diagnostics: a browser lays out a table
    /// of 100,000 rows (29 MB) for seconds, and the page reloads after every build. `status.json`
    /// and the dashboard's page list have them all.
    static let pageRowLimit = 1000

    /// Whether the table lists the page at `position` in page order.
    static func listsRow(at position: Int, hasDiagnostics: Bool) -> Bool { position < pageRowLimit || hasDiagnostics }

    public static func html(status: JSONValue) -> [UInt8] { html(status: status, pageRows: nil) }

    /// `pageRows`: the pages table as `StatusPageCache` keeps it, in place of rendering it from
    /// `status["pages"]` (the same bytes, without rendering ten thousand rows again).
    static func html(status: JSONValue, pageRows: PageRows?) -> [UInt8] {
        let site = status["site"]?.displayText ?? "site"
        let version = status["version"]?.displayText
        let current = status["current"]?.displayText ?? version
        var html = HTMLWriter()
        html.raw("<!DOCTYPE html>\n<html lang=\"en\"")
        html.attribute("data-built-at", status["built_at"]?.displayText ?? "")
        html.attribute("data-version", version ?? "")
        html.raw(">\n<head>\n<meta charset=\"utf-8\">\n<meta http-equiv=\"Content-Security-Policy\" content=\"")
        html.raw(PreviewScripts.statusRefreshPolicy)
        html.raw("\">\n<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n")
        html.raw("<meta name=\"referrer\" content=\"no-referrer\">\n<title>")
        html.text("\(site) · status")
        html.raw("</title>\n<style>\n\(PreviewStyle.status)</style>\n</head>\n<body>\n")
        html.raw("<header class=\"toolbar\"><span class=\"brand\">Quire status</span>")
        html.raw("<span class=\"field\"><span class=\"label\">site</span> ")
        html.element("code", site)
        html.raw("</span></header>\n")

        if let pinned = status["pinned"]?.displayText {
            html.raw("<div class=\"banner banner-warning\" data-pinned><strong>")
            html.text("Pinned to \(pinned).")
            html.raw("</strong> ")
            html.text("Apps get \(pinned); new builds are published but not served until ")
            html.raw("<code>quire unpin</code>.")
            html.raw("</div>\n")
        }
        let allDiagnostics = status["diagnostics"]?.arrayValue ?? []
        let errorCount = allDiagnostics.filter { ($0["severity"]?.stringValue ?? "error") == "error" }.count
        if errorCount > 0 {
            html.raw("<div class=\"banner banner-error\"><strong>")
            html.text(errorCount == 1 ? "The last build found 1 error." : "The last build found \(errorCount) errors.")
            html.raw("</strong> Broken pages keep their last good version.</div>\n")
        }

        html.raw("<div class=\"wrap\">\n<h1>")
        html.text(site)
        html.raw("</h1>\n<p class=\"summary\">")
        html.text("current: \(current ?? "none") · newest: \(version ?? "none")")
        if let builtAt = status["built_at"]?.displayText { html.text(" · built at \(builtAt)") }
        html.raw("</p>\n")

        let rows = pageRows ?? PageRows(status["pages"]?.objectValue)
        pagesBeforeRows(rows, into: &html)
        // The rows (most of the page on a large site) are copied once, into the whole page,
        // not into the writer and out again.
        let head = html.bytes
        var rest = HTMLWriter()
        if rows.count > 0 { rest.raw("</tbody></table>\n") }
        if rows.total > rows.count {
            rest.raw("<p class=\"none\" data-pages-left-out>")
            rest.text("\(rows.total - rows.count) more pages without problems are not listed here; ")
            rest.raw("<a href=\"status.json\">status.json</a> lists every page.</p>\n")
        }
        coverage(status["coverage"]?.arrayValue ?? [], into: &rest)
        diagnostics(allDiagnostics, into: &rest)
        history(status["history"]?.arrayValue ?? [], into: &rest)
        scheduled(status["scheduled"]?.arrayValue ?? [], into: &rest)
        feeds(status["feeds"]?.arrayValue ?? [], into: &rest)
        replicas(status["replicas"]?.arrayValue ?? [], into: &rest)

        rest.raw("</div>\n<script>\(PreviewScripts.statusRefresh)</script>\n</body>\n</html>\n")
        let tail = rest.bytes
        var bytes: [UInt8] = []
        bytes.reserveCapacity(head.count + rows.bytes.count + tail.count)
        bytes += head
        if rows.count > 0 { bytes += rows.bytes }
        bytes += tail
        return bytes
    }

    // MARK: Parts

    /// The pages table's body: the locale columns, and one row per page listed (`listsRow`) in
    /// page order; `count` rows of `total` pages.
    struct PageRows {
        var columns: [String]
        var count: Int
        var total: Int
        var bytes: [UInt8]

        init(columns: [String], count: Int, total: Int, bytes: [UInt8]) {
            (self.columns, self.count, self.total, self.bytes) = (columns, count, total, bytes)
        }

        /// Every locale any page lists or previews, in the order the pages name them.
        init(_ pages: JSONObject?) {
            var columns: [String] = []
            for (_, page) in pages ?? JSONObject() {
                for locale in (page["locales"]?.arrayValue ?? []).compactMap(\.displayText)
                    + (page["preview"]?.objectValue?.keys ?? []) where !columns.contains(locale)
                {
                    columns.append(locale)
                }
            }
            var bytes: [UInt8] = []
            var count = 0
            for (position, (pageID, page)) in (pages ?? JSONObject()).enumerated()
            where listsRow(at: position, hasDiagnostics: page["diagnostics"]?.arrayValue?.isEmpty == false) {
                bytes += Self.row(pageID, page, columns: columns)
                count += 1
            }
            self.init(columns: columns, count: count, total: pages?.count ?? 0, bytes: bytes)
        }

        /// One page's row: a preview link, "published" or a dash per column, then its last build.
        static func row(_ pageID: String, _ page: JSONValue, columns: [String]) -> [UInt8] {
            var html = HTMLWriter()
            html.raw("<tr")
            html.attribute("data-page-id", pageID)
            html.raw("><td>")
            html.element("code", pageID)
            html.raw("</td>")
            let pageLocales = (page["locales"]?.arrayValue ?? []).compactMap(\.displayText)
            for locale in columns {
                let preview = page["preview"]?[locale]?.stringValue.flatMap(PreviewURL.link)
                if let preview {
                    html.raw("<td><a")
                    html.attribute("href", preview)
                    html.raw(">preview</a></td>")
                } else if pageLocales.contains(locale) {
                    html.raw("<td>published</td>")
                } else {
                    html.raw("<td class=\"missing\">—</td>")
                }
            }
            let problems = page["diagnostics"]?.arrayValue ?? []
            let errors = problems.filter { ($0["severity"]?.stringValue ?? "error") == "error" }.count
            if errors > 0 {
                html.element("td", class: "bad", errors == 1 ? "1 error" : "\(errors) errors")
            } else if !problems.isEmpty {
                html.element("td", problems.count == 1 ? "1 warning" : "\(problems.count) warnings")
            } else {
                html.element("td", class: "ok", "ok")
            }
            html.raw("</tr>\n")
            return html.bytes
        }
    }

    /// The pages table up to its rows (which follow, then `</tbody></table>`), or that there
    /// are none.
    private static func pagesBeforeRows(_ rows: PageRows, into html: inout HTMLWriter) {
        html.raw("<h2>Pages</h2>\n")
        guard rows.count > 0 else {
            html.raw("<p class=\"none\">No pages published yet.</p>\n")
            return
        }
        html.raw("<table class=\"pages\">\n<thead><tr><th>page</th>")
        for locale in rows.columns { html.element("th", locale) }
        html.raw("<th>last build</th></tr></thead>\n<tbody>\n")
    }

    private static func coverage(_ rows: [JSONValue], into html: inout HTMLWriter) {
        html.raw("<h2>Translation coverage</h2>\n")
        guard !rows.isEmpty else {
            html.raw("<p class=\"none\">No translations tracked.</p>\n")
            return
        }
        html.raw("<table class=\"coverage\">\n<thead><tr><th>locale</th><th>translated</th><th>stale</th>")
        html.raw("<th>missing</th><th>coverage</th></tr></thead>\n<tbody>\n")
        for row in rows {
            html.raw("<tr>")
            html.raw("<td>")
            html.element("code", row["locale"]?.displayText ?? "?")
            html.raw("</td>")
            for key in ["translated", "stale", "missing"] {
                html.raw("<td>")
                html.text(row[key]?.displayText ?? "")
                html.raw("</td>")
            }
            let percent = Self.percent(row["percent"])
            html.raw("<td><span class=\"bar\"><span style=\"width: \(percent)%\"></span></span>")
            html.text("\(percent)%")
            html.raw("</td></tr>\n")
        }
        html.raw("</tbody></table>\n")
    }

    private static func diagnostics(_ list: [JSONValue], into html: inout HTMLWriter) {
        html.raw("<h2>Diagnostics of the last build</h2>\n")
        guard !list.isEmpty else {
            html.raw("<p class=\"none\">None: the last build was clean.</p>\n")
            return
        }
        html.raw("<ul class=\"diagnostics\">\n")
        for diagnostic in list {
            let severity = diagnostic["severity"]?.stringValue ?? "error"
            html.raw("<li")
            html.attribute("class", severity)
            html.raw(">")
            html.text(Self.line(diagnostic))
            html.raw("</li>\n")
        }
        html.raw("</ul>\n")
    }

    private static func history(_ entries: [JSONValue], into html: inout HTMLWriter) {
        html.raw("<h2>Recent history</h2>\n")
        guard !entries.isEmpty else {
            html.raw("<p class=\"none\">Nothing published yet.</p>\n")
            return
        }
        // Newest first: ISO 8601 times sort as text; the stable sort keeps file order for ties.
        let newestFirst = entries.enumerated()
            .sorted { ($0.element["at"]?.displayText ?? "", $0.offset) > ($1.element["at"]?.displayText ?? "", $1.offset) }
            .prefix(historyLimit)
        html.raw("<table class=\"history\">\n<thead><tr><th>at</th><th>action</th><th>from</th><th>to</th>")
        html.raw("<th>reason</th><th>user</th></tr></thead>\n<tbody>\n")
        for (_, entry) in newestFirst {
            html.raw("<tr>")
            for key in ["at", "action", "from", "to", "reason", "user"] {
                html.raw("<td>")
                html.text(entry[key]?.displayText ?? "")
                html.raw("</td>")
            }
            html.raw("</tr>\n")
        }
        html.raw("</tbody></table>\n")
    }

    private static func scheduled(_ entries: [JSONValue], into html: inout HTMLWriter) {
        guard !entries.isEmpty else { return }
        html.raw("<h2>Scheduled</h2>\n<ul class=\"scheduled\">\n")
        for entry in entries {
            html.raw("<li>")
            if let object = entry.objectValue {
                html.text(
                    object.map { "\($0.key): \($0.value.displayText ?? JSONWriter(pretty: false).string($0.value))" }
                        .joined(separator: " · "))
            } else {
                html.text(entry.displayText ?? JSONWriter(pretty: false).string(entry))
            }
            html.raw("</li>\n")
        }
        html.raw("</ul>\n")
    }

    /// Each feed, its length and its newest entry (text only: names come from site.yaml and pages).
    private static func feeds(_ entries: [JSONValue], into html: inout HTMLWriter) {
        guard !entries.isEmpty else { return }
        html.raw("<h2>Feeds</h2>\n<ul class=\"feeds\">\n")
        for entry in entries {
            let name = entry["name"]?.stringValue ?? ""
            let count = entry["entries"]?.intValue ?? 0
            let newest = entry["newest"].flatMap { newest in
                newest["page_id"]?.stringValue.map { "\($0) (\(newest["date"]?.stringValue ?? ""))" }
            }
            html.raw("<li>")
            html.text("\(name): \(count) \(count == 1 ? "entry" : "entries")" + (newest.map { ", newest \($0)" } ?? ""))
            html.raw("</li>\n")
        }
        html.raw("</ul>\n")
    }

    /// Each replica's version, as the last push left it, and what the last probe found (`ReplicaRecord`).
    private static func replicas(_ entries: [JSONValue], into html: inout HTMLWriter) {
        guard !entries.isEmpty else { return }
        html.raw("<h2>Replicas</h2>\n<ul class=\"replicas\">\n")
        for entry in entries {
            html.raw("<li data-replica>")
            html.element("code", entry["destination"]?.displayText ?? "?")
            let state = entry["state"]?.displayText ?? "?"
            let detail = state == "current" ? "" : " (\(state)\(entry["message"]?.displayText.map { ": " + $0 } ?? ""))"
            html.text(
                " · \(entry["version"]?.displayText ?? "no version")\(detail) · checked at \(entry["checked_at"]?.displayText ?? "?")")
            if let probe = entry["probe"] {
                // `quire push --check`: whether the next push can make it whole.
                let message = probe["message"]?.displayText.map { ": " + $0 } ?? ""
                html.text(" · probe \(probe["state"]?.displayText ?? "?")\(message) at \(probe["checked_at"]?.displayText ?? "?")")
            }
            html.raw("</li>\n")
        }
        html.raw("</ul>\n")
    }

    /// `file:line:col: severity: message`, or the `text` the build already wrote.
    static func line(_ diagnostic: JSONValue) -> String {
        if let text = diagnostic["text"]?.stringValue { return text }
        if let text = diagnostic.stringValue { return text }
        let file = diagnostic["file"]?.displayText ?? ""
        let line = diagnostic["line"]?.displayText ?? "1"
        let column = diagnostic["column"]?.displayText ?? "1"
        let severity = diagnostic["severity"]?.displayText ?? "error"
        return "\(file):\(line):\(column): \(severity): \(diagnostic["message"]?.displayText ?? "")"
    }

    /// A whole percentage in 0...100, whatever number arrives.
    static func percent(_ value: JSONValue?) -> Int {
        let number: Double
        switch value {
        case .integer(let whole): number = Double(whole)
        case .number(let fraction) where fraction.isFinite: number = fraction
        default: number = 0
        }
        return Int(min(100, max(0, number)).rounded())
    }
}
