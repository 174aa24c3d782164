import QuireCore

/// The dashboard's own files (Web/, compiled in with SwiftPM's `embedInCode`), served under
/// `/dashboard/` with a strict CSP: scripts and styles from this origin only, no inline script,
/// Trusted Types required, so page text never becomes markup.
enum StaticFiles {
    /// Each file of Web/ by its name. SwiftPM makes a constant per file and no list of them: a
    /// file added to Web/ is added here (a test compares this table with the folder).
    static let files: [String: [UInt8]] = [
        "assets.js": PackageResources.assets_js,
        "dashboard.css": PackageResources.dashboard_css,
        "diagnostics.js": PackageResources.diagnostics_js,
        "dialog.js": PackageResources.dialog_js,
        "dom.js": PackageResources.dom_js,
        "draft_preview.js": PackageResources.draft_preview_js,
        "editor.js": PackageResources.editor_js,
        "events.js": PackageResources.events_js,
        "fields.js": PackageResources.fields_js,
        "index.html": PackageResources.index_html,
        "main.js": PackageResources.main_js,
        "messages.js": PackageResources.messages_js,
        "new_page.js": PackageResources.new_page_js,
        "ops.js": PackageResources.ops_js,
        "page_form.js": PackageResources.page_form_js,
        "page_list.js": PackageResources.page_list_js,
        "preview.html": PackageResources.preview_html,
        "publish_status.js": PackageResources.publish_status_js,
        "request.js": PackageResources.request_js,
        "roles.js": PackageResources.roles_js,
        "saving.js": PackageResources.saving_js,
        "schema.js": PackageResources.schema_js,
        "sections.js": PackageResources.sections_js,
        "site_nav.js": PackageResources.site_nav_js,
        "sites.js": PackageResources.sites_js,
        "text_mode.js": PackageResources.text_mode_js,
        "translate.js": PackageResources.translate_js,
        "translations.js": PackageResources.translations_js,
        "windowed_table.js": PackageResources.windowed_table_js,
        "word_diff.js": PackageResources.word_diff_js,
    ]

    /// The preview's script and style, the very bytes every published preview gets (not copies):
    /// the draft preview draws a draft with them.
    static let shared: [String: [UInt8]] = ["preview.js": PagePreview.script, "preview.css": PagePreview.stylesheet]

    static let contentSecurityPolicy =
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; frame-src 'self'; "
        + "base-uri 'none'; form-action 'none'; frame-ancestors 'self'; require-trusted-types-for 'script'"

    static func contentType(_ name: String) -> String? {
        switch name.split(separator: ".").last {
        case "html": return "text/html; charset=utf-8"
        case "js", "mjs": return "text/javascript; charset=utf-8"
        case "css": return "text/css; charset=utf-8"
        case "png": return "image/png"
        case "json": return "application/json; charset=utf-8"
        default: return nil
        }
    }

    /// `name`: the path under /dashboard/ (empty for the dashboard itself).
    static func response(_ name: String, trailingSlash: Bool) -> HTTPResponse {
        let file = name.isEmpty ? "index.html" : name
        guard let bytes = files[file] ?? shared[file], let type = contentType(file) else {
            return .error(.notFound, "no dashboard file '\(name.prefix(100))'")
        }
        return HTTPResponse(
            status: .ok,
            headers: [("Content-Type", type), ("Content-Security-Policy", contentSecurityPolicy), ("Referrer-Policy", "no-referrer")],
            body: bytes)
    }
}
