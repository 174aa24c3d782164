import Foundation
import QuireCore
import QuireModel

// The translators' routes under `/api/sites/{site}/l10n/`:
//   GET  l10n                                coverage per locale and page (as `quire l10n status`)
//   GET  l10n/{locale}/pages/{id}            the page's strings, with states and fallbacks
//   PUT  l10n/{locale}/pages/{id}            save: {"base", "strings": {key: text}}
//   POST l10n/{locale}/check/{id}            the page rendered with unsaved strings (nothing written)
//   GET  l10n/{locale}/export/{id}?format=   the file `quire l10n export` writes for the page
//   POST l10n/{locale}/import?name=          a translated file, checked and placed as `quire l10n import` does
extension DashboardService {
    func l10nRoute(_ request: SCGIRequest, site: String, rest: [String]) throws(DashboardError) -> HTTPResponse {
        // A request about one page reads only that page and its translation files.
        let onePage = rest.count > 2 && ["pages", "check", "export"].contains(rest[1])
        let desk = try L10nDesk(service: self, site: site, pages: onePage ? [rest.dropFirst(2).joined(separator: "/")] : nil)
        if rest.isEmpty {
            try allowOnly(request.method, ["GET"])
            return desk.coverage()
        }
        guard rest.count >= 2 else { throw .notFound("no such route under /api/sites/\(site)/l10n/") }
        let locale = try desk.checkLocale(rest[0])
        let id = rest.dropFirst(2).joined(separator: "/")
        switch (rest[1], id.isEmpty) {
        case ("pages", false):
            try allowOnly(request.method, ["GET", "PUT"])
            if request.method == "GET" { return try desk.page(id, locale: locale) }
            try authorize(request)
            return try desk.save(id, locale: locale, body: try jsonBody(request), request: request)
        case ("check", false):
            try allowOnly(request.method, ["POST"])
            try authorize(request)
            return try desk.preview(id, locale: locale, body: try jsonBody(request))
        case ("export", false):
            try allowOnly(request.method, ["GET"])
            return try desk.export(id, locale: locale, query: request.query)
        case ("import", true):
            try allowOnly(request.method, ["POST"])
            try authorize(request)
            return try desk.importFile(request.query["name"] ?? "", locale: locale, bytes: request.body, request: request)
        default:
            throw .notFound("no such route under /api/sites/\(site)/l10n/")
        }
    }
}
